// Fuzz target: any bytes given to the nvidia-smi topo reader end in a matrix or an InputError,
// never a crash, a hang or another exception. Built with libFuzzer (clang, ci/fuzz) and, without
// it, as a replay of the kept corpus in ctest.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "harness/errors.h"
#include "topology/nvidia_smi_topo.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const wb::TopoMatrix m =
        wb::parse_nvidia_smi_topo(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
    // What parsed must be whole: a square matrix over the devices.
    if (m.cells.size() != m.devices.size()) __builtin_trap();
    for (const auto& row : m.cells)
      if (row.size() != m.devices.size()) __builtin_trap();
  } catch (const wb::InputError&) {
    // bad input, said clearly: expected
  }
  return 0;
}
