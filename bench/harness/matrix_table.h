// A square or rectangular table of numbers with row and column labels, printed the way
// nvbandwidth prints its matrices (rows: source, columns: destination); "N/A" where empty.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace wb {

struct MatrixTable {
  std::string title;                  // "memcpy bandwidth (GB/s)"
  std::string row_axis, column_axis;  // "source", "destination"
  std::vector<std::string> rows, columns;
  std::vector<std::vector<std::optional<double>>> values;  // [row][column]
};

// Fixed decimals, right-aligned columns wide enough for every label and value.
std::string format_matrix(const MatrixTable& table, int decimals = 2);

}  // namespace wb
