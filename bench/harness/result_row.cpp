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

std::array<std::string, kResultColumns.size()> to_fields(const ResultRow& row) {
  return {row.bench,
          row.case_name,
          row.backend,
          row.link_class,
          row.src,
          row.dst,
          row.direction,
          row.op,
          row.dtype,
          std::to_string(row.bytes),
          std::to_string(row.ranks),
          std::to_string(row.nodes),
          std::to_string(row.iters),
          number_text(row.time_us),
          number_text(row.time_us_p05),
          number_text(row.time_us_p95),
          number_text(row.algbw_GBps),
          number_text(row.busbw_GBps),
          row.errors ? std::to_string(*row.errors) : std::string(),
          row.extra,
          std::string(to_string(row.status)),
          row.reason,
          row.samples ? std::to_string(row.samples) : std::string(),
          number_text(row.spread_pct),
          row.judged,
          row.rerun};
}

double bandwidth_GBps(double bytes, double time_us) {
  if (!(time_us > 0.0)) return kNotMeasured;
  return bytes / (time_us * 1e-6) / 1e9;
}

}  // namespace wb
