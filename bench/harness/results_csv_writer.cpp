#include "harness/results_csv_writer.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "harness/errors.h"

namespace wb {
namespace {

std::string schema_header() { return csv_line(kResultColumns); }

// First line of an existing, non-empty file; empty when the file is new or empty.
std::string first_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (in && std::getline(in, line)) line += '\n';
  return line;
}

}  // namespace

std::string csv_field(std::string_view text) {
  std::string field(text);
  for (char& c : field)
    if (c == '\n' || c == '\r') c = ' ';
  if (field.find_first_of(",\"") == std::string::npos) return field;
  std::string quoted = "\"";
  for (char c : field) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

ResultsCsvWriter::ResultsCsvWriter(std::string path) : path_(std::move(path)) {
  const std::string existing_header = first_line_of(path_);
  if (!existing_header.empty() && existing_header != schema_header())
    throw InputError(path_, 1, "header differs from the results schema; write to a new file");
  file_ = std::fopen(path_.c_str(), "a");
  if (file_ == nullptr) throw InputError(path_, 0, std::string("cannot open: ") + std::strerror(errno));
  if (existing_header.empty()) write_line(schema_header());
}

ResultsCsvWriter::~ResultsCsvWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

void ResultsCsvWriter::write(const ResultRow& row) {
  write_line(csv_line(to_fields(row)));
  written_.push_back(row);
}

void ResultsCsvWriter::write_line(const std::string& line) {
  // One fwrite per line and a flush, so the file only ever ends between rows unless the process
  // dies inside this call.
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
    throw InputError(path_, 0, std::string("write failed: ") + std::strerror(errno));
}

}  // namespace wb
