// Built without CUDA: no GPU can be used, and the reason says so.
#include "gpu/gpu_runtime_info.h"

namespace wb {

std::map<std::string, std::string> gpu_library_versions() {
  return {{"cuda", "not built with CUDA"}, {"nccl", "not built with NCCL"}};
}

GpuAvailability gpu_availability() { return {0, std::string("this binary was built without CUDA")}; }

}  // namespace wb
