// A binary's command line as given: the arguments the option parser reads (harness/option_parser.h),
// and afterwards the --benchmark_* ones it leaves to Google Benchmark.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wb {

class CommandLine {
 public:
  CommandLine(int argc, char** argv);

  const std::vector<std::string>& original() const { return original_; }
  // Everything after argv[0].
  std::vector<std::string> arguments() const;
  // -h or --help anywhere before "--".
  bool asks_for_help() const;
  // Set by the option parser: the arguments for Google Benchmark.
  void set_benchmark_arguments(std::vector<std::string> arguments) { benchmark_ = std::move(arguments); }
  // argv[0] followed by the --benchmark_* arguments, in their order.
  std::vector<std::string> benchmark_arguments() const;

 private:
  std::vector<std::string> original_;
  std::vector<std::string> benchmark_;
};

// "a,b,,c" -> {a, b, c}: the comma lists options take.
std::vector<std::string> split_list(const std::string& text);

// Parses a number for option `name`; throws UsageError "--name: 'x' is not a positive number of seconds".
double parse_positive_seconds(std::string_view name, const std::string& text);
// A number above 0 for option `flag`; throws UsageError "--rate: 'x' is not <what>".
double parse_positive_number(std::string_view flag, const std::string& text, std::string_view what);

// A whole number >= lowest for option `flag`; throws UsageError "-n: 'x' is not a whole number >= 1".
long parse_whole_number(const std::string& flag, const std::string& text, long lowest);

// 0 or 1 for option `flag`; throws UsageError "-z: '2' is not 0 or 1".
bool parse_zero_or_one(const std::string& flag, const std::string& text);

}  // namespace wb
