// A CSV field that must be a number, read whole: "12.5" is, "12.5x" and "" are not. The readers
// of the project's CSV contracts (fits.csv, step_calibration.csv, step-prediction-errors.csv) share it.
#pragma once

#include <string>

#include "harness/errors.h"

namespace wb {

// Throws InputError(path, line, "column COLUMN: 'TEXT' is not a number").
inline double csv_number(const std::string& text, const char* column, const std::string& path, long line) {
  try {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  throw InputError(path, line, std::string("column ") + column + ": '" + text + "' is not a number");
}

}  // namespace wb
