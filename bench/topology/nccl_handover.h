// `wirebench topo --nccl-log FILE` hands the NCCL log over to the Python diagnosis
// (python/wirebench/diagnosis, run as `python3 -m wirebench.diagnosis`), as `report` and `import`
// hand over to Python: the log's reader, the catalogue (suites/nccl-warnings.csv) and the rules live
// there, one copy. What comes back is topology.json's `nccl` section (docs/nccl-diagnosis.md).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace wb {

struct NcclDiagnosisRun {
  int exit_code = 0;                    // the Python command's: 3 where the log could not be read (it said why)
  std::optional<nlohmann::json> nccl;   // the `nccl` section, where it ran
};

// The diagnosis of `log`; `topology` (topology.json without its `nccl` section) gives the rules the
// node's wiring where it has a node. Python's stderr passes through to this process's.
NcclDiagnosisRun diagnose_nccl_log(const std::string& log, const nlohmann::json& topology);

// Whether a diagnosis says FAIL (the job cannot run as meant): topo's exit code 1.
bool nccl_log_fails(const nlohmann::json& nccl);

// The readable lines of a `nccl` section, under the node's table.
std::string nccl_table(const nlohmann::json& nccl);

}  // namespace wb
