// Before the steps: a short size sweep of every collective the programs use, on the group it runs
// on, through the same executor the steps use (same threads, same MPI calls), fitted to
// t(S) = alpha + S beta, in both call contexts a step has (timeline.h): back to back, and alone
// after every rank met (a barrier). That is the cost model's measured input when no fits.csv is given.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
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
  double ranks_per_core = 0;  // of the run that measured it (core_sharing.h); 0: not recorded (format 2)
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

// A calibration sweeps each collective from its smallest call, or a kSweepSpan-th of its largest
// where that is smaller, to its largest: the sizes the fit describes.
inline constexpr double kSweepSpan = 64;

// The sizes a calibration for these programs would sweep (bytes at `scale`) of each collective and
// element size, over every group it runs on: from the smallest call, or a kSweepSpan-th of the
// largest, to the largest.
using CallSizes = std::map<std::pair<CollOp, int>, std::pair<std::uint64_t, std::uint64_t>>;
CallSizes call_sizes(const std::vector<Program>& programs, double scale);

// The costs a calibration gives: each sweep and its fit at the group size it was measured on, and
// each collective's link (link_from_calibration) for the group sizes it was not. With `needed` (a
// calibration from another run), each link is fitted on the points within a factor kLinkWindow of
// the sizes this run's own calibration would sweep (all of them, for a file made at the same scale): a sweep made for a larger model reaches sizes where the host's caches no
// longer hold the buffers (shared memory: 34.6 MB took 3.6x the time of 19.1 MB), and a line through
// those would cost the small calls of this run as slowly. Each collective whose calls lie outside the
// calibrated sizes gets a line in `notes`.
inline constexpr double kLinkWindow = 2;
CollectiveCosts costs_from_calibration(const std::vector<CalibrationPoint>& calibration, bool mpich,
                                       const CallSizes* needed = nullptr, std::vector<std::string>* notes = nullptr);

// The link (alpha, beta) that makes the formula of the algorithm run at each point (MPICH's choice
// with `mpich`, else ring) best match the points: least squares on the relative error, alpha >= 0.
// nullopt with fewer than two points of different sizes.
std::optional<LinkCost> link_from_calibration(const CalibrationPoint& c, bool mpich);

}  // namespace wb::step
