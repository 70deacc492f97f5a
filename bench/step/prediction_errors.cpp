#include "step/prediction_errors.h"

#include <libfccp/csv.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>

#include "harness/csv_number.h"
#include "harness/errors.h"

namespace wb::step {

namespace {

std::string range(double low, double high) {
  char text[48];
  std::snprintf(text, sizeof text, "%+.1f..%+.1f%%", low, high);
  return text;
}

}  // namespace

std::vector<PredictionError> read_prediction_errors(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "cannot be read");
  // Comment lines first (what the figures are); the header follows them.
  long skipped = 0;
  std::streampos header = in.tellg();
  for (std::string line; std::getline(in, line) && line.rfind('#', 0) == 0; header = in.tellg()) ++skipped;
  in.clear();
  in.seekg(header);
  std::vector<PredictionError> rows;
  try {
    io::CSVReader<8, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>> csv(path, in);
    csv.read_header(io::ignore_extra_column, "strategy", "calibration", "nodes", "runs", "min_pct", "median_pct",
                    "max_pct", "machine");
    std::string strategy, calibration, nodes, runs, low, median, high, machine;
    while (csv.read_row(strategy, calibration, nodes, runs, low, median, high, machine)) {
      const long line = static_cast<long>(csv.get_file_line()) + skipped;
      if (calibration != "own" && calibration != "from 2 nodes")
        throw InputError(path, line, "column calibration: '" + calibration + "' is not own or from 2 nodes");
      rows.push_back({strategy, calibration, static_cast<int>(csv_number(nodes, "nodes", path, line)),
                      static_cast<int>(csv_number(runs, "runs", path, line)), csv_number(low, "min_pct", path, line),
                      csv_number(median, "median_pct", path, line), csv_number(high, "max_pct", path, line), machine});
    }
  } catch (const io::error::base& e) {
    throw InputError(path, 0, e.what());
  }
  return rows;
}

std::string error_band(const std::vector<PredictionError>& errors, const std::string& strategy) {
  std::map<std::string, std::vector<const PredictionError*>> by_calibration;
  for (const PredictionError& e : errors)
    if (e.strategy == strategy) by_calibration[e.calibration].push_back(&e);
  std::string text;
  for (const char* calibration : {"own", "from 2 nodes"}) {
    auto& rows = by_calibration[calibration];
    if (rows.empty()) continue;
    std::sort(rows.begin(), rows.end(), [](auto* a, auto* b) { return a->nodes < b->nodes; });
    text += std::string(text.empty() ? "" : "; ") + (std::string(calibration) == "own" ? "own calibration" : "from 2 nodes");
    for (const PredictionError* e : rows)
      text += " " + range(e->min_pct, e->max_pct) + " (" + std::to_string(e->nodes) + ")";
  }
  return text;
}

}  // namespace wb::step
