#include "harness/results_csv_reader.h"

#include <libfccp/csv.h>

#include <charconv>
#include <fstream>
#include <stdexcept>

#include "harness/errors.h"

namespace wb {
namespace {

using CsvReader = io::CSVReader<kResultColumns.size(), io::trim_chars<' ', '\t'>,
                                io::double_quote_escape<',', '"'>>;

template <typename T>
T parse_number(const std::string& text, std::string_view column) {
  T value{};
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end)
    throw std::invalid_argument("column " + std::string(column) + ": '" + text +
                                "' is not a valid number");
  return value;
}

double parse_optional_double(const std::string& text, std::string_view column) {
  return text.empty() ? kNotMeasured : parse_number<double>(text, column);
}

// The writer ends every row with a line break; a file that does not end with one was cut.
bool ends_mid_line(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in || in.tellg() <= 0) return false;
  in.seekg(-1, std::ios::end);
  return in.get() != '\n';
}

void read_header(CsvReader& reader, const std::string& path) {
  try {
    std::apply([&](auto... names) {
      reader.read_header(io::ignore_extra_column | io::ignore_missing_column, std::string(names)...);
    }, kResultColumns);
  } catch (const io::error::header_missing&) {
    throw InputError(path, 1, "file is empty: no header line");
  } catch (const io::error::base& e) {
    throw InputError(path, 1, std::string("bad header: ") + e.what());
  }
  // The columns a later schema added (status, reason; samples, spread_pct; judged, rerun) may be absent.
  for (std::size_t i = 0; i < kResultColumns.size(); ++i)
    if (kResultColumnRequired[i] && !reader.has_column(std::string(kResultColumns[i])))
      throw InputError(path, 1, "header lacks column '" + std::string(kResultColumns[i]) + "'");
}

// A column's text into a row. A switch without default, as the writer's (result_row.cpp): a new
// column does not compile until it is read.
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch"
void set_field(ResultRow& row, ResultColumn column, const std::string& text) {
  const std::string_view name = kResultColumns[static_cast<std::size_t>(column)];
  switch (column) {
    case ResultColumn::kBench: row.bench = text; return;
    case ResultColumn::kCase: row.case_name = text; return;
    case ResultColumn::kBackend: row.backend = text; return;
    case ResultColumn::kLinkClass: row.link_class = text; return;
    case ResultColumn::kSrc: row.src = text; return;
    case ResultColumn::kDst: row.dst = text; return;
    case ResultColumn::kDirection: row.direction = text; return;
    case ResultColumn::kOp: row.op = text; return;
    case ResultColumn::kDtype: row.dtype = text; return;
    case ResultColumn::kBytes: row.bytes = parse_number<std::uint64_t>(text, name); return;
    case ResultColumn::kRanks: row.ranks = parse_number<int>(text, name); return;
    case ResultColumn::kNodes: row.nodes = parse_number<int>(text, name); return;
    case ResultColumn::kIters: row.iters = parse_number<std::uint64_t>(text, name); return;
    case ResultColumn::kTimeUs: row.time_us = parse_optional_double(text, name); return;
    case ResultColumn::kTimeUsP05: row.time_us_p05 = parse_optional_double(text, name); return;
    case ResultColumn::kTimeUsP95: row.time_us_p95 = parse_optional_double(text, name); return;
    case ResultColumn::kAlgbwGBps: row.algbw_GBps = parse_optional_double(text, name); return;
    case ResultColumn::kBusbwGBps: row.busbw_GBps = parse_optional_double(text, name); return;
    case ResultColumn::kErrors:
      row.errors = text.empty() ? std::nullopt : std::optional(parse_number<std::uint64_t>(text, name));
      return;
    case ResultColumn::kExtra: row.extra = text; return;
    case ResultColumn::kStatus: row.status = parse_row_status(text); return;
    case ResultColumn::kReason: row.reason = text; return;
    case ResultColumn::kSamples: row.samples = text.empty() ? 0 : parse_number<std::uint64_t>(text, name); return;
    case ResultColumn::kSpreadPct: row.spread_pct = parse_optional_double(text, name); return;
    case ResultColumn::kJudged: row.judged = text; return;
    case ResultColumn::kRerun: row.rerun = text; return;
  }
}
#pragma GCC diagnostic pop

ResultRow row_from_fields(const std::array<std::string, kResultColumns.size()>& f) {
  ResultRow row;
  for (std::size_t i = 0; i < f.size(); ++i) set_field(row, static_cast<ResultColumn>(i), f[i]);
  return row;
}

std::string describe(const io::error::base& e) {
  if (dynamic_cast<const io::error::too_few_columns*>(&e)) return "row has too few columns";
  if (dynamic_cast<const io::error::too_many_columns*>(&e)) return "row has too many columns";
  if (dynamic_cast<const io::error::escaped_string_not_closed*>(&e))
    return "quoted field is not closed";
  return e.what();
}

}  // namespace

ResultsFile read_results_csv(const std::string& path) {
  if (!std::ifstream(path)) throw InputError(path, 0, "cannot open file");
  const bool cut = ends_mid_line(path);
  std::unique_ptr<CsvReader> reader;
  try {
    reader = std::make_unique<CsvReader>(path);
  } catch (const io::error::base& e) {
    throw InputError(path, 0, e.what());
  }
  read_header(*reader, path);

  ResultsFile result;
  long last_problem_line = 0;
  std::array<std::string, kResultColumns.size()> fields;
  while (true) {
    std::string problem;
    bool more = true;
    try {
      more = std::apply([&](auto&... f) { return reader->read_row(f...); }, fields);
      if (!more) break;
      result.rows.push_back(row_from_fields(fields));
      result.row_lines.push_back(static_cast<long>(reader->get_file_line()));
      fields = {};
      continue;
    } catch (const io::error::base& e) {
      problem = describe(e);
    } catch (const std::invalid_argument& e) {
      problem = e.what();
    }
    fields = {};
    last_problem_line = static_cast<long>(reader->get_file_line());
    result.problems.push_back(InputError(path, last_problem_line, problem + "; row skipped").what());
  }
  if (cut) {
    // The last line has no line break: the writer was stopped mid-row. Whatever it parsed to,
    // it is not a complete row.
    const long last_line = static_cast<long>(reader->get_file_line());
    if (!result.rows.empty() && result.row_lines.back() == last_line) {
      result.rows.pop_back();
      result.row_lines.pop_back();
    } else if (!result.problems.empty() && last_problem_line == last_line) {
      result.problems.pop_back();  // said better below
    }
    result.problems.push_back(
        InputError(path, last_line, "row is cut short (the file ends mid-line); row skipped").what());
  }
  return result;
}

}  // namespace wb
