// A small command-line reader shared by the binaries: `--name value` and `--name=value`, flags
// without a value, and pass-through of Google Benchmark's own `--benchmark_*` flags.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wb {

class CommandLine {
 public:
  CommandLine(int argc, char** argv);

  // The value of --name, removing it; throws UsageError when the value is missing.
  std::optional<std::string> take(std::string_view name);
  // The same for any of several spellings given whole ("-b", "--minbytes"); the last one wins.
  std::optional<std::string> take_any(std::initializer_list<std::string_view> flags);
  // Whether --name was given (without a value), removing it.
  bool take_flag(std::string_view name);
  // Throws UsageError naming the first argument nobody took (Google Benchmark's excepted).
  void expect_all_taken() const;
  // argv[0] followed by the --benchmark_* arguments, in their order.
  std::vector<std::string> benchmark_arguments() const;
  const std::vector<std::string>& original() const { return original_; }

 private:
  std::vector<std::string> original_;
  std::vector<std::string> remaining_;  // without argv[0]
};

// "a,b,,c" -> {a, b, c}: the comma lists options take.
std::vector<std::string> split_list(const std::string& text);

// Parses a number for option `name`; throws UsageError "--name: 'x' is not a number".
double parse_positive_seconds(std::string_view name, const std::string& text);

}  // namespace wb
