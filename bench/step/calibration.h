// Before the steps: a short size sweep of every collective the programs use, on the group it runs
// on, through the same executor the steps use (same threads, same MPI calls), fitted to
// t(S) = alpha + S beta, in both call contexts a step has (timeline.h): back to back, and alone
// after every rank met (a barrier). That is the cost model's measured input when no fits.csv is given.
#pragma once

#include <string>
#include <vector>

#include "comm/mpi_control.h"
#include "step/cost_model.h"
#include "step/step_executor.h"

namespace wb::step {

struct CalibrationPoint {
  CollOp op;
  Group group;
  int ranks;
  int element_bytes;
  CallContext context;
  std::vector<SweepPoint> points;
  AlphaBeta fit;
};

// Every rank calls it with the same programs. Returns the costs and what was measured.
CollectiveCosts calibrate(const std::vector<Program>& programs, StepExecutor& executor, MpiControl& control,
                          double scale, std::vector<CalibrationPoint>* measured = nullptr);

}  // namespace wb::step
