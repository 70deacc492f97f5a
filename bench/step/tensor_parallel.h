// Megatron-style tensor parallelism (Shoeybi et al., "Megatron-LM", 2019; Korthikanti et al.,
// "Reducing Activation Recomputation in Large Transformer Models", 2022) inside a data-parallel
// strategy: T consecutive ranks split every layer's matrices (attention by heads, the MLP by its
// inner dimension) and the embedding and head by vocabulary. Each rank holds and computes 1/T of
// them; per layer, the attention block and the MLP block each end in an all_reduce of the
// activations (b x s x h), in forward and again in backward: 2 + 2 per layer, on the critical path.
// With sequence parallelism each all_reduce becomes an all_gather before the block and a
// reduce_scatter after it (the same bytes on the wire, activations between blocks split T ways).
// The data-parallel strategy (DDP, FSDP, ZeRO 1/2) runs over the D = ranks / T ranks holding the
// same shard (Group::kReplicate); tensor parallelism on Group::kShard.
#pragma once

#include "step/model.h"
#include "step/program.h"
#include "step/strategy.h"

namespace wb::step {

// The model one rank of a T-way group holds: layer matrices and the embedding/head split T ways,
// norms whole.
Model tensor_parallel_shard(const Model& model, int tp);

// The step of `strategy` on ranks / T data-parallel ranks of the shard model, with the tensor
// parallel collectives of `settings` (tensor_parallel, sequence_parallel) added. Throws UsageError
// for a strategy it does not model with tensor parallelism (HYBRID_SHARD, ZeRO-3) or a T that does
// not divide the ranks.
Program make_tensor_parallel_program(const Model& model, Strategy strategy, const StepSettings& settings);

// Bytes of one tensor-parallel collective: the activations of the rank's tokens, bf16.
std::uint64_t tensor_parallel_bytes(const ModelShape& shape, const StepSettings& settings);

}  // namespace wb::step
