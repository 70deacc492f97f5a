// Communicator over MPI. With host buffers it is the `mpi` backend; handed device pointers by a
// CUDA-aware MPI it is `mpi-cuda` (the caller says which, it cannot tell from a pointer).
#pragma once

#include <mpi.h>

#include "comm/communicator.h"

namespace wb {

class Watchdog;

class MpiCommunicator final : public Communicator {
 public:
  // Duplicates `parent`, so benchmark traffic never matches the harness's own messages, and sets
  // MPI_ERRORS_RETURN so that failures become CallErrors with MPI's message.
  MpiCommunicator(MPI_Comm parent, std::chrono::milliseconds timeout, std::string backend = "mpi");
  ~MpiCommunicator() override;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backend() const override { return backend_; }

  Request isend(const void* buffer, std::uint64_t bytes, int peer) override;
  Request irecv(void* buffer, std::uint64_t bytes, int peer) override;
  void wait_all(std::span<Request> requests) override;
  void wait_each(std::span<Request> requests, const std::function<void(std::size_t)>& completed) override;
  // Whether `request` has completed (then it is released); never blocks. For callers that drive
  // several requests from one thread with their own deadline.
  bool test(Request& request);

  bool supports(CollOp op, bool in_place) const override;
  std::size_t in_place_result_block(CollOp) const override { return 0; }
  Request start_collective(const CollectiveCall& call) override;
  // MPI's blocking collective under the watchdog's deadline (without one: non-blocking + wait).
  void collective(const CollectiveCall& call) override;
  void set_watchdog(Watchdog* watchdog) { watchdog_ = watchdog; }

 private:
  Watchdog* watchdog_ = nullptr;
  CollectiveCall described_;  // the call description_ names
  std::string description_;
  int rank_ = 0, size_ = 1;  // before comm_: its initialiser fills them
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::string backend_;
};

}  // namespace wb
