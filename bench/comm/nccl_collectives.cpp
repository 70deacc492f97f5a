// NcclCommunicator's collectives: each CollectiveCall enqueued on the communicator's stream.
#include "comm/nccl_communicator.h"
#include "gpu/checked_cuda.h"
#include "gpu/checked_nccl.h"

#include <memory>

namespace wb {
namespace {

ncclDataType_t nccl_type(DType type) {
  switch (type) {
    case DType::kInt8: return ncclInt8;
    case DType::kUint8: return ncclUint8;
    case DType::kInt32: return ncclInt32;
    case DType::kUint32: return ncclUint32;
    case DType::kInt64: return ncclInt64;
    case DType::kUint64: return ncclUint64;
    case DType::kFloat16: return ncclFloat16;
    case DType::kBfloat16: return ncclBfloat16;
    case DType::kFloat32: return ncclFloat32;
    case DType::kFloat64: return ncclFloat64;
  }
  return ncclUint8;
}

ncclRedOp_t nccl_op(RedOp op) {
  switch (op) {
    case RedOp::kSum: return ncclSum;
    case RedOp::kProd: return ncclProd;
    case RedOp::kMax: return ncclMax;
    case RedOp::kMin: return ncclMin;
    case RedOp::kAvg: return ncclAvg;  // NCCL 2.10 and later
  }
  return ncclSum;
}

}  // namespace

bool NcclCommunicator::supports(CollOp op, bool in_place) const {
  // all_to_all and the ring shift are grouped send/recv: they cannot share one buffer.
  return !(in_place && (op == CollOp::kAllToAll || op == CollOp::kSendRecv));
}

Request NcclCommunicator::start_collective(const CollectiveCall& call) {
  const ncclDataType_t type = nccl_type(call.dtype);
  const std::size_t element = info(call.dtype).size;
  auto* recv = static_cast<char*>(call.recv);
  const void* send = call.in_place ? call.recv : call.send;
  switch (call.op) {
    case CollOp::kAllReduce:
      WB_NCCL_CHECK(ncclAllReduce(send, recv, call.count, type, nccl_op(call.redop), comm_, stream_));
      break;
    case CollOp::kReduce:
      WB_NCCL_CHECK(ncclReduce(send, recv, call.count, type, nccl_op(call.redop), call.root, comm_, stream_));
      break;
    case CollOp::kBroadcast:
      WB_NCCL_CHECK(ncclBroadcast(send, recv, call.count, type, call.root, comm_, stream_));
      break;
    case CollOp::kAllGather:
      if (call.in_place) send = recv + static_cast<std::size_t>(rank_) * call.count * element;
      WB_NCCL_CHECK(ncclAllGather(send, recv, call.count, type, comm_, stream_));
      break;
    case CollOp::kReduceScatter: {
      char* out = call.in_place ? recv + static_cast<std::size_t>(rank_) * call.count * element : recv;
      WB_NCCL_CHECK(ncclReduceScatter(send, out, call.count, type, nccl_op(call.redop), comm_, stream_));
      break;
    }
    case CollOp::kAllToAll: {
      const auto* in = static_cast<const char*>(send);
      WB_NCCL_CHECK(ncclGroupStart());
      for (int peer = 0; peer < size_; ++peer) {
        const std::size_t offset = static_cast<std::size_t>(peer) * call.count * element;
        WB_NCCL_CHECK(ncclSend(in + offset, call.count, type, peer, comm_, stream_));
        WB_NCCL_CHECK(ncclRecv(recv + offset, call.count, type, peer, comm_, stream_));
      }
      WB_NCCL_CHECK(ncclGroupEnd());
      break;
    }
    case CollOp::kSendRecv:
      WB_NCCL_CHECK(ncclGroupStart());
      WB_NCCL_CHECK(ncclSend(send, call.count, type, (rank_ + 1) % size_, comm_, stream_));
      WB_NCCL_CHECK(ncclRecv(recv, call.count, type, (rank_ - 1 + size_) % size_, comm_, stream_));
      WB_NCCL_CHECK(ncclGroupEnd());
      break;
  }
  return Request{0, Request::Kind::kCollective, -1, call.count * element, describe(call.op).name};
}

std::function<void()> NcclCommunicator::capture(const std::function<void()>& enqueue) {
  WB_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
  enqueue();
  cudaGraph_t graph = nullptr;
  WB_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
  cudaGraphExec_t exec = nullptr;
  WB_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  WB_CUDA_CHECK(cudaGraphDestroy(graph));
  // The replay owns the executable graph; it goes with the last copy of the function.
  std::shared_ptr<CUgraphExec_st> owned(exec, [](cudaGraphExec_t e) { cudaGraphExecDestroy(e); });
  cudaStream_t stream = stream_;
  return [owned, stream] { WB_CUDA_CHECK(cudaGraphLaunch(owned.get(), stream)); };
}

}  // namespace wb
