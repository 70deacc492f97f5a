// Built without CUDA: every GPU case kind is a SKIP row that says so.
#include "p2p/gpu_cases.h"

namespace wb {
namespace {
constexpr const char* kReason = "this binary was built without CUDA (configure with WB_CUDA=ON)";
}

int add_p2p_cases(MultiRankBenchmarks& harness, const P2pCaseOptions& options) {
  skip_p2p_cases(harness, options, kReason);
  return 0;
}

int add_host_gpu_cases(MultiRankBenchmarks& harness, NumaMemory&, const HostGpuCaseOptions& options) {
  skip_host_gpu_cases(harness, options, kReason);
  return 0;
}

}  // namespace wb
