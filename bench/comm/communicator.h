// The data-plane interface every benchmark moves bytes through. Implementations: MPI on host (or
// CUDA-aware device) buffers, NCCL on device buffers. Every wait ends by the communicator's
// timeout with a TimeoutError that names the operation and the peer: nothing waits forever.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "comm/collective.h"

namespace wb {

// An operation in flight. `handle` is the backend's own (an MPI_Request, an event index).
struct Request {
  enum class Kind { kSend, kRecv, kCollective };
  std::uint64_t handle = 0;
  Kind kind = Kind::kSend;
  int peer = -1;
  std::uint64_t bytes = 0;
  const char* collective = nullptr;  // the collective's name (static text), for messages
};

std::string describe(const Request& request);  // "receive of 4194304 bytes from rank 1"

// One collective call. `count` is NCCL's count argument (CollectiveShape::count). In place
// everything happens in `recv`: all_reduce, reduce, broadcast and all_to_all read and write it;
// all_gather finds this rank's block at its place in it; reduce_scatter reads all blocks from it
// and leaves its result in block in_place_result_block().
struct CollectiveCall {
  CollOp op = CollOp::kAllReduce;
  DType dtype = DType::kFloat32;
  RedOp redop = RedOp::kSum;
  int root = 0;
  const void* send = nullptr;
  void* recv = nullptr;
  std::size_t count = 0;
  bool in_place = false;
};
std::string describe(const CollectiveCall& call);  // "all_reduce of 1024 float32"

class Communicator {
 public:
  explicit Communicator(std::chrono::milliseconds timeout) : timeout_(timeout) {}
  virtual ~Communicator() = default;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string backend() const = 0;  // the `backend` column: mpi, mpi-cuda, nccl

  // Non-blocking point-to-point. Messages between one pair arrive in the order they were posted.
  virtual Request isend(const void* buffer, std::uint64_t bytes, int peer) = 0;
  virtual Request irecv(void* buffer, std::uint64_t bytes, int peer) = 0;
  // Completes every request; throws TimeoutError after timeout() without progress.
  virtual void wait_all(std::span<Request> requests) = 0;
  // The same, calling `completed(i)` as soon as request i is seen complete (the arrival of each
  // peer's data in an all-to-all). Backends that complete a group as one (NCCL) report every
  // request when the group is done.
  virtual void wait_each(std::span<Request> requests, const std::function<void(std::size_t)>& completed) {
    wait_all(requests);
    for (std::size_t i = 0; i < requests.size(); ++i) completed(i);
  }

  // Collectives. Blocking calls are the library's own blocking calls (what applications use) under
  // a deadline; non-blocking ones return a request for wait/wait_all.
  // Whether this backend has the collective in that form (MPI has no out-of-place broadcast, and
  // nobody has an in-place send_recv).
  virtual bool supports(CollOp op, bool in_place) const = 0;
  // In place, which block of the buffer holds a sharded result: MPI's reduce_scatter leaves it in
  // block 0, NCCL's in this rank's block.
  virtual std::size_t in_place_result_block(CollOp op) const = 0;
  virtual Request start_collective(const CollectiveCall& call) = 0;
  // Whether started calls queue behind each other on a stream (NCCL), so that a batch may launch
  // many and synchronise once, as nccl-tests' -z 0 does. MPI's progress needs a wait per call.
  virtual bool queues_calls() const { return false; }
  virtual void collective(const CollectiveCall& call) {
    Request r = start_collective(call);
    wait(r);
  }

  // Records the operations `enqueue` issues as one replayable unit (a CUDA graph) and returns what
  // replays it (then wait with wait_all({})); empty where the backend has no such thing (MPI).
  virtual std::function<void()> capture(const std::function<void()>& enqueue) {
    (void)enqueue;
    return {};
  }

  // Operations posted between these start together. NCCL needs this to pair a rank's sends with
  // its receives (otherwise two ranks sending to each other deadlock); MPI starts each at once.
  virtual void begin_group() {}
  virtual void end_group() {}

  void wait(Request& request) { wait_all(std::span<Request>(&request, 1)); }
  void send(const void* buffer, std::uint64_t bytes, int peer) {
    Request r = isend(buffer, bytes, peer);
    wait(r);
  }
  void recv(void* buffer, std::uint64_t bytes, int peer) {
    Request r = irecv(buffer, bytes, peer);
    wait(r);
  }

  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  std::chrono::milliseconds timeout_;
};

}  // namespace wb
