#include "step/expert_parallel.h"

#include <map>

#include "harness/errors.h"

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

  std::map<std::string, bool> layer_pass;  // "fwd layer3" -> forward?
  for (std::size_t u = 1; u < model.units.size(); ++u) {
    layer_pass["fwd " + model.units[u].name] = true;
    layer_pass["bwd " + model.units[u].name] = false;
  }
  const std::uint64_t a2a = expert_all_to_all_bytes(shape, settings);
  constexpr int kActivationElementBytes = 2, kGradBytes = 4;
  // A token's compute in the experts: top_k expert MLPs.
  const double expert_forward = forward_us(static_cast<std::uint64_t>(shape.top_k) * expert_parameters(shape), settings);
  std::vector<int> index(dp.ops.size(), -1), expert_reductions;
  int pending = -1;  // the last all_to_all: the next compute waits for it
  for (std::size_t i = 0; i < dp.ops.size(); ++i) {
    const Op& op = dp.ops[i];
    if (op.kind == OpKind::kHostWait) {
      p.host_wait(index[static_cast<std::size_t>(op.waits_for)]);
      index[i] = index[static_cast<std::size_t>(op.waits_for)];
      continue;
    }
    std::vector<int> after;
    for (int a : op.after) after.push_back(index[static_cast<std::size_t>(a)]);
    if (op.kind == OpKind::kCollective) {
      index[i] = p.collective(op.collective, op.group, op.bytes, op.element_bytes, op.label, after);
      continue;
    }
    if (pending >= 0) after.push_back(pending);
    pending = -1;
    const auto pass = layer_pass.find(op.label);
    if (pass == layer_pass.end()) {
      double us = op.compute_us;
      if (op.label == "optimizer") {  // the rank's experts too, and after their reductions
        us += optimizer_us(static_cast<std::uint64_t>(shape.layers) * local_expert_parameters, settings);
        after.insert(after.end(), expert_reductions.begin(), expert_reductions.end());
      }
      index[i] = p.compute(op.label, us, after);
      continue;
    }
    auto experts = [&](const std::string& label, double us, std::vector<int> deps) {
      const int dispatch = p.collective(CollOp::kAllToAll, Group::kShard, a2a, kActivationElementBytes,
                                        "all_to_all (dispatch) " + label, std::move(deps));
      const int compute = p.compute(label + " experts", us, {dispatch});
      const int combine = p.collective(CollOp::kAllToAll, Group::kShard, a2a, kActivationElementBytes,
                                       "all_to_all (combine) " + label, {compute});
      return std::pair{compute, combine};
    };
    if (pass->second) {  // forward: attention, then the experts
      const int attention = p.compute(op.label + " attention", op.compute_us, after);
      pending = experts(op.label, expert_forward, {attention}).second;
      index[i] = attention;
    } else {  // backward: the experts' first (their gradients reduced at once), then attention
      const auto [compute, combine] = experts(op.label, backward_us(expert_forward, settings, true), after);
      if (replicas > 1)
        expert_reductions.push_back(p.collective(CollOp::kAllReduce, Group::kReplicate,
                                                 local_expert_parameters * kGradBytes, kGradBytes,
                                                 "all_reduce experts " + op.label.substr(4), {compute}));
      index[i] = p.compute(op.label + " attention", op.compute_us, {combine});
    }
  }
  return p;
}

}  // namespace wb::step
