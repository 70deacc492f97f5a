// Before the steps: a short size sweep of every collective the programs use, on the group it runs
// on, through the same executor the steps use (same threads, same MPI calls), fitted to
// t(S) = alpha + S beta, in both call contexts a step has (timeline.h): back to back, and alone
// after every rank met (a barrier). That is the cost model's measured input when no fits.csv is given.
#pragma once

#include <functional>
#include <optional>
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

// Every rank calls it with the same programs. Returns the costs and what was measured. With `mpich`
// (the MPI executor: the library is MPICH), the sweep also takes the sizes on both sides of each
// size where MPICH switches algorithms inside its range.
CollectiveCosts calibrate(const std::vector<Program>& programs, StepExecutor& executor, MpiControl& control,
                          double scale, bool mpich, std::vector<CalibrationPoint>* measured = nullptr);

// The points of one sweep (sorted by size) that something else slowed while they ran: a point
// slower than its smaller neighbour of the same algorithm by more than kDisturbed times their size
// ratio (plus kDisturbedSlackUs), or slower than its larger neighbour by more than kDisturbed.
// `algorithm_at(bytes)` names what the library runs at a size; a switch between two points is
// never judged. Indices into `points`.
inline constexpr double kDisturbed = 1.5;
inline constexpr double kDisturbedSlackUs = 200;
std::vector<std::size_t> disturbed_points(const std::vector<SweepPoint>& points,
                                          const std::function<std::string(double)>& algorithm_at);

// The costs a calibration gives: each sweep and its fit at the group size it was measured on, and
// each collective's link (link_from_calibration) for the group sizes it was not.
CollectiveCosts costs_from_calibration(const std::vector<CalibrationPoint>& calibration, bool mpich);

// The link (alpha, beta) that makes the formula of the algorithm run at each point (MPICH's choice
// with `mpich`, else ring) best match the points: least squares on the relative error, alpha >= 0.
// nullopt with fewer than two points of different sizes.
std::optional<LinkCost> link_from_calibration(const CalibrationPoint& c, bool mpich);

}  // namespace wb::step
