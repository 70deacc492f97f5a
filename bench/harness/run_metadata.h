// meta.json of a run directory: what ran, where, with which libraries and which environment, so a
// result can be reproduced and two runs compared. Several binaries may write into one run
// directory; each adds its command line and hosts to the same file.
#pragma once

#include <map>
#include <string>

#include "harness/extra_items.h"
#include <vector>

namespace wb {

// Why this machine is a virtual machine, from /proc/cpuinfo (or `cpuinfo_path`): the `hypervisor`
// CPU flag every hypervisor sets (CPUID leaf 1, ECX bit 31: KVM, Hyper-V, VMware, Xen HVM, AWS Nitro).
// "" where the flag is absent or the file unreadable.
std::string virtual_machine_evidence(const std::string& cpuinfo_path = "/proc/cpuinfo");

struct RunMetadata {
  std::vector<std::string> hosts;                   // one per node, in rank order of first rank
  int ranks = 1;
  std::vector<std::string> command_line;            // argv as given
  std::map<std::string, std::string> versions;      // mpi, cuda_runtime, cuda_driver, nccl, ...
  std::map<std::string, std::string> environment;   // NCCL_*, UCX_*, MPIR_*, ...
  std::string version;                              // the project's version (harness/version.h)
  std::string revision;                             // the git revision it was built from
  // Why the node that wrote the file is a virtual machine ("" on bare metal): a VM's vCPU scheduling,
  // not its wiring, sets its shared-memory latency, so the reporter holds no bare-metal typical to it.
  std::string virtual_machine = virtual_machine_evidence();
};

// Variables whose names start with one of the recorded prefixes (NCCL_, UCX_, MPIR_, ...).
std::map<std::string, std::string> recorded_environment(const char* const* envp);
bool is_recorded_variable(std::string_view name);

// The settings that change which path or algorithm a collective takes (NCCL_ALGO, NCCL_PROTO,
// NCCL_P2P_DISABLE, NCCL_SHM_DISABLE, NCCL_NET_GDR_LEVEL, NCCL_IB_DISABLE, MPICH's
// MPIR_CVAR_*_ALGORITHM), as NAME=value items for a row's `extra`: the row says which wiring it
// measured. Empty when none is set.
ExtraItems path_settings_extra(const char* const* envp);

// Writes (or merges into) `path`: hosts are united, the command is appended to "commands",
// versions and environment are replaced by the newest. Throws InputError if an existing file is
// not valid JSON, naming the file and line.
void write_run_metadata(const std::string& path, const RunMetadata& meta);

}  // namespace wb
