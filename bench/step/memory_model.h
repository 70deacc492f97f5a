// Memory per rank: model states under mixed-precision Adam (ZeRO paper, Figure 1: 2 bytes of
// parameters, 2 of gradients, K = 12 of optimizer state per parameter), DDP's gradient buckets
// (one more fp32 copy of the gradients, 4P, unless gradient_as_bucket_view) and the activations
// kept for backward; and the recommendation: the fastest strategy whose memory fits the GPU.
// Other communication buffers and allocator fragmentation come on top and are not counted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "step/model.h"
#include "step/strategy.h"

namespace wb::step {

// Bytes per rank for P parameters on N ranks (g: HYBRID_SHARD's shard group).
double model_state_bytes(Strategy s, double parameters, int ranks, int shard_group);
std::string memory_formula(Strategy s, const StepSettings& settings);  // "16P/N", "16P+4P", ...

// Activations one rank keeps for backward, for `tokens` tokens per rank (micro-batch x sequence),
// the same under every data-parallel strategy. Assumed: bf16, FlashAttention (no sequence-squared
// attention scores kept), no dropout, as Llama-style training runs. Counted tensor by tensor as
// Korthikanti et al. 2022 (section 4.1) do, per layer and token: the two norms' inputs (2h), the
// attention's input (h), q, k and v (h + 2 h_kv), the attention output (h), the MLP's input (h)
// and its inner activations (gated: gate, up and their product, 3f; plain: before and after the
// nonlinearity, 2f). For GPT-3's shape plus their two dropout masks that is their 34 s b h. The
// head keeps the final norm's and its own input (2h) and the logits (V in bf16 and in fp32 for
// the loss). With activation checkpointing: every layer's input, one layer's full set while it
// is recomputed, and the head.
double activation_bytes(const ModelShape& shape, double tokens, bool checkpointing);

// A rank's activations under its model parallelism: tensor parallel (Korthikanti et al. 2022,
// section 4.2), with sequence parallelism 1/T of them, without, the blocks' inputs (4h per token
// and layer) stay whole; a mixture of experts, each token's top_k expert MLPs; otherwise all.
double activation_bytes_per_rank(const ModelShape& shape, const StepSettings& settings);

// What FSDP holds unsharded at its peak (docs/step-emulation.md: limit_all_gathers keeps at most 2
// all_gathers in flight; the root unit stays gathered from forward to backward): the root's and the
// two largest layers' gathered parameters, and the largest unit's full gradient before its
// reduce_scatter (SHARD_GRAD_OP keeps full parameters anyway: the gradient only). Zero for DDP and
// ZeRO (DeepSpeed's live-parameter and bucket limits are not counted).
double fsdp_unsharded_bytes(Strategy s, const Model& model, const StepSettings& settings);

// Model states, DDP's buckets, FSDP's unsharded units and activations, for the settings' ranks,
// shard group, tokens and checkpointing.
double memory_per_rank(Strategy s, const Model& model, const StepSettings& settings);

// What "memory/rank" counts, as the tables print under themselves. `tokens_vary`: the tokens per
// rank differ from table to table (strong scaling).
std::string memory_note(const ModelShape& shape, const StepSettings& settings, bool tokens_vary = false);

struct StrategyOutcome {
  Strategy strategy;
  double step_us = 0;  // measured (or predicted) median step time
  double memory_bytes = 0;
};

struct Recommendation {
  std::optional<Strategy> strategy;  // empty: nothing fits
  std::string reason;
};

Recommendation recommend(const std::vector<StrategyOutcome>& outcomes, double gpu_memory_bytes,
                         const StepSettings& settings);

}  // namespace wb::step
