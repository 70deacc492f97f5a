// wb-coll's closing work on rank 0, from the rows it wrote this run (MultiRankBenchmarks::written_rows):
// per swept collective the peak busbw, the size reaching 80% of it and the small-message latency,
// printed, and its alpha-beta fit appended to fits.csv beside results.csv (fits_file.h: its columns
// and reader).
#pragma once

#include <string>
#include <vector>

#include "harness/result_row.h"

namespace wb {

// `print`: the plain console's summary table (nccl-tests' console prints its own).
void report_sweeps(const std::vector<ResultRow>& rows, const std::string& run_dir, bool print);

}  // namespace wb
