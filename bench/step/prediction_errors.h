// suites/step-prediction-errors.csv: how far the step prediction missed measured steps, per strategy,
// calibration (the run's own, or another run's at 2 nodes) and node count. Written by
// bench/prediction/errors_table.py from a measured series; read by `wb-step --what-if`, which prints
// the band beside its predictions so a planner sees how far to trust them.
#pragma once

#include <string>
#include <vector>

namespace wb::step {

struct PredictionError {
  std::string strategy, calibration;  // calibration: "own" or "from 2 nodes"
  int nodes = 0, runs = 0;
  double min_pct = 0, median_pct = 0, max_pct = 0;
  std::string machine;
};

// Throws InputError naming the file and line (a missing column, a field that is not a number).
std::vector<PredictionError> read_prediction_errors(const std::string& path);

// "own calibration -3.7..-0.3% (2-4 nodes), -14.7..-11.2% (8); from 2 nodes -8.5..-7.8% (3), ..."; empty
// when the file has no row for the strategy.
std::string error_band(const std::vector<PredictionError>& errors, const std::string& strategy);

}  // namespace wb::step
