#include "step/expert_parallel.h"

#include "harness/errors.h"
#include "step/program_rewrite.h"

namespace wb::step {

bool is_mixture_of_experts(const Model& model) { return model.shape.experts > 0; }

Model dense_part(const Model& model) {
  Model dense = model;
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

Program make_expert_parallel_program(const Model& model, Strategy strategy, const StepSettings& settings) {
  const int ep = settings.expert_parallel;
  const ModelShape& shape = model.shape;
  if (strategy != Strategy::kDdp)
    throw UsageError(std::string("a mixture of experts is modelled with DDP only, not ") + strategy_name(strategy) +
                     " (use epE+ddp)");
  if (settings.tensor_parallel > 1) throw UsageError("tensor and expert parallelism together are not modelled");
  if (ep < 1 || settings.ranks % ep != 0 || shape.experts % ep != 0)
    throw UsageError("--strategy ep" + std::to_string(ep) + ": E must divide the ranks (" +
                     std::to_string(settings.ranks) + ") and the experts (" + std::to_string(shape.experts) + ")");
  StepSettings data = settings;
  data.expert_parallel = 1;
  const Program dp = make_ddp_program(dense_part(model), data);
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
  constexpr int kActivationElementBytes = 2, kGradBytes = 4;
  // A token's compute in the experts: top_k expert MLPs.
  const double expert_forward = forward_us(static_cast<std::uint64_t>(shape.top_k) * expert_parameters(shape), settings);
  std::vector<int> expert_reductions;
  auto experts = [&](const std::string& label, double us, std::vector<int> deps) {
    const int dispatch = p.collective(CollOp::kAllToAll, Group::kShard, a2a, kActivationElementBytes,
                                      "all_to_all (dispatch) " + label, std::move(deps));
    const int compute = p.compute(label + " experts", us, {dispatch});
    const int combine = p.collective(CollOp::kAllToAll, Group::kShard, a2a, kActivationElementBytes,
                                     "all_to_all (combine) " + label, {compute});
    return std::pair{compute, combine};
  };
  rewrite_program(dp, p, [](Group g) { return g; }, [&](const Op& op, std::vector<int> after) -> ComputeRewrite {
    const auto pass = layers.find(op.label);
    if (pass == layers.end()) {
      double us = op.compute_us;
      if (op.label == "optimizer") {  // the rank's experts too, and after their reductions
        us += optimizer_us(static_cast<std::uint64_t>(shape.layers) * local_expert_parameters, settings);
        after.insert(after.end(), expert_reductions.begin(), expert_reductions.end());
      }
      return {p.compute(op.label, us, after), -1};
    }
    if (pass->second) {  // forward: attention, then the experts
      const int attention = p.compute(op.label + " attention", op.compute_us, after);
      return {attention, experts(op.label, expert_forward, {attention}).second};
    }
    // backward: the experts' first (their gradients reduced at once), then attention
    const auto [compute, combine] = experts(op.label, backward_us(expert_forward, settings, true), after);
    if (replicas > 1)
      expert_reductions.push_back(p.collective(CollOp::kAllReduce, Group::kReplicate, local_expert_parameters * kGradBytes,
                                               kGradBytes, "all_reduce experts " + op.label.substr(4), {compute}));
    return {p.compute(op.label + " attention", op.compute_us, {combine}), -1};
  });
  return p;
}

}  // namespace wb::step
