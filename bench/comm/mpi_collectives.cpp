// MpiCommunicator's collectives: each CollectiveCall as MPI's blocking or non-blocking call.
#include <climits>
#include <cstring>

#include "comm/mpi_communicator.h"
#include "comm/mpi_types.h"
#include "comm/watchdog.h"
#include "harness/checked_mpi.h"
#include "harness/errors.h"

namespace wb {
namespace {

int mpi_count(std::size_t count) {
  if (count > static_cast<std::size_t>(INT_MAX))
    throw UsageError("collective of " + std::to_string(count) + " elements exceeds MPI's int count");
  return static_cast<int>(count);
}

const void* send_or_in_place(const CollectiveCall& call) { return call.in_place ? MPI_IN_PLACE : call.send; }

// One function for both forms: `request` null means the blocking call.
int issue(const CollectiveCall& call, MPI_Comm comm, int rank, int size, MPI_Request* request) {
  const MPI_Datatype type = mpi_datatype(call.dtype);
  const MPI_Op op = mpi_op(call.dtype, call.redop);
  const int n = mpi_count(call.count);
  switch (call.op) {
    case CollOp::kAllReduce:
      return request ? MPI_Iallreduce(send_or_in_place(call), call.recv, n, type, op, comm, request)
                     : MPI_Allreduce(send_or_in_place(call), call.recv, n, type, op, comm);
    case CollOp::kReduce: {
      // In place only the root names MPI_IN_PLACE; the others send from their buffer.
      const void* send = call.in_place ? (rank == call.root ? MPI_IN_PLACE : call.recv) : call.send;
      return request ? MPI_Ireduce(send, call.recv, n, type, op, call.root, comm, request)
                     : MPI_Reduce(send, call.recv, n, type, op, call.root, comm);
    }
    case CollOp::kBroadcast:
      return request ? MPI_Ibcast(call.recv, n, type, call.root, comm, request)
                     : MPI_Bcast(call.recv, n, type, call.root, comm);
    case CollOp::kAllGather: {
      const void* send = call.in_place ? MPI_IN_PLACE : call.send;
      return request ? MPI_Iallgather(send, n, type, call.recv, n, type, comm, request)
                     : MPI_Allgather(send, n, type, call.recv, n, type, comm);
    }
    case CollOp::kReduceScatter:
      return request ? MPI_Ireduce_scatter_block(send_or_in_place(call), call.recv, n, type, op, comm, request)
                     : MPI_Reduce_scatter_block(send_or_in_place(call), call.recv, n, type, op, comm);
    case CollOp::kAllToAll: {
      const void* send = call.in_place ? MPI_IN_PLACE : call.send;
      return request ? MPI_Ialltoall(send, n, type, call.recv, n, type, comm, request)
                     : MPI_Alltoall(send, n, type, call.recv, n, type, comm);
    }
    case CollOp::kSendRecv: {
      // A ring shift: send to the next rank, receive from the previous one. Moved as bytes: MPICH
      // 4.0.2's MPI_Isendrecv crashes in UCX with a derived type (our float16/bfloat16) on 3+ ranks.
      const int next = (rank + 1) % size, previous = (rank - 1 + size) % size;
      constexpr int kTag = 11;
      const int bytes = mpi_count(call.count * info(call.dtype).size);
      return request ? MPI_Isendrecv(call.send, bytes, MPI_BYTE, next, kTag, call.recv, bytes, MPI_BYTE, previous, kTag,
                                     comm, request)
                     : MPI_Sendrecv(call.send, bytes, MPI_BYTE, next, kTag, call.recv, bytes, MPI_BYTE, previous, kTag,
                                    comm, MPI_STATUS_IGNORE);
    }
  }
  return MPI_ERR_OP;
}

}  // namespace

bool MpiCommunicator::supports(CollOp op, bool in_place) const {
  if (op == CollOp::kSendRecv) return !in_place;
  if (op == CollOp::kBroadcast) return in_place;  // MPI_Bcast has one buffer
  return true;
}

Request MpiCommunicator::start_collective(const CollectiveCall& call) {
  MPI_Request request;
  const int rc = issue(call, comm_, rank_, size_, &request);
  if (rc != MPI_SUCCESS) throw_failed_call("MPI", describe(call).c_str(), __FILE__, __LINE__, mpi_error_string(rc), rc);
  std::uint64_t handle = 0;
  std::memcpy(&handle, &request, sizeof request);
  return Request{handle, Request::Kind::kCollective, -1, call.count * info(call.dtype).size,
                 describe(call.op).name};
}

void MpiCommunicator::collective(const CollectiveCall& call) {
  if (watchdog_ == nullptr) return Communicator::collective(call);
  // The description is built when the call changes, not per call: this path times 8-byte calls.
  if (call.op != described_.op || call.dtype != described_.dtype || call.count != described_.count ||
      call.in_place != described_.in_place || description_.empty()) {
    described_ = call;
    description_ = "MPI " + describe(call);
  }
  Watchdog::Guard guard(*watchdog_, timeout(), &description_);
  const int rc = issue(call, comm_, rank_, size_, nullptr);
  if (rc != MPI_SUCCESS) throw_failed_call("MPI", describe(call).c_str(), __FILE__, __LINE__, mpi_error_string(rc), rc);
}

}  // namespace wb
