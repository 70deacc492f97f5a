#include <cuda_runtime.h>
#include <nccl.h>

#include "gpu/gpu_runtime_info.h"

namespace wb {
namespace {
std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}
}  // namespace

std::map<std::string, std::string> gpu_library_versions() {
  std::map<std::string, std::string> versions;
  int runtime = 0, driver = 0, nccl = 0;
  versions["cuda_runtime"] = cudaRuntimeGetVersion(&runtime) == cudaSuccess ? cuda_version_text(runtime) : "unknown";
  versions["cuda_driver"] = cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0
                                ? cuda_version_text(driver)
                                : "no driver";
  versions["nccl"] = ncclGetVersion(&nccl) == ncclSuccess
                         ? std::to_string(nccl / 10000) + "." + std::to_string((nccl % 10000) / 100) + "." +
                               std::to_string(nccl % 100)
                         : "unknown";
  return versions;
}

GpuAvailability gpu_availability() {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess)
    return {0, std::string("no CUDA device visible: ") + cudaGetErrorName(rc) + ": " + cudaGetErrorString(rc)};
  if (count == 0) return {0, std::string("no CUDA device visible")};
  return {count, std::nullopt};
}

}  // namespace wb
