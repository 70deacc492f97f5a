#include "step/expert_parallel.h"

#include "harness/errors.h"
#include "step/program_rewrite.h"

namespace wb::step {

bool is_mixture_of_experts(const Model& model) { return model.shape.experts > 0; }

Model dense_part(const Model& model) {
  Model dense = model;
  dense.shape.experts = 0;  // a model of its own: what every rank holds
  for (Unit& unit : dense.units)
    std::erase_if(unit.tensors, [](const Tensor& t) { return t.name.rfind("expert", 0) == 0; });
  return dense;
}

std::uint64_t expert_parameters(const ModelShape& s) { return (s.gated_mlp ? 3 : 2) * s.hidden * s.mlp; }

std::uint64_t expert_all_to_all_bytes(const ModelShape& shape, const StepSettings& settings) {
  constexpr double kActivationBytes = 2;  // bf16
  return static_cast<std::uint64_t>(settings.tokens * shape.top_k * static_cast<double>(shape.hidden) *
                                    kActivationBytes);
}

namespace {

// How a strategy keeps the experts over their replicas: what it gathers before the experts' passes
// and how it reduces their gradients (the dense part's rules, docs/step-emulation.md).
struct ExpertData {
  bool gather_forward = false;         // all_gather the layer's experts before forward
  bool gather_backward = false;        // ... and again before backward
  CollOp reduction = CollOp::kAllReduce;
  bool reduce_per_layer = true;        // as each layer's experts finish backward (else after backward)
  bool gather_after_optimizer = false; // ZeRO-1/2: the updated experts gathered back
  bool sharded_states = false;         // optimizer states over the replicas
};

ExpertData expert_data_of(Strategy s) {
  switch (s) {
    case Strategy::kDdp: return {};
    case Strategy::kFsdpFull:
      return {.gather_forward = true, .gather_backward = true, .reduction = CollOp::kReduceScatter,
              .sharded_states = true};
    case Strategy::kFsdpGradOp:
      return {.gather_forward = true, .reduction = CollOp::kReduceScatter, .sharded_states = true};
    case Strategy::kZero1:
      return {.reduce_per_layer = false, .gather_after_optimizer = true, .sharded_states = true};
    case Strategy::kZero2: return {.gather_after_optimizer = true, .sharded_states = true};
    case Strategy::kZero1Paper:
      return {.reduction = CollOp::kReduceScatter, .reduce_per_layer = false, .gather_after_optimizer = true,
              .sharded_states = true};
    case Strategy::kZero2Paper:
      return {.reduction = CollOp::kReduceScatter, .gather_after_optimizer = true, .sharded_states = true};
    default:
      throw UsageError(std::string("expert parallelism with ") + strategy_name(s) +
                       " is not modelled (its shard groups or per-tensor fetches would need a third group): use "
                       "ddp, fsdp-full, fsdp-grad-op, zero1 or zero2");
  }
}

}  // namespace

Program make_expert_parallel_program(const Model& model, Strategy strategy, const StepSettings& settings) {
  const int ep = settings.expert_parallel;
  const ModelShape& shape = model.shape;
  if (settings.tensor_parallel > 1) throw UsageError("tensor and expert parallelism together are not modelled");
  if (ep < 1 || settings.ranks % ep != 0 || shape.experts % ep != 0)
    throw UsageError("--strategy ep" + std::to_string(ep) + ": E must divide the ranks (" +
                     std::to_string(settings.ranks) + ") and the experts (" + std::to_string(shape.experts) + ")");
  const ExpertData rules = expert_data_of(strategy);
  StepSettings data = settings;
  data.expert_parallel = 1;
  const Program dp = make_program(dense_part(model), strategy, data);
  const std::uint64_t local_experts = static_cast<std::uint64_t>(shape.experts / ep);
  const std::uint64_t local_expert_parameters = local_experts * expert_parameters(shape);
  const int replicas = settings.ranks / ep;

  Program p;
  p.strategy = plan_name(strategy, settings);
  p.variant_note = dp.variant_note + "; " + std::to_string(shape.experts) + " experts, top " +
                   std::to_string(shape.top_k) + ", expert parallel " + std::to_string(ep) +
                   ": 2 all_to_all per layer in forward and in backward";
  p.ranks = settings.ranks;
  p.group_sizes[static_cast<int>(Group::kWorld)] = settings.ranks;
  p.group_sizes[static_cast<int>(Group::kShard)] = ep;
  p.group_sizes[static_cast<int>(Group::kReplicate)] = replicas;

  const std::map<std::string, bool> layers = layer_passes(model);
  const std::uint64_t a2a = expert_all_to_all_bytes(shape, settings);
  constexpr int kActivationElementBytes = 2;
  // A layer's experts on this rank, padded over the replicas as FSDP and ZeRO pad their flat parameters.
  const std::uint64_t layer_experts = rules.sharded_states ? padded(local_expert_parameters, replicas)
                                                           : local_expert_parameters;
  const bool exchange = replicas > 1;  // no other rank holds this rank's experts otherwise
  // A token's compute in the experts: top_k expert MLPs.
  const double expert_forward = forward_us(static_cast<std::uint64_t>(shape.top_k) * expert_parameters(shape), settings);
  std::vector<int> expert_reductions;
  auto gather = [&](const std::string& label, std::vector<int> deps) {
    return p.collective(CollOp::kAllGather, Group::kReplicate, layer_experts * settings.param_bytes,
                        settings.param_bytes, "all_gather experts " + label, std::move(deps));
  };
  auto reduce = [&](const std::string& label, std::vector<int> deps) {
    const int bytes = rules.sharded_states ? settings.grad_bytes : 4;  // DDP reduces fp32 gradients
    expert_reductions.push_back(p.collective(rules.reduction, Group::kReplicate, layer_experts * bytes, bytes,
                                             std::string(describe(rules.reduction).name) + " experts " + label,
                                             std::move(deps)));
  };
  auto experts = [&](const std::string& label, double us, std::vector<int> deps, bool gathered) {
    const int dispatch = p.collective(CollOp::kAllToAll, Group::kShard, a2a, kActivationElementBytes,
                                      "all_to_all (dispatch) " + label, deps);
    std::vector<int> ready{dispatch};
    if (gathered && exchange) ready.push_back(gather(label, std::move(deps)));
    const int compute = p.compute(label + " experts", us, ready);
    const int combine = p.collective(CollOp::kAllToAll, Group::kShard, a2a, kActivationElementBytes,
                                     "all_to_all (combine) " + label, {compute});
    return std::pair{compute, combine};
  };
  int last_backward = -1;
  rewrite_program(dp, p, [](Group g) { return g; }, [&](const Op& op, std::vector<int> after) -> ComputeRewrite {
    const auto pass = layers.find(op.label);
    if (pass == layers.end()) {
      double us = op.compute_us;
      if (op.label == "optimizer") {  // the rank's experts too (its shard of them), after their reductions
        if (exchange && !rules.reduce_per_layer)
          for (std::size_t u = model.units.size() - 1; u >= 1; --u) reduce(model.units[u].name, {last_backward});
        const std::uint64_t owned = static_cast<std::uint64_t>(shape.layers) * layer_experts /
                                    static_cast<std::uint64_t>(rules.sharded_states ? replicas : 1);
        us += optimizer_us(owned, settings);
        after.insert(after.end(), expert_reductions.begin(), expert_reductions.end());
        const int optimizer = p.compute(op.label, us, after);
        if (exchange && rules.gather_after_optimizer)
          p.collective(CollOp::kAllGather, Group::kReplicate,
                       static_cast<std::uint64_t>(shape.layers) * layer_experts * settings.param_bytes,
                       settings.param_bytes, "all_gather experts' parameters", {optimizer});
        return {optimizer, -1};
      }
      const int compute = p.compute(op.label, us, after);
      if (op.label.rfind("bwd ", 0) == 0) last_backward = compute;
      return {compute, -1};
    }
    if (pass->second) {  // forward: attention, then the experts
      const int attention = p.compute(op.label + " attention", op.compute_us, after);
      return {attention, experts(op.label, expert_forward, {attention}, rules.gather_forward).second};
    }
    // backward: the experts' first (their gradients reduced at once), then attention
    const auto [compute, combine] =
        experts(op.label, backward_us(expert_forward, settings, true), after, rules.gather_backward);
    if (exchange && rules.reduce_per_layer) reduce(op.label.substr(4), {compute});
    last_backward = p.compute(op.label + " attention", op.compute_us, {combine});
    return {last_backward, -1};
  });
  return p;
}

}  // namespace wb::step
