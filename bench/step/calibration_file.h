// step_calibration.csv: the points wb-step's calibration measured, written beside the step rows and
// read back by `wb-step --calibration FILE` (a run on more nodes predicted from a smaller one's
// calibration). One writer, one reader; the first line names the format, which the reader checks.
#pragma once

#include <string>
#include <vector>

#include "step/calibration.h"

namespace wb::step {

// 3: a ranks_per_core column (how many ranks shared each core of the calibrating run's machines);
// 2: a context column (queued / isolated), read still (ranks_per_core 0: not recorded); 1 (before
// it) had no format line.
inline constexpr int kCalibrationFormat = 3;
inline constexpr int kOldestCalibrationFormatRead = 2;

void write_calibration_csv(const std::string& path, const std::vector<CalibrationPoint>& calibration);

// Throws InputError naming the file and line: another format, a missing column, a field that is
// not a number or not a known collective, group or context.
std::vector<CalibrationPoint> read_calibration_csv(const std::string& path);

}  // namespace wb::step
