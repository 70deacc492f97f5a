#include "step/memory_model.h"

#include "step/expert_parallel.h"
#include "step/tensor_parallel.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace wb::step {

double model_state_bytes(Strategy s, double P, int ranks, int shard_group) {
  const double N = ranks;
  switch (s) {
    case Strategy::kDdp: return 16 * P;
    case Strategy::kZero1:
    case Strategy::kZero1Paper: return 4 * P + 12 * P / N;
    case Strategy::kZero2:
    case Strategy::kZero2Paper:
    case Strategy::kFsdpGradOp: return 2 * P + 14 * P / N;  // SHARD_GRAD_OP keeps full parameters between passes
    case Strategy::kZero3:
    case Strategy::kZero3Paper:
    case Strategy::kFsdpFull: return 16 * P / N;
    case Strategy::kFsdpHybrid: return 16 * P / shard_group;
  }
  return 16 * P;
}

std::string memory_formula(Strategy s, const StepSettings& settings) {
  switch (s) {
    case Strategy::kDdp: return settings.gradient_as_bucket_view ? "16P" : "16P+4P buckets";
    case Strategy::kZero1:
    case Strategy::kZero1Paper: return "4P+12P/N";
    case Strategy::kZero2:
    case Strategy::kZero2Paper: return "2P+14P/N";
    case Strategy::kFsdpGradOp: return "2P+14P/N+a unit's gradient";
    case Strategy::kFsdpHybrid: return "16P/g+gathered units";
    case Strategy::kFsdpFull: return "16P/N+gathered units";
    default: return "16P/N";
  }
}

double activation_bytes(const ModelShape& m, double tokens, bool checkpointing) {
  const double h = static_cast<double>(m.hidden), f = static_cast<double>(m.mlp), V = static_cast<double>(m.vocab);
  const double h_kv = h * m.kv_heads / m.heads;
  constexpr double kBf16 = 2, kFp32 = 4;
  const double layer_elements = 6 * h + 2 * h_kv + (m.gated_mlp ? 3 : 2) * f;  // per token
  const double layer = tokens * layer_elements * kBf16;
  const double head = tokens * (2 * h * kBf16 + V * (kBf16 + kFp32));
  if (!checkpointing) return m.layers * layer + head;
  return m.layers * tokens * h * kBf16 + layer + head;
}

double fsdp_unsharded_bytes(Strategy s, const Model& model, const StepSettings& settings) {
  if (s != Strategy::kFsdpFull && s != Strategy::kFsdpHybrid && s != Strategy::kFsdpGradOp) return 0;
  std::uint64_t largest = 0, second = 0, largest_unit = model.units.front().parameters();
  for (std::size_t u = 1; u < model.units.size(); ++u) {
    const std::uint64_t p = model.units[u].parameters();
    if (p > largest) second = std::exchange(largest, p);
    else if (p > second) second = p;
    largest_unit = std::max(largest_unit, p);
  }
  const double gradient = static_cast<double>(largest_unit) * settings.grad_bytes;
  if (s == Strategy::kFsdpGradOp) return gradient;
  const double gathered = static_cast<double>(model.units.front().parameters() + largest + second) * settings.param_bytes;
  return gathered + gradient;
}

double activation_bytes_per_rank(const ModelShape& shape, const StepSettings& settings) {
  if (shape.experts > 0) {  // each token through top_k expert MLPs
    ModelShape routed = shape;
    routed.mlp *= static_cast<std::uint64_t>(shape.top_k);
    return activation_bytes(routed, settings.tokens, settings.activation_checkpointing);
  }
  const double full = activation_bytes(shape, settings.tokens, settings.activation_checkpointing);
  const int t = settings.tensor_parallel;
  if (t <= 1) return full;
  if (settings.sequence_parallel) return full / t;
  // Without sequence parallelism the blocks' inputs stay whole on every rank: the two norms' inputs,
  // the attention's and the MLP's (4h per token and layer, bf16); with checkpointing, the layer inputs.
  const double per_token = settings.activation_checkpointing ? 1.0 : 4.0;
  const double whole = shape.layers * settings.tokens * per_token * static_cast<double>(shape.hidden) * 2;
  return whole + (full - whole) / t;
}

