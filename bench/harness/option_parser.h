// Every binary's options, declared once (CLI11): the parser and --help come from the same
// declarations, so a flag cannot be accepted and undocumented, or documented and rejected.
//
//   OptionParser parser("wb-net", "usage: mpiexec -n N wb-net [options]");
//   parser.value("--sizes", "SPEC", "message sizes (default 0:4MiB)", [&](const std::string& v) { ... });
//   parser.parse(line);   // throws UsageError; --benchmark_* arguments are left to Google Benchmark
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/command_line.h"

namespace CLI {
class App;
}

namespace wb {

class OptionParser {
 public:
  OptionParser(std::string program, std::string synopsis, std::string footer = "");
  ~OptionParser();
  OptionParser(const OptionParser&) = delete;
  OptionParser& operator=(const OptionParser&) = delete;

  // An option with a value: `names` are its spellings ("-b,--minbytes"), `apply` gets the text once
  // the whole line is read (options in declaration order; the last of repeated ones wins) and
  // throws UsageError for a value it cannot use.
  OptionParser& value(const std::string& names, const std::string& metavar, const std::string& help,
                      std::function<void(const std::string&)> apply);
  // An option without a value.
  OptionParser& flag(const std::string& names, const std::string& help, std::function<void()> apply);
  // Options declared after this appear under `title` in --help.
  OptionParser& group(const std::string& title);

  // Reads the line's arguments. Unknown options are a UsageError with "did you mean" where a
  // declared one is close; --benchmark_* arguments nobody declared go to Google Benchmark.
  void parse(CommandLine& line);
  std::string help() const;

 private:
  std::vector<std::string> known_names() const;

  std::unique_ptr<CLI::App> app_;
  std::string group_ = "Options";
  std::vector<std::string> value_names_;  // spellings of the options that take a value
};

// The declared spelling closest to `unknown` ("--minbyte" -> "--minbytes"), or "" when none is
// close enough to suggest.
std::string closest_option(const std::string& unknown, const std::vector<std::string>& known);

}  // namespace wb
