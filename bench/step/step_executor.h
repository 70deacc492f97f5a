// What runs a step program on one rank: the MPI executor (host buffers, everywhere) or the NCCL
// executor (CUDA streams and events, one GPU per rank). The calibration and wb-step see only this.
#pragma once

#include <optional>
#include <string>

#include "step/program.h"
#include "step/timeline.h"

namespace wb::step {

class StepExecutor {
 public:
  virtual ~StepExecutor() = default;
  virtual std::string backend() const = 0;  // the `backend` column: mpi, nccl
  // The size of this rank's communicator for a group.
  virtual int group_size(Group g) const = 0;
  // Runs one step (this rank's part); times in microseconds from its start. `scale` replaces the
  // executor's own (calibration runs collectives of exactly the sizes it names: 1).
  virtual Timeline run(const Program& program, std::optional<double> scale = std::nullopt) = 0;
};

}  // namespace wb::step
