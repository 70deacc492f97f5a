#include "step/tensor_parallel.h"

#include <stdexcept>

#include "harness/errors.h"
#include "step/program_rewrite.h"

namespace wb::step {

Model tensor_parallel_shard(const Model& model, int tp) {
  Model shard = model;
  const auto t = static_cast<std::uint64_t>(tp);
  shard.shape.vocab = (shard.shape.vocab + t - 1) / t;  // the head's compute, vocabulary-parallel
  for (Unit& unit : shard.units)
    for (Tensor& tensor : unit.tensors)
      if (tensor.name.find("norm") == std::string::npos) tensor.elements = (tensor.elements + t - 1) / t;
  return shard;
}

std::uint64_t tensor_parallel_bytes(const ModelShape& shape, const StepSettings& settings) {
  constexpr double kActivationBytes = 2;  // bf16
  return static_cast<std::uint64_t>(settings.tokens * static_cast<double>(shape.hidden) * kActivationBytes);
}

Program make_tensor_parallel_program(const Model& model, Strategy strategy, const StepSettings& settings) {
  const int tp = settings.tensor_parallel;
  if (tp < 1 || settings.ranks % tp != 0)
    throw UsageError("--strategy tp" + std::to_string(tp) + "+: " + std::to_string(tp) + " does not divide " +
                     std::to_string(settings.ranks) + " ranks");
  if (strategy == Strategy::kFsdpHybrid || strategy == Strategy::kZero3 || strategy == Strategy::kZero3Paper)
    throw UsageError(std::string("tensor parallelism with ") + strategy_name(strategy) +
                     " is not modelled (its groups or per-tensor fetches would need a third group): use ddp, "
                     "fsdp-full, fsdp-grad-op, zero1 or zero2");
  StepSettings data = settings;
  data.ranks = settings.ranks / tp;
  data.shard_group = data.ranks;
  data.tensor_parallel = 1;
  const Model shard = tensor_parallel_shard(model, tp);
  const Program dp = make_program(shard, strategy, data);

  Program p;
  p.strategy = "tp" + std::to_string(tp) + "+" + dp.strategy;
  p.variant_note = dp.variant_note + "; Megatron TP " + std::to_string(tp) +
                   (settings.sequence_parallel ? " with sequence parallelism: all_gather + reduce_scatter"
                                               : ": 2 all_reduce of activations") +
                   " per layer in forward and in backward";
  p.ranks = settings.ranks;
  p.group_sizes[static_cast<int>(Group::kWorld)] = settings.ranks;
  p.group_sizes[static_cast<int>(Group::kShard)] = tp;
  p.group_sizes[static_cast<int>(Group::kReplicate)] = data.ranks;

  const std::map<std::string, bool> layers = layer_passes(model);
  const std::uint64_t bytes = tensor_parallel_bytes(model.shape, settings);
  constexpr int kActivationElementBytes = 2;
  auto tp_collective = [&](CollOp op, const std::string& label, std::vector<int> after) {
    return p.collective(op, Group::kShard, bytes, kActivationElementBytes, label, std::move(after));
  };
  const auto data_parallel_group = [](Group g) {
    if (g != Group::kWorld) throw std::logic_error("tensor parallelism over a program with subgroups");
    return Group::kReplicate;
  };
  rewrite_program(dp, p, data_parallel_group, [&](const Op& op, std::vector<int> after) -> ComputeRewrite {
    if (!layers.count(op.label)) return {p.compute(op.label, op.compute_us, after), -1};
    // The layer's two blocks, each closed by its tensor-parallel collective(s); a block's input is
    // what the previous block's collective produced.
    int last = -1, compute = -1;
    for (const char* block : {" attention", " mlp"}) {
      const std::string label = op.label + block;
      if (last >= 0) after = {last};
      if (settings.sequence_parallel) after = {tp_collective(CollOp::kAllGather, "all_gather (tp) " + label, after)};
      compute = p.compute(label, op.compute_us / 2, after);
      last = tp_collective(settings.sequence_parallel ? CollOp::kReduceScatter : CollOp::kAllReduce,
                           std::string(settings.sequence_parallel ? "reduce_scatter" : "all_reduce") + " (tp) " + label,
                           {compute});
    }
    return {compute, last};  // the layer's gradients are ready when its compute is
  });
  return p;
}

}  // namespace wb::step
