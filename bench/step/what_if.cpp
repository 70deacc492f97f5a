#include "step/what_if.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "harness/command_line.h"
#include "harness/errors.h"
#include "step/memory_model.h"
#include "step/nccl_algorithms.h"
#include "step/step_groups.h"

namespace wb::step {
namespace {

int whole_number(const std::string& text, const std::string& shape) {
  int value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < 1)
    throw UsageError("--what-if: '" + shape + "' is not NODESxGPUS (e.g. 8x8)");
  return value;
}

}  // namespace

std::vector<ClusterShape> parse_cluster_shapes(const std::string& text) {
  std::vector<ClusterShape> shapes;
  for (const std::string& part : split_list(text)) {
    const auto x = part.find('x');
    if (x == std::string::npos) throw UsageError("--what-if: '" + part + "' is not NODESxGPUS (e.g. 8x8)");
    shapes.push_back({whole_number(part.substr(0, x), part), whole_number(part.substr(x + 1), part)});
  }
  if (shapes.empty()) throw UsageError("--what-if: no cluster shape given (e.g. 8x8 or 1x8,2x8,4x8)");
  return shapes;
}

std::vector<WhatIfOutcome> predict_clusters(const Model& model, const std::vector<Strategy>& strategies,
                                            const StepSettings& base, const std::vector<ClusterShape>& shapes,
                                            const WhatIfLinks& links, std::optional<int> shard_group,
                                            std::optional<double> global_tokens, const AlgorithmPolicy& policy) {
  std::vector<WhatIfOutcome> outcomes;
  for (const ClusterShape& shape : shapes) {
    StepSettings settings = base;
    settings.ranks = shape.ranks();
    settings.shard_group = base.tensor_parallel > 1   ? base.tensor_parallel
                           : base.expert_parallel > 1 ? base.expert_parallel
                                                      : shard_group.value_or(shape.gpus_per_node);
    const int model_parallel = std::max(base.tensor_parallel, base.expert_parallel);
    if (settings.ranks % model_parallel != 0)
      throw UsageError("--strategy " + plan_name(strategies.empty() ? Strategy::kDdp : strategies.front(), base) +
                       ": " + std::to_string(model_parallel) + " does not divide the " + std::to_string(settings.ranks) + " ranks of " +
                       std::to_string(shape.nodes) + "x" + std::to_string(shape.gpus_per_node));
    check_shard_group(settings.shard_group, settings.ranks);
    if (global_tokens) settings.tokens = *global_tokens / (settings.ranks / base.tensor_parallel);
    const ClusterWiring wiring = wiring_of(shape, links);
    for (Strategy strategy : strategies) {
      const Program program = make_program(model, strategy, settings);
      outcomes.push_back({shape, strategy, plan_name(strategy, settings), settings.tokens,
                          predict_step(program, wiring, policy),
                          algorithms_used(program, wiring, policy), memory_per_rank(strategy, model, settings),
                          base.tensor_parallel});
    }
  }
  return outcomes;
}

ClusterWiring wiring_of(const ClusterShape& shape, const WhatIfLinks& links) {
  ClusterWiring wiring;
  wiring.nodes = shape.nodes;
  wiring.gpus_per_node = shape.gpus_per_node;
  wiring.intra = {links.intra_latency_us, 1e-3 / links.intra_GBps};
  wiring.inter = {links.inter_latency_us, 1e-3 / links.inter_GBps};
  wiring.nvswitch = links.nvswitch;
  wiring.sharp = links.sharp;
  return wiring;
}

NvSwitch parse_nvswitch(const std::string& text) {
  for (NvSwitch n : {NvSwitch::kNone, NvSwitch::kAmpere, NvSwitch::kHopper, NvSwitch::kBlackwell})
    if (text == nvswitch_name(n)) return n;
  throw UsageError("--nvswitch: '" + text + "' is not none, ampere, hopper or blackwell");
}

const char* nvswitch_name(NvSwitch nvswitch) {
  switch (nvswitch) {
    case NvSwitch::kNone: return "none";
    case NvSwitch::kAmpere: return "ampere";
    case NvSwitch::kHopper: return "hopper";
    case NvSwitch::kBlackwell: return "blackwell";
  }
  return "?";
}

