// Fuzz target: any bytes given to the NCCL log reader (and its diagnosis catalogue, with and
// without a topology) end in a result or an InputError, never a crash or another exception.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "harness/errors.h"
#include "topology/nccl_diagnosis.h"
#include "topology/nccl_log.h"

namespace {
const wb::TopoMatrix& topology() {
  static const wb::TopoMatrix matrix = wb::parse_nvidia_smi_topo(
      "\tGPU0\tGPU1\tNIC0\tCPU Affinity\n"
      "GPU0\t X \tNV4\tPIX\t0-7\n"
      "GPU1\tNV4\t X \tSYS\t0-7\n"
      "NIC0\tPIX\tSYS\t X \n"
      "\nNIC Legend:\n\n  NIC0: mlx5_0\n",
      "fuzz topology");
  return matrix;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const wb::NcclLog log = wb::parse_nccl_log(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
    wb::diagnose_nccl_log(log, nullptr);
    wb::diagnose_nccl_log(log, &topology());
  } catch (const wb::InputError&) {
    // bad input, said clearly: expected
  }
  return 0;
}
