// Appends result rows to results.csv, one complete line per row, flushed at once: a crash or a
// killed rank keeps every row finished before it.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "harness/result_row.h"

namespace wb {

class ResultsCsvWriter {
 public:
  // Creates the file with a header, or appends to an existing one whose header matches the schema
  // (throws InputError naming the file otherwise, so two schemas never mix in one file).
  explicit ResultsCsvWriter(std::string path);
  ~ResultsCsvWriter();
  ResultsCsvWriter(const ResultsCsvWriter&) = delete;
  ResultsCsvWriter& operator=(const ResultsCsvWriter&) = delete;

  void write(const ResultRow& row);
  const std::string& path() const { return path_; }
  // The rows this writer wrote, in order (what a binary derives from its own rows, such as
  // wb-coll's fits, is made from these, not by reading the file back).
  const std::vector<ResultRow>& written() const { return written_; }

 private:
  void write_line(const std::string& line);
  std::string path_;
  std::FILE* file_ = nullptr;
  std::vector<ResultRow> written_;
};

// One CSV line (with its newline) from field texts: fields holding a comma or quote are quoted,
// line breaks inside a field become spaces (a row is always exactly one line).
std::string csv_line(const auto& fields);
std::string csv_field(std::string_view text);

std::string csv_line(const auto& fields) {
  std::string line;
  bool first = true;
  for (const auto& field : fields) {
    if (!first) line += ',';
    line += csv_field(field);
    first = false;
  }
  line += '\n';
  return line;
}

}  // namespace wb
