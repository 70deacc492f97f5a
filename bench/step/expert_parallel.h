// Mixture of experts with expert parallelism (GShard: Lepikhin et al. 2020; DeepSpeed-MoE:
// Rajbhandari et al. 2022): every layer's MLP is `experts` expert MLPs and a router; each token
// goes to top_k of them. E consecutive ranks (Group::kShard) split the experts, X / E each; before
// the experts an all_to_all sends every token's hidden state (b x s x h x top_k, bf16) to the ranks
// holding its experts, after them a second all_to_all brings the outputs back: 2 in forward, 2 in
// backward, per layer, on the critical path. The dense parameters (attention, norms, router,
// embeddings) are data-parallel over every rank; each expert's gradients over the ranks / E ranks
// holding the same experts (Group::kReplicate). The data-parallel strategy runs the dense part over
// every rank as it would alone, and the experts over their replicas in the same way (DeepSpeed-MoE's
// expert-data-parallel group): DDP reduces each layer's experts after that layer's backward; FSDP
// gathers a layer's experts before its forward (FULL_SHARD: and before its backward) and
// reduce_scatters their gradients; ZeRO-1/2 reduce them (stage 2 per layer, stage 1 after backward)
// and gather the updated experts after the optimizer (docs/step-emulation.md).
#pragma once

#include "step/model.h"
#include "step/program.h"
#include "step/strategy.h"

namespace wb::step {

bool is_mixture_of_experts(const Model& model);
// The layers without their experts (attention, norms, router) and the root: what every rank holds.
Model dense_part(const Model& model);
// Parameters of one expert MLP.
std::uint64_t expert_parameters(const ModelShape& shape);
// Bytes of one expert all_to_all: the rank's tokens x top_k hidden states, bf16.
std::uint64_t expert_all_to_all_bytes(const ModelShape& shape, const StepSettings& settings);

// Throws UsageError unless E divides the ranks and the experts, the strategy is ddp, fsdp-full,
// fsdp-grad-op, zero1 or zero2 (paper variants too) and the run has no tensor parallelism.
Program make_expert_parallel_program(const Model& model, Strategy strategy, const StepSettings& settings);

}  // namespace wb::step
