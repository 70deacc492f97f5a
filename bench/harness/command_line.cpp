#include "harness/command_line.h"

#include <algorithm>
#include <charconv>

#include "harness/errors.h"

namespace wb {

CommandLine::CommandLine(int argc, char** argv) : original_(argv, argv + argc) {}

std::vector<std::string> CommandLine::arguments() const {
  if (original_.empty()) return {};
  return {original_.begin() + 1, original_.end()};
}

bool CommandLine::asks_for_help() const {
  for (std::size_t i = 1; i < original_.size() && original_[i] != "--"; ++i)
    if (original_[i] == "-h" || original_[i] == "--help") return true;
  return false;
}

std::vector<std::string> CommandLine::benchmark_arguments() const {
  std::vector<std::string> args{original_.empty() ? std::string("wirebench") : original_.front()};
  args.insert(args.end(), benchmark_.begin(), benchmark_.end());
  return args;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) items.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

double parse_positive_number(std::string_view flag, const std::string& text, std::string_view what) {
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || !(value > 0))
    throw UsageError(std::string(flag) + ": '" + text + "' is not " + std::string(what));
  return value;
}

double parse_positive_seconds(std::string_view name, const std::string& text) {
  return parse_positive_number("--" + std::string(name), text, "a positive number of seconds");
}

long parse_whole_number(const std::string& flag, const std::string& text, long lowest) {
  long value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < lowest)
    throw UsageError(flag + ": '" + text + "' is not a whole number >= " + std::to_string(lowest));
  return value;
}

bool parse_zero_or_one(const std::string& flag, const std::string& text) {
  if (text != "0" && text != "1") throw UsageError(flag + ": '" + text + "' is not 0 or 1");
  return text == "1";
}

}  // namespace wb
