// Mixture of experts with expert parallelism (GShard: Lepikhin et al. 2020; DeepSpeed-MoE:
// Rajbhandari et al. 2022): every layer's MLP is `experts` expert MLPs and a router; each token
// goes to top_k of them. E consecutive ranks (Group::kShard) split the experts, X / E each; before
// the experts an all_to_all sends every token's hidden state (b x s x h x top_k, bf16) to the ranks
// holding its experts, after them a second all_to_all brings the outputs back: 2 in forward, 2 in
// backward, per layer, on the critical path. The dense parameters (attention, norms, router,
// embeddings) are data-parallel over every rank; each expert's gradients over the ranks / E ranks
// holding the same experts (Group::kReplicate), reduced after that layer's backward. The data
// parallelism is DDP's (buckets for the dense part; an all_reduce per layer for the experts).
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

// Throws UsageError unless the strategy is DDP, E divides the ranks and the experts, and the run has
// no tensor parallelism.
Program make_expert_parallel_program(const Model& model, Strategy strategy, const StepSettings& settings);

}  // namespace wb::step
