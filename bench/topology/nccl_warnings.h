// The catalogue of NCCL's WARN lines whose cause a maintainer or the thread established
// (suites/nccl-warnings.csv, compiled in): each entry's signature, what it means, why, the fix and
// the thread it comes from. nccl_diagnosis.cpp adds an entry's finding where a log line matches.
#pragma once

#include <regex>
#include <string>
#include <vector>

namespace wb {

struct NcclWarningEntry {
  std::string id, verdict;  // FAIL or WARN
  std::regex signature;     // searched in "LOCATION TEXT" of each NCCL line (the location where NCCL printed one)
  std::string what, why, fix, source;
  long line = 0;            // in suites/nccl-warnings.csv
};

// The catalogue, parsed once. A malformed entry (a bad regex, a verdict other than FAIL or WARN, no
// source) is a programming error: std::logic_error naming its line.
const std::vector<NcclWarningEntry>& nccl_warning_catalogue();

// `what` with {1}, {2}, ... replaced by the signature's groups.
std::string expand_groups(const std::string& what, const std::smatch& found);

}  // namespace wb
