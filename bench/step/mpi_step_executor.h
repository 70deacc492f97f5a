// Runs a step program on MPI host buffers: a thread per stream (compute, and one per group's
// communicator) takes the operations the host issues, in order, and starts each when everything
// it waits for has ended. Compute is a sleep of the scaled duration (it stands for device time
// and leaves the CPU to communication); a collective is MPI's non-blocking call, driven to
// completion by its stream's thread. Every wait has the communicator's deadline: a peer that
// never arrives ends the step with a TimeoutError naming the operation.
#pragma once

#include <mpi.h>

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "comm/mpi_communicator.h"
#include "step/program.h"
#include "step/timeline.h"

namespace wb::step {

class MpiStepExecutor {
 public:
  // `shard_group`: ranks per HYBRID_SHARD shard group (consecutive world ranks).
  MpiStepExecutor(MPI_Comm world, int shard_group, std::chrono::milliseconds timeout, double scale);
  ~MpiStepExecutor();

  // The group sizes this executor's communicators have, for checking a program against them.
  int group_size(Group g) const;

  // Runs one step of `program` (this rank's part) and returns when each operation ran, in
  // microseconds from the start. Needs MPI_THREAD_MULTIPLE. `scale` replaces the executor's own
  // (calibration runs collectives of exactly the sizes it names: 1).
  Timeline run(const Program& program, std::optional<double> scale = std::nullopt);

 private:
  struct Buffers {
    std::vector<std::byte> send, recv;
  };
  void execute_collective(const Program& program, const Op& op, double scale);

  std::chrono::milliseconds timeout_;
  double scale_;
  std::unique_ptr<MpiCommunicator> comms_[kGroups];
  Buffers buffers_[kGroups];
};

}  // namespace wb::step
