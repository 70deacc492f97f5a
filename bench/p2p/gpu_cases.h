// Registration of the GPU cases of wb-p2p and wb-host on the harness. Two implementations: with
// CUDA the cases are measured (or SKIP rows say why no GPU is usable); built without CUDA every
// case kind is a SKIP row saying so. Row names follow wb's conventions (src/dst node/gpuN).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runner/multi_rank_benchmarks.h"
#include "p2p/copy_patterns.h"

namespace wb {

class NumaMemory;

struct P2pCaseOptions {
  std::vector<CopyPatternSpec> patterns = all_copy_patterns();
  std::vector<std::uint64_t> sizes = {256ull << 20};
  bool latency = true;
  std::uint64_t latency_bytes = 64ull << 20;
  std::chrono::milliseconds timeout{60000};
  std::string host;
  // The link class between two GPUs (nvlink, pcie), from the node's topology; self pairs are
  // device memory.
  std::function<std::string(int, int)> link_class;
};

// Returns the number of GPUs measured (0 when SKIP rows were written instead).
int add_p2p_cases(MultiRankBenchmarks& harness, const P2pCaseOptions& options);

struct HostGpuCaseOptions {
  std::vector<std::uint64_t> sizes = {256ull << 20};
  std::uint64_t latency_bytes = 16ull << 20;
  std::chrono::milliseconds timeout{60000};
  std::string host;
};

int add_host_gpu_cases(MultiRankBenchmarks& harness, NumaMemory& numa, const HostGpuCaseOptions& options);

// The SKIP rows both builds write when no GPU can be used, one per case kind, with the reason.
void skip_p2p_cases(MultiRankBenchmarks& harness, const P2pCaseOptions& options, const std::string& reason);
void skip_host_gpu_cases(MultiRankBenchmarks& harness, const HostGpuCaseOptions& options, const std::string& reason);
const std::vector<std::string>& host_gpu_case_kinds();
// How a host <-> GPU case is judged (results.csv's `judged`): a pinned one-way copy against the
// PCIe link's ceiling; a pageable copy (the driver's CPU staging copy sets its pace) and a copy both
// ways at once (the host's root complex sets it: a healthy H200 did 77% of twice the one-way
// ceiling, bench/MEASUREMENTS.md) against the other GPUs' only.
std::string host_gpu_case_judged(const std::string& kind, double bytes_per_op);

}  // namespace wb
