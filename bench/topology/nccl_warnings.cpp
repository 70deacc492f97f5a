#include "topology/nccl_warnings.h"

#include <libfccp/csv.h>

#include <sstream>
#include <stdexcept>

namespace wb {

extern const char* const kNcclWarningsCsv;  // generated from suites/nccl-warnings.csv (bench/CMakeLists.txt)

const std::vector<NcclWarningEntry>& nccl_warning_catalogue() {
  static const std::vector<NcclWarningEntry> entries = [] {
    // the file's comment lines go; the CSV reader counts lines from the header
    std::istringstream all(kNcclWarningsCsv);
    std::string text, row;
    long comments = 0;
    while (std::getline(all, row)) {
      if (!row.empty() && row.front() == '#') {
        ++comments;
        continue;
      }
      text += row + '\n';
    }
    std::istringstream in(text);
    io::CSVReader<7, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>> csv("suites/nccl-warnings.csv", in);
    csv.read_header(io::ignore_no_column, "id", "verdict", "signature", "what", "why", "fix", "source");
    std::vector<NcclWarningEntry> out;
    std::string id, verdict, signature, what, why, fix, source;
    while (csv.read_row(id, verdict, signature, what, why, fix, source)) {
      const long line = static_cast<long>(csv.get_file_line()) + comments;
      const std::string where = "suites/nccl-warnings.csv:" + std::to_string(line) + ": ";
      if (verdict != "FAIL" && verdict != "WARN") throw std::logic_error(where + "verdict must be FAIL or WARN");
      if (source.empty()) throw std::logic_error(where + "every entry needs its source thread");
      try {
        out.push_back({id, verdict, std::regex(signature), what, why, fix, source, line});
      } catch (const std::regex_error& e) {
        throw std::logic_error(where + "signature is not a regular expression: " + e.what());
      }
    }
    return out;
  }();
  return entries;
}

std::string expand_groups(const std::string& what, const std::smatch& found) {
  std::string out = what;
  for (std::size_t g = found.size(); g-- > 1;) {
    const std::string mark = "{" + std::to_string(g) + "}";
    for (auto at = out.find(mark); at != std::string::npos; at = out.find(mark, at)) {
      out.replace(at, mark.size(), found[g].str());
      at += found[g].length();
    }
  }
  return out;
}

}  // namespace wb
