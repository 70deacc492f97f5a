// What an NCCL_DEBUG=INFO log says is wrong, as NCCL's maintainers and documentation read it: each
// entry of docs/nccl-diagnosis.md is a signature in the log, a verdict (FAIL: the job cannot run as
// meant; WARN: it runs slower than the wiring allows), why, the fix, and the source of that reading.
#pragma once

#include <string>
#include <vector>

#include "topology/nccl_log.h"

namespace wb {

struct NcclDiagnosis {
  std::string id;       // the catalogue's entry: socket-fallback, mixed-link-layers, ib-completion-error, ...
  std::string verdict;  // FAIL or WARN
  long line = 0;        // where in the log
  std::string what, why, fix, source;
};

// Every entry whose signature the log holds, once each (the first line that shows it). `topology`
// (a saved nvidia-smi topo -m; may be null): the node's NICs and GPU pairs, which some entries need
// (P2P where SHM went, GPUDirect RDMA beside the GPU, NVLS on an NVSwitch, the NICs NCCL left out).
// Entries about NCCL's network are left out where the log proves the network unused
// (network_unused).
std::vector<NcclDiagnosis> diagnose_nccl_log(const NcclLog& log, const TopoMatrix* topology);

// Whether the log proves that the job's data never crossed the network: NCCL's `nNodes 1`, or one
// host whose every channel line is P2P or SHM.
bool network_unused(const NcclLog& log);

}  // namespace wb
