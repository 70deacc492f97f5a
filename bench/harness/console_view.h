// What rank 0 prints while a run goes: a header, one line per measurement made from the very row
// results.csv gets (so the console's time is the median results.csv holds), and a closing summary.
// Google Benchmark's own table stays behind --console gbench.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "harness/result_row.h"
#include "harness/run_metadata.h"

namespace wb {

class ConsoleView {
 public:
  virtual ~ConsoleView() = default;
  virtual void begin(const RunMetadata& meta) = 0;
  virtual void row(const ResultRow& row) = 0;  // measured, skipped or failed
  virtual void end() = 0;
};

// One line per row: what, between which endpoints, size, median and p05..p95 time, algbw, busbw,
// samples, spread and wrong elements, plain numbers (4 significant digits, decimal GB/s).
// `notes` are printed under the header (e.g. what decimal size units came to).
std::unique_ptr<ConsoleView> make_plain_console(std::FILE* out, std::string notes = "");

// 4 significant digits in fixed notation (whole numbers from 1000 up), never SI prefixes or
// exponents; "-" for a figure that was not measured.
std::string plain_number(double value);

// The first lines every console prints: the program, ranks and nodes, the libraries, the timing rule.
std::string run_header(const RunMetadata& meta, const std::string& timing_rule);

}  // namespace wb
