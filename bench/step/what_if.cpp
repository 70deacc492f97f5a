#include "step/what_if.h"

#include <charconv>

#include "harness/command_line.h"
#include "harness/errors.h"
#include "step/memory_model.h"
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
                                            std::optional<double> global_tokens) {
  std::vector<WhatIfOutcome> outcomes;
  for (const ClusterShape& shape : shapes) {
    StepSettings settings = base;
    settings.ranks = shape.ranks();
    settings.shard_group = shard_group.value_or(shape.gpus_per_node);
    check_shard_group(settings.shard_group, settings.ranks);
    if (global_tokens) settings.tokens = *global_tokens / settings.ranks;
    ClusterWiring wiring;
    wiring.nodes = shape.nodes;
    wiring.gpus_per_node = shape.gpus_per_node;
    wiring.intra = {links.intra_latency_us, 1e-3 / links.intra_GBps};
    wiring.inter = {links.inter_latency_us, 1e-3 / links.inter_GBps};
    for (Strategy strategy : strategies)
      outcomes.push_back({shape, strategy, settings.tokens, predict_step(make_program(model, strategy, settings), wiring),
                          memory_per_rank(strategy, model, settings)});
  }
  return outcomes;
}

}  // namespace wb::step
