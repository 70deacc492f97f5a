#include "harness/command_line.h"

#include <algorithm>
#include <charconv>

#include "harness/errors.h"

namespace wb {
namespace {
bool is_benchmark_argument(std::string_view arg) { return arg.starts_with("--benchmark_"); }
}  // namespace

CommandLine::CommandLine(int argc, char** argv) : original_(argv, argv + argc) {
  if (argc > 1) remaining_.assign(argv + 1, argv + argc);
}

std::optional<std::string> CommandLine::take(std::string_view name) { return take_any({"--" + std::string(name)}); }

std::optional<std::string> CommandLine::take_any(std::initializer_list<std::string_view> flags) {
  std::optional<std::string> value;
  for (std::string_view spelling : flags) {
    const std::string flag(spelling);
    for (std::size_t i = 0; i < remaining_.size();) {
      const std::string& arg = remaining_[i];
      if (arg == flag) {
        if (i + 1 >= remaining_.size() || (remaining_[i + 1].starts_with("--") && remaining_[i + 1].size() > 2))
          throw UsageError("option " + flag + " needs a value");
        value = remaining_[i + 1];
        remaining_.erase(remaining_.begin() + static_cast<long>(i), remaining_.begin() + static_cast<long>(i) + 2);
      } else if (arg.starts_with(flag + "=")) {
        value = arg.substr(flag.size() + 1);
        if (value->empty()) throw UsageError("option " + flag + " needs a value");
        remaining_.erase(remaining_.begin() + static_cast<long>(i));
      } else {
        ++i;
      }
    }
  }
  return value;
}

bool CommandLine::take_flag(std::string_view name) {
  const std::string flag = "--" + std::string(name);
  bool found = false;
  for (std::size_t i = 0; i < remaining_.size();) {
    if (remaining_[i] == flag) {
      found = true;
      remaining_.erase(remaining_.begin() + static_cast<long>(i));
    } else if (remaining_[i].starts_with(flag + "=")) {
      throw UsageError("option " + flag + " takes no value");
    } else {
      ++i;
    }
  }
  return found;
}

void CommandLine::expect_all_taken() const {
  for (const auto& arg : remaining_)
    if (!is_benchmark_argument(arg))
      throw UsageError(arg.starts_with("-") ? "unknown option " + arg : "unexpected argument '" + arg + "'");
}

std::vector<std::string> CommandLine::benchmark_arguments() const {
  std::vector<std::string> args{original_.empty() ? std::string("wirebench") : original_.front()};
  for (const auto& arg : remaining_)
    if (is_benchmark_argument(arg)) args.push_back(arg);
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

double parse_positive_seconds(std::string_view name, const std::string& text) {
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || !(value > 0))
    throw UsageError("--" + std::string(name) + ": '" + text + "' is not a positive number of seconds");
  return value;
}

}  // namespace wb
