// Reads results.csv (built on fast-cpp-csv-parser). A damaged row does not stop the reading: it
// becomes a problem "file:line: what is wrong", and every complete row is still returned.
#pragma once

#include <string>
#include <vector>

#include "harness/result_row.h"

namespace wb {

struct ResultsFile {
  std::vector<ResultRow> rows;
  std::vector<long> row_lines;        // file line of each row, for messages downstream
  std::vector<std::string> problems;  // "results.csv:7: row has too few columns (cut short?)"
};

// Throws InputError when the file cannot be opened, is empty, or its header lacks a column of the
// minimum schema. Unknown extra columns are ignored.
ResultsFile read_results_csv(const std::string& path);

}  // namespace wb
