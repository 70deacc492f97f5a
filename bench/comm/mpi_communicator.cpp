#include "comm/mpi_communicator.h"

#include <climits>
#include <cstring>
#include <vector>

#include "comm/mpi_deadline_wait.h"
#include "harness/checked_mpi.h"
#include "harness/errors.h"

namespace wb {
namespace {

constexpr int kDataTag = 7;
static_assert(sizeof(MPI_Request) <= sizeof(std::uint64_t), "MPI_Request must fit a Request handle");

MPI_Request to_mpi(std::uint64_t handle) {
  MPI_Request request;
  std::memcpy(&request, &handle, sizeof request);
  return request;
}

std::uint64_t from_mpi(MPI_Request request) {
  std::uint64_t handle = 0;
  std::memcpy(&handle, &request, sizeof request);
  return handle;
}

int checked_count(std::uint64_t bytes) {
  // MPI counts are int; larger messages would need MPI 4 large-count calls.
  if (bytes > static_cast<std::uint64_t>(INT_MAX))
    throw UsageError("message of " + std::to_string(bytes) + " bytes exceeds MPI's int count (2 GiB - 1)");
  return static_cast<int>(bytes);
}

}  // namespace

MpiCommunicator::MpiCommunicator(MPI_Comm parent, std::chrono::milliseconds timeout, std::string backend)
    : Communicator(timeout), comm_(duplicate_returning_errors(parent, rank_, size_)), backend_(std::move(backend)) {}

MpiCommunicator::~MpiCommunicator() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

Request MpiCommunicator::isend(const void* buffer, std::uint64_t bytes, int peer) {
  MPI_Request request;
  WB_MPI_CHECK(MPI_Isend(buffer, checked_count(bytes), MPI_BYTE, peer, kDataTag, comm_, &request));
  return Request{from_mpi(request), Request::Kind::kSend, peer, bytes};
}

Request MpiCommunicator::irecv(void* buffer, std::uint64_t bytes, int peer) {
  MPI_Request request;
  WB_MPI_CHECK(MPI_Irecv(buffer, checked_count(bytes), MPI_BYTE, peer, kDataTag, comm_, &request));
  return Request{from_mpi(request), Request::Kind::kRecv, peer, bytes};
}

bool MpiCommunicator::test(Request& request) {
  MPI_Request mpi = to_mpi(request.handle);
  int done = 0;
  WB_MPI_CHECK(MPI_Test(&mpi, &done, MPI_STATUS_IGNORE));
  request.handle = from_mpi(mpi);
  return done != 0;
}

void MpiCommunicator::wait_all(std::span<Request> requests) {
  // Small fixed buffer for the common case (a window of up to 64 messages) to keep the
  // latency path free of allocation.
  constexpr std::size_t kInline = 128;
  MPI_Request inline_requests[kInline];
  std::vector<MPI_Request> heap_requests;
  MPI_Request* mpi_requests = inline_requests;
  if (requests.size() > kInline) {
    heap_requests.resize(requests.size());
    mpi_requests = heap_requests.data();
  }
  for (std::size_t i = 0; i < requests.size(); ++i) mpi_requests[i] = to_mpi(requests[i].handle);
  wait_all_with_deadline(
      std::span<MPI_Request>(mpi_requests, requests.size()), timeout(),
      [&] {
        // Name the first request that is still open.
        for (std::size_t i = 0; i < requests.size(); ++i)
          if (mpi_requests[i] != MPI_REQUEST_NULL) return describe(requests[i]);
        return std::string("a request");
      },
      WaitStyle::kSpin);
  for (std::size_t i = 0; i < requests.size(); ++i) requests[i].handle = from_mpi(mpi_requests[i]);
}

void MpiCommunicator::wait_each(std::span<Request> requests, const std::function<void(std::size_t)>& completed) {
  std::vector<MPI_Request> mpi_requests(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) mpi_requests[i] = to_mpi(requests[i].handle);
  wait_each_with_deadline(mpi_requests, timeout(), completed, [&] {
    for (std::size_t i = 0; i < requests.size(); ++i)
      if (mpi_requests[i] != MPI_REQUEST_NULL) return describe(requests[i]);
    return std::string("a request");
  });
  for (std::size_t i = 0; i < requests.size(); ++i) requests[i].handle = from_mpi(mpi_requests[i]);
}

}  // namespace wb
