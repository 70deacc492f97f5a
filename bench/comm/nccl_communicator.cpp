#include "comm/nccl_communicator.h"

#include "comm/mpi_deadline_wait.h"
#include "gpu/checked_cuda.h"
#include "gpu/checked_nccl.h"
#include "gpu/stream_wait.h"
#include "harness/checked_mpi.h"

namespace wb {

NcclCommunicator::NcclCommunicator(MPI_Comm world, std::chrono::milliseconds timeout) : Communicator(timeout) {
  WB_MPI_CHECK(MPI_Comm_rank(world, &rank_));
  WB_MPI_CHECK(MPI_Comm_size(world, &size_));
  ncclUniqueId id{};
  if (rank_ == 0) WB_NCCL_CHECK(ncclGetUniqueId(&id));
  MPI_Request request;
  WB_MPI_CHECK(MPI_Ibcast(&id, sizeof id, MPI_BYTE, 0, world, &request));
  wait_all_with_deadline({&request, 1}, timeout, [] { return std::string("broadcast of the NCCL unique id"); });
  WB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  WB_NCCL_CHECK(ncclCommInitRank(&comm_, size_, id, rank_));
}

NcclCommunicator::~NcclCommunicator() {
  if (comm_ != nullptr) {
    if (aborted_) ncclCommAbort(comm_);
    else ncclCommDestroy(comm_);
  }
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

Request NcclCommunicator::isend(const void* buffer, std::uint64_t bytes, int peer) {
  WB_NCCL_CHECK(ncclSend(buffer, bytes, ncclUint8, peer, comm_, stream_));
  return Request{0, Request::Kind::kSend, peer, bytes};
}

Request NcclCommunicator::irecv(void* buffer, std::uint64_t bytes, int peer) {
  WB_NCCL_CHECK(ncclRecv(buffer, bytes, ncclUint8, peer, comm_, stream_));
  return Request{0, Request::Kind::kRecv, peer, bytes};
}

void NcclCommunicator::wait_all(std::span<Request> requests) {
  wait_stream_with_deadline(
      stream_, timeout(),
      [&] { return requests.empty() ? std::string("NCCL stream") : "NCCL " + describe(requests.front()); },
      [&] {
        aborted_ = true;
        ncclCommAbort(comm_);
        comm_ = nullptr;
      });
  ncclResult_t async_error = ncclSuccess;
  if (comm_ != nullptr) WB_NCCL_CHECK(ncclCommGetAsyncError(comm_, &async_error));
  WB_NCCL_CHECK(async_error);
}

void NcclCommunicator::begin_group() { WB_NCCL_CHECK(ncclGroupStart()); }
void NcclCommunicator::end_group() { WB_NCCL_CHECK(ncclGroupEnd()); }

}  // namespace wb
