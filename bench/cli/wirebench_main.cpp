// wirebench: the front door. `topo`, `place` and `model` are C++; `run`, `report`, `compare`, `import`,
// `check` and `slurm` hand over to the Python runner, reporter and Slurm actions installed beside the
// binaries (harness/install_layout.h).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "cli/model_command.h"
#include "cli/place_command.h"
#include "cli/topo_command.h"
#include "harness/errors.h"
#include "harness/install_layout.h"
#include "harness/version.h"

namespace {
constexpr const char* kUsage =
    "usage: wirebench COMMAND [options]\n"
    "commands:\n"
    "  topo    this node's wiring and every path's ceiling (wirebench topo --help)\n"
    "  place   which GPUs of a node to give a job: CUDA_VISIBLE_DEVICES, gres.conf Links=, TP x DP layout\n"
    "  model   the cost model's algorithms against measured ones: fitted on one, the others predicted\n"
    "  report  verdicts for a run directory: report.md/.html, junit.xml, summary.json (wirebench report RUN_DIR)\n"
    "  compare the same measurements of several runs side by side; drops flagged (wirebench compare A B)\n"
    "  import  judge the outputs of nccl-tests, nvbandwidth, OSU, IMB, perftest like wirebench's own rows (wirebench import FILE...)\n"
    "  history the runs kept in one SQLite file: add, list, show an item's trend (wirebench history --history F list)\n"
    "  run     a suite from suites/: topology, benchmarks, report in one run directory (wirebench run [SUITE])\n"
    "  check   this node's quick health check for Slurm (HealthCheckProgram, prolog): ports, host, GPUs\n"
    "  slurm   drain the nodes a run blames, resume those healthy again (wirebench slurm drain|resume RUN_DIR)\n"
    "options:\n"
    "  --version  the version and the git revision this was built from\n";

// The reporter, the runner and Slurm's side are Python (the package python/wirebench); this front
// door hands over to them through `python3 -m wirebench COMMAND` (python/wirebench/__main__.py), which
// imports the command inside the one error wrapper: a Python without PyYAML or matplotlib ends in one
// line naming what to install (exit code 3), not a traceback.
int run_python_command(const char* command, int argc, char** argv) {
  const std::string data = wb::data_dir();
  const char* old_path = std::getenv("PYTHONPATH");
  std::string path = data + "/python";
  if (old_path != nullptr && *old_path != '\0') path.append(":").append(old_path);
  setenv("PYTHONPATH", path.c_str(), 1);
  // The runner starts the binaries that sit beside this one.
  if (std::getenv("WB_BIN_DIR") == nullptr) setenv("WB_BIN_DIR", wb::executable_dir().c_str(), 1);
  std::vector<char*> args = {const_cast<char*>("python3"), const_cast<char*>("-m"), const_cast<char*>("wirebench"),
                             const_cast<char*>(command)};
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  execvp("python3", args.data());
  std::fprintf(stderr, "error: cannot start python3 for the reporter (exit code %d)\n", wb::kExitInfrastructure);
  return wb::kExitInfrastructure;
}
}

int main(int argc, char** argv) {
  if (argc == 2 && wb::answer_version(argc, argv)) return wb::kExitOk;
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? wb::kExitUsage : wb::kExitOk;
  }
  const std::string command = argv[1];
  // The subcommand sees its own options as if it were the program.
  wb::CommandLine args(argc - 1, argv + 1);
  try {
    for (const char* python : {"report", "compare", "import", "history", "run", "check", "slurm"})
      if (command == python) return run_python_command(python, argc, argv);
    if (command == "topo") {
      if (args.asks_for_help()) {
        std::fputs(wb::topo_help().c_str(), stdout);
        return wb::kExitOk;
      }
      return wb::run_topo_command(args);
    }
    if (command == "place") {
      if (args.asks_for_help()) {
        std::fputs(wb::place_help().c_str(), stdout);
        return wb::kExitOk;
      }
      return wb::run_place_command(args);
    }
    if (command == "model") {
      if (args.asks_for_help()) {
        std::fputs(wb::model_help().c_str(), stdout);
        return wb::kExitOk;
      }
      return wb::run_model_command(args);
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
