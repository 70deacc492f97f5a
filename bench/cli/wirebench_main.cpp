// wirebench: the front door. Today: `wirebench topo`. Later: run, report, compare.
#include <cstdio>
#include <exception>
#include <string>

#include "cli/topo_command.h"
#include "harness/errors.h"

namespace {
constexpr const char* kUsage =
    "usage: wirebench COMMAND [options]\n"
    "commands:\n"
    "  topo    this node's wiring and every path's ceiling (wirebench topo --help)\n";
}

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? wb::kExitUsage : wb::kExitOk;
  }
  const std::string command = argv[1];
  // The subcommand sees its own options as if it were the program.
  wb::CommandLine args(argc - 1, argv + 1);
  try {
    if (command == "topo") {
      if (args.take_flag("help")) {
        std::fputs(wb::kTopoUsage, stdout);
        return wb::kExitOk;
      }
      return wb::run_topo_command(args);
    }
    throw wb::UsageError("unknown command '" + command + "' (wirebench --help lists them)");
  } catch (const wb::UsageError& e) {
    std::fprintf(stderr, "error: %s (exit code %d)\n", e.what(), wb::kExitUsage);
    return wb::kExitUsage;
  } catch (const wb::InputError& e) {
    std::fprintf(stderr, "error: %s (exit code %d)\n", e.what(), wb::kExitUsage);
    return wb::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s (exit code %d)\n", e.what(), wb::kExitInfrastructure);
    return wb::kExitInfrastructure;
  }
}
