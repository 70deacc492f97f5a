#include "harness/result_row.h"

#include <charconv>
#include <stdexcept>

namespace wb {
namespace {

std::string number_text(double value) {
  if (std::isnan(value)) return {};
  char buffer[64];
  // 7 significant digits: finer than any timer or link this suite measures, and readable.
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general, 7);
  return ec == std::errc() ? std::string(buffer, end) : std::string();
}

}  // namespace

std::string_view to_string(RowStatus status) {
  switch (status) {
    case RowStatus::kOk: return "OK";
    case RowStatus::kSkip: return "SKIP";
    case RowStatus::kError: return "ERROR";
  }
  return "ERROR";
}

RowStatus parse_row_status(std::string_view text) {
  if (text == "OK" || text.empty()) return RowStatus::kOk;
  if (text == "SKIP") return RowStatus::kSkip;
  if (text == "ERROR") return RowStatus::kError;
  throw std::invalid_argument("unknown status '" + std::string(text) + "' (OK, SKIP or ERROR)");
}

// A column's text in a row. A switch without default: a column added to schema/results-columns.csv
// is a new ResultColumn, and this file does not compile until it says what the column holds.
namespace {
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch"
std::string field_text(const ResultRow& row, ResultColumn column) {
  switch (column) {
    case ResultColumn::kBench: return row.bench;
    case ResultColumn::kCase: return row.case_name;
    case ResultColumn::kBackend: return row.backend;
    case ResultColumn::kLinkClass: return row.link_class;
    case ResultColumn::kSrc: return row.src;
    case ResultColumn::kDst: return row.dst;
    case ResultColumn::kDirection: return row.direction;
    case ResultColumn::kOp: return row.op;
    case ResultColumn::kDtype: return row.dtype;
    case ResultColumn::kBytes: return std::to_string(row.bytes);
    case ResultColumn::kRanks: return std::to_string(row.ranks);
    case ResultColumn::kNodes: return std::to_string(row.nodes);
    case ResultColumn::kIters: return std::to_string(row.iters);
    case ResultColumn::kTimeUs: return number_text(row.time_us);
    case ResultColumn::kTimeUsP05: return number_text(row.time_us_p05);
    case ResultColumn::kTimeUsP95: return number_text(row.time_us_p95);
    case ResultColumn::kAlgbwGBps: return number_text(row.algbw_GBps);
    case ResultColumn::kBusbwGBps: return number_text(row.busbw_GBps);
    case ResultColumn::kErrors: return row.errors ? std::to_string(*row.errors) : std::string();
    case ResultColumn::kExtra: return row.extra;
    case ResultColumn::kStatus: return std::string(to_string(row.status));
    case ResultColumn::kReason: return row.reason;
    case ResultColumn::kSamples: return row.samples ? std::to_string(row.samples) : std::string();
    case ResultColumn::kSpreadPct: return number_text(row.spread_pct);
    case ResultColumn::kJudged: return row.judged;
    case ResultColumn::kRerun: return row.rerun;
  }
  return {};
}
#pragma GCC diagnostic pop
}  // namespace

std::array<std::string, kResultColumns.size()> to_fields(const ResultRow& row) {
  std::array<std::string, kResultColumns.size()> fields;
  for (std::size_t i = 0; i < fields.size(); ++i) fields[i] = field_text(row, static_cast<ResultColumn>(i));
  return fields;
}

double bandwidth_GBps(double bytes, double time_us) {
  if (!(time_us > 0.0)) return kNotMeasured;
  return bytes / (time_us * 1e-6) / 1e9;
}

}  // namespace wb
