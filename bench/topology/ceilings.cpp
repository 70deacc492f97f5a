#include "topology/ceilings.h"

#include <libfccp/csv.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <sstream>

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

// Lower case, '-' and '_' as spaces: GPU names as nvidia-smi, CUDA and users spell them.
std::string plain(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) {
    return c == '-' || c == '_' ? ' ' : static_cast<char>(std::tolower(c));
  });
  return text;
}

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

}  // namespace

CeilingsDb CeilingsDb::read(const std::string& path) {
  CeilingsDb db;
  db.path_ = path;
  try {
    io::CSVReader<10, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>> in(path);
    // The PCIe overhead columns are optional: a database of line rates alone still reads.
    in.read_header(io::ignore_extra_column | io::ignore_missing_column, "link_class", "generation", "unit",
                   "rate_GBps_per_unit", "latency_us", "healthy_fraction", "source", "tlp_overhead_bytes",
                   "dllp_bytes_per_tlp", "max_payload_bytes");
    for (const char* required : {"link_class", "generation", "unit", "rate_GBps_per_unit", "latency_us",
                                 "healthy_fraction", "source"})
      if (!in.has_column(required)) throw InputError(path, 1, std::string("no column ") + required);
    std::string link_class, generation, unit, rate, latency, fraction, source, tlp, dllp, payload;
    while (in.read_row(link_class, generation, unit, rate, latency, fraction, source, tlp, dllp, payload)) {
      const long line = static_cast<long>(in.get_file_line());
      CeilingEntry e{link_class, generation, unit,
                     optional_number(rate, "rate_GBps_per_unit", path, line),
                     optional_number(latency, "latency_us", path, line),
                     optional_number(fraction, "healthy_fraction", path, line), source, line,
                     optional_number(tlp, "tlp_overhead_bytes", path, line),
                     optional_number(dllp, "dllp_bytes_per_tlp", path, line),
                     optional_number(payload, "max_payload_bytes", path, line)};
      if (e.healthy_fraction && *e.healthy_fraction > 1.0)
        throw InputError(path, line, "column healthy_fraction: must be at most 1");
      if (e.max_payload_bytes && *e.max_payload_bytes <= 0)
        throw InputError(path, line, "column max_payload_bytes: must be above 0");
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

double pcie_payload_share(const CeilingEntry& pcie, double payload) {
  const double overhead = pcie.tlp_overhead_bytes.value_or(0) + pcie.dllp_bytes_per_tlp.value_or(0);
  return payload / (payload + overhead);
}

GpuMemoryDb GpuMemoryDb::read(const std::string& path) {
  GpuMemoryDb db;
  db.path_ = path;
  try {
    io::CSVReader<5, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>> in(path);
    in.read_header(io::ignore_extra_column, "model", "names", "memory_GBps", "host_link", "source");
    std::string model, names, memory, host_link, source;
    while (in.read_row(model, names, memory, host_link, source)) {
      const long line = static_cast<long>(in.get_file_line());
      const auto bandwidth = optional_number(memory, "memory_GBps", path, line);
      if (!bandwidth || *bandwidth <= 0) throw InputError(path, line, "column memory_GBps: every model needs its bandwidth");
      if (source.empty()) throw InputError(path, line, "every model needs its source");
      GpuMemoryEntry e{model, {}, *bandwidth, host_link, source, line};
      std::string alternative;
      for (std::istringstream alternatives(names); std::getline(alternatives, alternative, '|');)
        if (!words(plain(alternative)).empty()) e.names.push_back(plain(alternative));
      if (e.names.empty()) throw InputError(path, line, "column names: no name to match a GPU by");
      db.entries_.push_back(std::move(e));
    }
  } catch (const io::error::base& e) {
    throw InputError(path, 0, e.what());
  }
  return db;
}

const GpuMemoryEntry* GpuMemoryDb::find(const std::string& gpu_name) const {
  const std::string name = plain(gpu_name);
  for (const auto& e : entries_)
    for (const auto& alternative : e.names) {
      const auto needed = words(alternative);
      if (std::all_of(needed.begin(), needed.end(), [&name](const std::string& w) { return name.find(w) != std::string::npos; }))
        return &e;
    }
  return nullptr;
}

}  // namespace wb
