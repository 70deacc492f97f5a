// wirebench: the front door. Today: `wirebench topo`. Later: run, report, compare.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "cli/topo_command.h"
#include "harness/errors.h"

namespace {
constexpr const char* kUsage =
    "usage: wirebench COMMAND [options]\n"
    "commands:\n"
    "  topo    this node's wiring and every path's ceiling (wirebench topo --help)\n"
    "  report  verdicts for a run directory: report.md/.html, junit.xml, summary.json (wirebench report RUN_DIR)\n"
    "  compare the same measurements of several runs side by side; drops flagged (wirebench compare A B)\n"
    "  run     a suite from suites/: topology, benchmarks, report in one run directory (wirebench run [SUITE])\n";

// The reporter is Python (reports/wirebench_report); this front door hands over to it.
int run_python_reporter(const char* module, int argc, char** argv) {
  const char* dir = std::getenv("WB_REPORTS_DIR");
  const std::string reports = dir != nullptr && *dir != '\0' ? dir : WB_SOURCE_REPORTS_DIR;
  const char* old_path = std::getenv("PYTHONPATH");
  const std::string path = reports + ":" + WB_SOURCE_CI_DIR +
                           (old_path != nullptr && *old_path != '\0' ? ":" + std::string(old_path) : "");
  setenv("PYTHONPATH", path.c_str(), 1);
  // The runner starts the binaries that sit beside this one.
  char self[4096] = {};
  const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length > 0 && std::getenv("WB_BIN_DIR") == nullptr) {
    std::string bin(self, static_cast<std::size_t>(length));
    setenv("WB_BIN_DIR", bin.substr(0, bin.rfind('/')).c_str(), 1);
  }
  std::vector<char*> args = {const_cast<char*>("python3"), const_cast<char*>("-m"), const_cast<char*>(module)};
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  execvp("python3", args.data());
  std::fprintf(stderr, "error: cannot start python3 for the reporter (exit code %d)\n", wb::kExitInfrastructure);
  return wb::kExitInfrastructure;
}
}

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? wb::kExitUsage : wb::kExitOk;
  }
  const std::string command = argv[1];
  if (command == "report") return run_python_reporter("wirebench_report", argc, argv);
  if (command == "compare") return run_python_reporter("wirebench_report.compare", argc, argv);
  if (command == "run") return run_python_reporter("wirebench_run", argc, argv);
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
