// SKIP rows for the GPU cases, shared by the build without CUDA and the machine without a GPU.
#include "p2p/gpu_cases.h"
#include "harness/judging.h"

namespace wb {
namespace {

ResultRow skipped(const std::string& bench, const std::string& case_name, const std::string& op,
                  const std::string& host, const std::string& reason) {
  ResultRow row;
  row.bench = bench;
  row.case_name = case_name;
  row.backend = "cuda";
  row.op = op;
  row.src = host;
  row.dtype = "uint8";
  row.status = RowStatus::kSkip;
  row.reason = reason;
  return row;
}

}  // namespace

const std::vector<std::string>& host_gpu_case_kinds() {
  static const std::vector<std::string> kinds = {"h2d_pinned",   "d2h_pinned",   "h2d_pageable", "d2h_pageable",
                                                 "bidir_pinned", "all_gpus_h2d", "all_gpus_d2h"};
  return kinds;
}

std::string host_gpu_case_judged(const std::string& kind, double bytes_per_op) {
  const bool link_bound = kind.find("pageable") == std::string::npos && !kind.starts_with("bidir");
  return link_bound ? transfer_judged(bytes_per_op) : judged_text({bandwidth_against_siblings()});
}

void skip_p2p_cases(MultiRankBenchmarks& harness, const P2pCaseOptions& options, const std::string& reason) {
  for (const auto& pattern : options.patterns)
    harness.add_unmeasured(skipped("p2p", pattern.name(), "copy", options.host, reason));
  if (options.latency) harness.add_unmeasured(skipped("p2p", "latency", "pointer_chase", options.host, reason));
}

void skip_host_gpu_cases(MultiRankBenchmarks& harness, const HostGpuCaseOptions& options, const std::string& reason) {
  for (const auto& kind : host_gpu_case_kinds()) harness.add_unmeasured(skipped("host", kind, "copy", options.host, reason));
  harness.add_unmeasured(skipped("host", "gpu_host_latency", "pointer_chase", options.host, reason));
}

}  // namespace wb
