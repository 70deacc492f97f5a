#include "topology/nccl_handover.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "harness/errors.h"
#include "harness/install_layout.h"

namespace wb {
namespace {

// Single-quoted for the shell (' becomes '\''), so any file name passes through unchanged.
std::string shell_word(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The node's topology for the rules, in a file of its own that goes when the diagnosis is done.
struct TopologyFile {
  std::string path;
  explicit TopologyFile(const nlohmann::json& topology) {
    const char* tmp = std::getenv("TMPDIR");
    std::string name = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/wirebench-topology-XXXXXX";
    const int fd = mkstemp(name.data());
    if (fd < 0) throw std::runtime_error("cannot create a temporary file in " + name.substr(0, name.rfind('/')));
    close(fd);
    path = name;
    std::ofstream(path) << topology.dump();
  }
  ~TopologyFile() { std::remove(path.c_str()); }
};

}  // namespace

NcclDiagnosisRun diagnose_nccl_log(const std::string& log, const nlohmann::json& topology) {
  const TopologyFile file(topology);
  // The package installed beside the binaries first, as the front door's Python commands have it.
  std::string path = data_dir() + "/python";
  const char* old_path = std::getenv("PYTHONPATH");
  if (old_path != nullptr && *old_path != '\0') path.append(":").append(old_path);
  const std::string command = "PYTHONPATH=" + shell_word(path) + " python3 -m wirebench.diagnosis " + shell_word(log) +
                              " --topology " + shell_word(file.path) + " --hand-over";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot start python3 for the NCCL diagnosis");
  std::string text;
  char buffer[65536];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, n);
  const int status = pclose(pipe);
  NcclDiagnosisRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : kExitInfrastructure;
  if (run.exit_code != kExitOk) return run;  // Python said why on stderr (a directory, an empty log, ...)
  nlohmann::json handed;
  try {
    handed = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("the NCCL diagnosis (python3 -m wirebench.diagnosis) wrote no JSON: " +
                             std::string(e.what()));
  }
  if (!handed.is_object() || handed.value("format", "") != kHandOverFormat || !handed.contains("nccl") ||
      !handed["table"].is_string())
    throw std::runtime_error(std::string("the NCCL diagnosis (python3 -m wirebench.diagnosis) did not answer as '") +
                             kHandOverFormat + "': is the Python package beside this binary of another version?");
  run.nccl = handed["nccl"];
  run.table = handed["table"].get<std::string>();
  return run;
}

bool nccl_log_fails(const nlohmann::json& nccl) {
  for (const auto& d : nccl.value("diagnoses", nlohmann::json::array()))
    if (d.value("verdict", "") == "FAIL") return true;
  return false;
}

}  // namespace wb
