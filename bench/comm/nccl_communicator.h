// Communicator over NCCL on device buffers, bootstrapped over MPI (rank 0's unique id is
// broadcast). Operations are enqueued on one CUDA stream; waiting means waiting for that stream,
// with a deadline after which the NCCL communicator is aborted so nothing hangs.
#pragma once

#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include "comm/communicator.h"

namespace wb {

class NcclCommunicator final : public Communicator {
 public:
  // Collective over `world`; the caller has selected this rank's device already.
  NcclCommunicator(MPI_Comm world, std::chrono::milliseconds timeout);
  ~NcclCommunicator() override;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backend() const override { return "nccl"; }

  Request isend(const void* buffer, std::uint64_t bytes, int peer) override;
  Request irecv(void* buffer, std::uint64_t bytes, int peer) override;
  // Waits for everything enqueued so far (NCCL offers no finer completion for one call).
  void wait_all(std::span<Request> requests) override;
  bool queues_calls() const override { return true; }
  void begin_group() override;
  void end_group() override;

  bool supports(CollOp op, bool in_place) const override;
  std::size_t in_place_result_block(CollOp op) const override {
    return op == CollOp::kReduceScatter ? static_cast<std::size_t>(rank_) : 0;
  }
  Request start_collective(const CollectiveCall& call) override;
  std::function<void()> capture(const std::function<void()>& enqueue) override;

  cudaStream_t stream() const { return stream_; }

 private:
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  int rank_ = 0, size_ = 1;
  bool aborted_ = false;
};

}  // namespace wb