namespace {

bool same_shape(const ClusterShape& a, const ClusterShape& b) {
  return a.nodes == b.nodes && a.gpus_per_node == b.gpus_per_node;
}

// Per strategy, throughput on each shape against the first shape's, scaled by the GPU count:
// 100% is linear scaling; a step that does not shrink with a global batch shows here first.
void print_scaling(const std::vector<WhatIfOutcome>& outcomes, const std::vector<ClusterShape>& shapes,
                   std::size_t per_shape) {
  std::printf("\nscaling (tokens/s, and the efficiency against %dx%d scaled by the GPU count):\n", shapes[0].nodes,
              shapes[0].gpus_per_node);
  std::printf("%-17s", "strategy");
  for (const ClusterShape& s : shapes)
    std::printf(" %19s", (std::to_string(s.nodes) + "x" + std::to_string(s.gpus_per_node)).c_str());
  std::printf("\n");
  for (std::size_t i = 0; i < per_shape; ++i) {
    const WhatIfOutcome& first = outcomes[i];
    std::printf("%-17s", first.plan.c_str());
    for (std::size_t k = 0; k < shapes.size(); ++k) {
      const WhatIfOutcome& o = outcomes[k * per_shape + i];
      const double ideal = first.tokens_per_second() * o.shape.ranks() / first.shape.ranks();
      std::printf(" %11.4g (%4.0f%%)", o.tokens_per_second(), 100 * o.tokens_per_second() / ideal);
    }
    std::printf("\n");
  }
}

std::string shape_name(const ClusterShape& s) { return std::to_string(s.nodes) + "x" + std::to_string(s.gpus_per_node); }

// Step time per strategy and shape under each policy, and from how many nodes tree beats ring for
// the step's own sizes: DDP's bucket for all_reduce, one layer's parameters for broadcast.
void print_algorithms(const Model& model, const std::vector<Strategy>& strategies, const StepSettings& base,
                      const WhatIfRequest& request, std::optional<int> shard_group) {
  // "what was chosen": the first policy that chooses (nccl or mpi), nccl if none does.
  std::vector<AlgorithmPolicy> policies = request.policies;
  std::size_t chooser = 0;
  while (chooser < policies.size() && policies[chooser].fixed) ++chooser;
  if (chooser == policies.size()) policies.push_back(nccl_policy());
  std::vector<std::vector<WhatIfOutcome>> per_policy;
  for (const AlgorithmPolicy& policy : policies)
    per_policy.push_back(
        predict_clusters(model, strategies, base, request.shapes, request.links, shard_group, request.global_tokens, policy));
  std::printf("\nstep ms by algorithm (fixed: a call that cannot run it runs ring; nccl: NCCL's algorithms on this "
              "wiring, the fastest per call; mpi: an MPI library's):\n");
  std::printf("%-17s %-9s", "strategy", "shape");
  for (const AlgorithmPolicy& policy : request.policies) std::printf(" %18s", policy.name().c_str());
  std::printf("  what %s chose\n", policies[chooser].name().c_str());
  for (std::size_t i = 0; i < per_policy[0].size(); ++i) {
    const WhatIfOutcome& first = per_policy[0][i];
    std::printf("%-17s %-9s", first.plan.c_str(), shape_name(first.shape).c_str());
    for (std::size_t k = 0; k < request.policies.size(); ++k)
      std::printf(" %18.2f", per_policy[k][i].timeline.step_us / 1e3);
    std::printf("  %s\n", describe_algorithm_use(per_policy[chooser][i].algorithms).c_str());
  }
  int max_nodes = 1024;
  for (const ClusterShape& s : request.shapes) max_nodes = std::max(max_nodes, s.nodes);
  const ClusterShape& largest = request.shapes.back();
  const ClusterWiring wiring = wiring_of(largest, request.links);
  struct Size {
    CollOp op;
    double bytes;
    const char* what;
  };
  // The sizes that matter to a step: DDP's buckets (the median; a tensor larger than the cap is a
  // bucket of its own) and the broadcast of DDP's and FSDP's sync_module_states (250 MiB buckets).
  StepSettings settings = base;
  settings.ranks = largest.ranks();
  settings.shard_group = largest.gpus_per_node;
  std::vector<double> buckets;
  for (const Op& op : make_program(model, Strategy::kDdp, settings).ops)
    if (op.kind == OpKind::kCollective && op.collective == CollOp::kAllReduce) buckets.push_back(static_cast<double>(op.bytes));
  std::sort(buckets.begin(), buckets.end());
  const double bucket = buckets.empty() ? static_cast<double>(base.bucket_cap_bytes) : buckets[buckets.size() / 2];
  std::printf("NCCL on %s (NVSwitch %s, %s):\n", shape_name(largest).c_str(), nvswitch_name(wiring.nvswitch),
              wiring.sharp ? "IB SHARP" : "no IB SHARP");
  for (const Size& size : {Size{CollOp::kAllReduce, bucket, "DDP's median bucket"},
                           Size{CollOp::kAllReduce, static_cast<double>(base.bucket_cap_bytes), "DDP's bucket cap"},
                           Size{CollOp::kBroadcast, 250.0 * (1 << 20), "sync_module_states' bucket"}}) {
    const AlgorithmChoice choice = nccl_choice(size.op, size.bytes, wiring);
    std::string offered;
    for (Algorithm a : nccl_algorithms_for(size.op, wiring)) offered += (offered.empty() ? "" : ", ") + std::string(algorithm_name(a));
    std::string crossover;
    if (size.op == CollOp::kAllReduce) {
      const auto k = nccl_crossover_nodes(size.op, size.bytes, wiring, Algorithm::kRing, Algorithm::kTree, max_nodes);
      crossover = k ? "; tree is faster than ring from " + std::to_string(*k) + (*k == 1 ? " node" : " nodes")
                    : "; ring stays faster than tree up to " + std::to_string(max_nodes) + " nodes";
    }
    std::printf("  %s of %.4g MB (%s): %s, %.3g ms, busbw %.0f GB/s at large sizes (NCCL has %s)%s\n",
                describe(size.op).name, size.bytes / 1e6, size.what, algorithm_name(choice.algorithm),
                choice.time_us / 1e3, nccl_bandwidth(size.op, choice.algorithm, wiring).busbw_GBps, offered.c_str(),
                crossover.c_str());
  }
}

}  // namespace

