// `wirebench topo --nccl-log FILE` hands the NCCL log over to the Python diagnosis
// (python/wirebench/diagnosis, run as `python3 -m wirebench.diagnosis`), as `report` and `import`
// hand over to Python: the log's reader, the catalogue (suites/nccl-warnings.csv) and the rules live
// there, one copy. What comes back (`--hand-over`, kHandOverFormat) is topology.json's `nccl` section
// (docs/nccl-diagnosis.md) and its readable lines, which Python prints for both front doors.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace wb {

// The first line of what `python3 -m wirebench.diagnosis --hand-over` writes: the one reader checks it
// (python/wirebench/diagnosis/__main__.py, HAND_OVER_FORMAT, is the one writer).
inline constexpr const char* kHandOverFormat = "wirebench nccl hand-over 1";

struct NcclDiagnosisRun {
  int exit_code = 0;                    // the Python command's: 3 where the log could not be read (it said why)
  std::optional<nlohmann::json> nccl;   // the `nccl` section, where it ran
  std::string table;                    // its readable lines, under the node's table (Python's output.table)
};

// The diagnosis of `log`; `topology` (topology.json without its `nccl` section) gives the rules the
// node's wiring where it has a node. Python's stderr passes through to this process's.
NcclDiagnosisRun diagnose_nccl_log(const std::string& log, const nlohmann::json& topology);

// Whether a diagnosis says FAIL (the job cannot run as meant): topo's exit code 1.
bool nccl_log_fails(const nlohmann::json& nccl);

}  // namespace wb