double memory_per_rank(Strategy s, const Model& full_model, const StepSettings& full_settings) {
  if (is_mixture_of_experts(full_model)) {
    // The strategy's states for the dense part over every rank and for the rank's experts over
    // their replicas (ranks / E), DDP's buckets or FSDP's gathered units of the dense part, FSDP's
    // gathered experts of one layer, and the activations with each token's top_k expert MLPs.
    const ModelShape& shape = full_model.shape;
    const Model dense_model = dense_part(full_model);
    const double dense = static_cast<double>(dense_model.parameters());
    const double layer_experts = (shape.experts / full_settings.expert_parallel) *
                                 static_cast<double>(expert_parameters(shape));
    const int replicas = full_settings.ranks / full_settings.expert_parallel;
    const double buckets = s == Strategy::kDdp && !full_settings.gradient_as_bucket_view ? 4 * dense : 0;
    double gathered_experts = 0;  // a layer's experts whole while they compute (and their gradient)
    if (s == Strategy::kFsdpFull) gathered_experts = layer_experts * (full_settings.param_bytes + full_settings.grad_bytes);
    if (s == Strategy::kFsdpGradOp) gathered_experts = layer_experts * full_settings.grad_bytes;
    return model_state_bytes(s, dense, full_settings.ranks, full_settings.shard_group) + buckets +
           fsdp_unsharded_bytes(s, dense_model, full_settings) +
           model_state_bytes(s, shape.layers * layer_experts, replicas, replicas) + gathered_experts +
           activation_bytes_per_rank(shape, full_settings);
  }
  if (full_settings.tensor_parallel > 1) {
    // One rank of a tensor-parallel group: the data-parallel strategy's states for its shard of the
    // model over ranks / T, and its share of the activations.
    StepSettings settings = full_settings;
    settings.ranks /= full_settings.tensor_parallel;
    settings.shard_group = settings.ranks;
    settings.tensor_parallel = 1;
    const Model model = tensor_parallel_shard(full_model, full_settings.tensor_parallel);
    const double P = static_cast<double>(model.parameters());
    const double buckets = s == Strategy::kDdp && !settings.gradient_as_bucket_view ? 4 * P : 0;
    return model_state_bytes(s, P, settings.ranks, settings.shard_group) + buckets +
           fsdp_unsharded_bytes(s, model, settings) + activation_bytes_per_rank(full_model.shape, full_settings);
  }
  const Model& model = full_model;
  const StepSettings& settings = full_settings;
  const double P = static_cast<double>(model.parameters());
  const double buckets = s == Strategy::kDdp && !settings.gradient_as_bucket_view ? 4 * P : 0;
  return model_state_bytes(s, P, settings.ranks, settings.shard_group) + buckets +
         fsdp_unsharded_bytes(s, model, settings) +
         activation_bytes(model.shape, settings.tokens, settings.activation_checkpointing);
}

namespace {
std::string gb(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g GB", bytes / 1e9);
  return text;
}
std::string ms(double us) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g ms", us / 1e3);
  return text;
}
}  // namespace

std::string memory_note(const ModelShape& shape, const StepSettings& settings, bool tokens_vary) {
  char tokens[32];
  std::snprintf(tokens, sizeof tokens, "%g", settings.tokens);
  const std::string activations = "activations " +
                                  gb(activation_bytes_per_rank(shape, settings)) +
                                  " for " + tokens + " tokens/rank";
  const std::string held = settings.tensor_parallel > 1 ? "the rank's 1/" + std::to_string(settings.tensor_parallel) +
                                                               " of the model"
                           : shape.experts > 0 ? "the dense part and the rank's experts (states over their replicas)"
                                               : "the full model";
  return "(memory/rank: model states of mixed-precision Adam for " + held + " (ZeRO paper formulas)" +
         (settings.gradient_as_bucket_view ? "" : " + DDP's gradient buckets (4P)") +
         " + FSDP's gathered units (2 in flight, the root) and one unit's full gradient + " +
         (tokens_vary ? "activations for each shape's tokens/rank" : activations) +
         " (bf16, FlashAttention, no dropout; activation checkpointing " +
         (settings.activation_checkpointing ? "on" : "off") + "); other communication buffers not counted)";
}

Recommendation recommend(const std::vector<StrategyOutcome>& outcomes, double gpu_memory_bytes,
                         const StepSettings& settings) {
  Recommendation r;
  const StrategyOutcome* best = nullptr;
  const StrategyOutcome* fastest = nullptr;
  for (const auto& o : outcomes) {
    if (!fastest || o.step_us < fastest->step_us) fastest = &o;
    if (o.memory_bytes <= gpu_memory_bytes && (!best || o.step_us < best->step_us)) best = &o;
  }
  if (!best) {
    r.reason = "no strategy fits " + gb(gpu_memory_bytes) + " per GPU; the smallest needs more";
    double smallest = 0;
    for (const auto& o : outcomes)
      if (smallest == 0 || o.memory_bytes < smallest) smallest = o.memory_bytes;
    if (!outcomes.empty()) r.reason += " (" + gb(smallest) + ")";
    return r;
  }
  r.strategy = best->strategy;
  r.reason = plan_name(best->strategy, settings) + ": fastest step (" + ms(best->step_us) +
             ") among the strategies that fit " + gb(gpu_memory_bytes) + " (it needs " + gb(best->memory_bytes) +
             ": " + memory_formula(best->strategy, settings) + " + activations)";
  if (fastest != best)
    r.reason += "; " + plan_name(fastest->strategy, settings) + " is faster (" + ms(fastest->step_us) +
                ") but needs " + gb(fastest->memory_bytes);
  return r;
}

}  // namespace wb::step