void print_what_if(const Model& model, const std::vector<Strategy>& strategies, const StepSettings& base,
                   const WhatIfRequest& request, std::optional<int> shard_group, double gpu_memory_bytes) {
  const std::vector<WhatIfOutcome> outcomes = predict_clusters(model, strategies, base, request.shapes, request.links,
                                                               shard_group, request.global_tokens, request.policies[0]);
  const WhatIfLinks& l = request.links;
  char batch[64];
  if (request.global_tokens) std::snprintf(batch, sizeof batch, "%g tokens a step over all ranks", *request.global_tokens);
  else std::snprintf(batch, sizeof batch, "%g tokens/rank", base.tokens);
  std::printf("what if: %s (%.3g B parameters), %g GB/s and %g us inside a node, %g GB/s and %g us per GPU between "
              "nodes, NVSwitch %s, %s, %s at %g TFLOP/s, algorithm %s (predicted, nothing measured)\n",
              model.shape.name.c_str(), static_cast<double>(model.parameters()) / 1e9, l.intra_GBps, l.intra_latency_us,
              l.inter_GBps, l.inter_latency_us, nvswitch_name(l.nvswitch), l.sharp ? "IB SHARP" : "no IB SHARP", batch,
              base.tflops, request.policies[0].name().c_str());
  for (const ClusterShape& shape : request.shapes) {
    std::printf("\n%d nodes x %d GPUs (%g tokens/rank)\n", shape.nodes, shape.gpus_per_node,
                request.global_tokens ? *request.global_tokens / shape.ranks() : base.tokens);
    std::printf("%-17s %12s %10s %10s %8s %12s %14s\n", "strategy", "step ms", "compute ms", "exposed ms", "exposed%",
                "memory/rank", "tokens/s");
    std::vector<StrategyOutcome> ranking;
    for (const WhatIfOutcome& o : outcomes) {
      if (!same_shape(o.shape, shape)) continue;
      const Timeline& t = o.timeline;
      std::printf("%-17s %12.2f %10.2f %10.2f %8.1f %9.3g GB %14.4g\n", o.plan.c_str(), t.step_us / 1e3,
                  t.compute_us / 1e3, t.exposed_us() / 1e3, 100 * t.exposed_us() / t.step_us, o.memory_bytes / 1e9,
                  o.tokens_per_second());
      ranking.push_back({o.strategy, t.step_us, o.memory_bytes});
    }
    std::printf("recommendation: %s\n", recommend(ranking, gpu_memory_bytes, base).reason.c_str());
    for (const WhatIfOutcome& o : outcomes)
      if (same_shape(o.shape, shape))
        std::printf("algorithms of %s (%s): %s\n", o.plan.c_str(), request.policies[0].name().c_str(),
                    describe_algorithm_use(o.algorithms).c_str());
  }
  if (request.shapes.size() > 1) print_scaling(outcomes, request.shapes, strategies.size());
  if (request.policies.size() > 1) print_algorithms(model, strategies, base, request, shard_group);
  StepSettings noted = base;
  if (request.global_tokens) noted.tokens = *request.global_tokens / request.shapes.back().ranks();
  std::printf("%s\n", memory_note(model.shape, noted, request.global_tokens && request.shapes.size() > 1).c_str());
}

}  // namespace wb::step
