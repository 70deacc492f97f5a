// What the GPU libraries say about this machine, with one answer whether or not the binary was
// built with CUDA (two implementations; CMake picks one).
#pragma once

#include <map>
#include <optional>
#include <string>

namespace wb {

// Versions of the CUDA runtime and driver and of NCCL, as far as they are known.
std::map<std::string, std::string> gpu_library_versions();

// The number of visible GPUs, or the reason there are none to use ("built without CUDA",
// "no CUDA device visible: <CUDA's message>"). nullopt reason means GPUs are usable.
struct GpuAvailability {
  int count = 0;
  std::optional<std::string> unavailable_reason;
};
GpuAvailability gpu_availability();

}  // namespace wb
