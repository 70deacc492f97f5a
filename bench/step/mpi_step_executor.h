// Runs a step program on MPI host buffers. Streams as docs/design.md describes them: the compute stream
// is a thread that sleeps each computation's scaled duration (it stands for device time and leaves
// the CPU to communication); each group's communicator is a stream whose collectives start in
// issue order, each when everything it waits for has ended, as MPI non-blocking calls.
//
// Every MPI call is made from the calling (main) thread, which issues the program and drives all
// communication streams' requests: with MPICH 4.0.2 over UCX/TCP, collectives driven from other
// threads made MPI_Finalize hang or crash now and then (1 run in 6, bench/MEASUREMENTS.md).
// A collective that does not complete within the timeout fails the step with a TimeoutError
// naming it; nothing waits forever.
#pragma once

#include <mpi.h>

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "comm/mpi_communicator.h"
#include "harness/page_aligned_buffer.h"
#include "step/step_executor.h"

namespace wb::step {

class MpiStepExecutor final : public StepExecutor {
 public:
  // `shard_group`: ranks per HYBRID_SHARD shard group (consecutive world ranks).
  MpiStepExecutor(MPI_Comm world, int shard_group, std::chrono::milliseconds timeout, double scale);
  ~MpiStepExecutor() override;

  std::string backend() const override { return "mpi"; }
  int group_size(Group g) const override;
  Timeline run(const Program& program, std::optional<double> scale = std::nullopt) override;

 private:
  struct Buffers {
    PageAlignedBuffer send, recv;  // on page boundaries, as the benchmarks' (harness/page_aligned_buffer.h)
  };
  Request start_collective(const Program& program, const Op& op, double scale);

  std::chrono::milliseconds timeout_;
  double scale_;
  std::unique_ptr<MpiCommunicator> comms_[kGroups];
  Buffers buffers_[kGroups];
};

}  // namespace wb::step
