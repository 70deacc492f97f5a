#include "topology/ceilings.h"

#include <libfccp/csv.h>

#include <charconv>
#include <cstdlib>

#include "harness/errors.h"

namespace wb {
namespace {

std::optional<double> optional_number(const std::string& text, const char* column, const std::string& path, long line) {
  if (text.empty()) return std::nullopt;
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < 0)
    throw InputError(path, line, std::string("column ") + column + ": '" + text + "' is not a non-negative number");
  return value;
}

}  // namespace

CeilingsDb CeilingsDb::read(const std::string& path) {
  CeilingsDb db;
  db.path_ = path;
  try {
    io::CSVReader<7, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>> in(path);
    in.read_header(io::ignore_extra_column, "link_class", "generation", "unit", "rate_GBps_per_unit", "latency_us",
                   "healthy_fraction", "source");
    std::string link_class, generation, unit, rate, latency, fraction, source;
    while (in.read_row(link_class, generation, unit, rate, latency, fraction, source)) {
      const long line = static_cast<long>(in.get_file_line());
      CeilingEntry e{link_class, generation, unit,
                     optional_number(rate, "rate_GBps_per_unit", path, line),
                     optional_number(latency, "latency_us", path, line),
                     optional_number(fraction, "healthy_fraction", path, line), source, line};
      if (e.healthy_fraction && *e.healthy_fraction > 1.0)
        throw InputError(path, line, "column healthy_fraction: must be at most 1");
      if (e.source.empty()) throw InputError(path, line, "every ceiling needs its source");
      db.entries_.push_back(std::move(e));
    }
  } catch (const io::error::base& e) {
    throw InputError(path, 0, e.what());
  }
  return db;
}

const CeilingEntry* CeilingsDb::find(const std::string& link_class, const std::string& generation) const {
  for (const auto& e : entries_)
    if (e.link_class == link_class && e.generation == generation) return &e;
  return nullptr;
}

}  // namespace wb
