// `wb-step --what-if`: the strategies' step programs for clusters not at hand, played on link
// figures (hierarchical collectives, cost_model.h), for one cluster shape or a list of them. With a
// list and a global batch (`--global-tokens`), each data-parallel rank's share shrinks as the cluster grows
// (strong scaling): compute falls with the GPU count, communication does not, and the table shows
// where more GPUs stop making the step faster.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "step/cost_model.h"
#include "step/model.h"
#include "step/strategy.h"

namespace wb::step {

struct ClusterShape {
  int nodes = 1;
  int gpus_per_node = 1;
  int ranks() const { return nodes * gpus_per_node; }
};

// "4x8" or a list "1x8,2x8,4x8"; throws UsageError naming the bad part.
std::vector<ClusterShape> parse_cluster_shapes(const std::string& text);

struct WhatIfLinks {
  double intra_GBps = 360, intra_latency_us = 2;  // NVLink 4 at 80%
  double inter_GBps = 46, inter_latency_us = 5;   // an NDR NIC per GPU
  NvSwitch nvswitch = NvSwitch::kHopper;          // an HGX H100's: NVLS
  bool sharp = false;                             // IB SHARP in the fabric: CollNet
};
// --nvswitch none|ampere|hopper|blackwell; throws UsageError naming the choices.
NvSwitch parse_nvswitch(const std::string& text);
const char* nvswitch_name(NvSwitch nvswitch);

struct WhatIfRequest {
  std::vector<ClusterShape> shapes;
  WhatIfLinks links;
  std::optional<double> global_tokens;  // strong scaling: tokens per rank = global / ranks
  // --algorithm: the first plays the per-shape tables; with several, a table sets them side by
  // side, and NCCL's choice for the step's sizes, with the node count where tree overtakes ring.
  std::vector<AlgorithmPolicy> policies = {nccl_policy()};
};

struct WhatIfOutcome {
  ClusterShape shape;
  Strategy strategy;
  std::string plan;  // the strategy's name, "tp8+ddp" with tensor parallelism
  double tokens_per_rank = 0;
  Timeline timeline;
  AlgorithmUse algorithms;  // which algorithm each collective ran
  double memory_bytes = 0;
  int tensor_parallel = 1;  // the T ranks of a tensor-parallel group share their tokens
  double tokens_per_second() const {
    return tokens_per_rank * shape.ranks() / tensor_parallel / (timeline.step_us * 1e-6);
  }
};

// Every strategy on every shape, in that order (shape-major). `base` gives everything but ranks,
// shard group and, when `global_tokens` is set, the tokens per rank (global / ranks). The shard
// group of HYBRID_SHARD is `shard_group` if given, else a node.
std::vector<WhatIfOutcome> predict_clusters(const Model& model, const std::vector<Strategy>& strategies,
                                            const StepSettings& base, const std::vector<ClusterShape>& shapes,
                                            const WhatIfLinks& links, std::optional<int> shard_group,
                                            std::optional<double> global_tokens,
                                            const AlgorithmPolicy& policy = nccl_policy());
// The wiring of a shape on the what-if's links (no reduction cost: gamma 0).
ClusterWiring wiring_of(const ClusterShape& shape, const WhatIfLinks& links);

// Prints, per shape, each strategy's predicted step, exposed communication, memory, tokens/s and
// the recommendation for `gpu_memory_bytes` and the algorithms the collectives ran; with several
// shapes, the scaling table; with several policies, the algorithms table and the crossovers.
void print_what_if(const Model& model, const std::vector<Strategy>& strategies, const StepSettings& base,
                   const WhatIfRequest& request, std::optional<int> shard_group, double gpu_memory_bytes);

}  // namespace wb::step
