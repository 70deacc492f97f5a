// Strategies and their settings, with the frameworks' defaults (docs/step-emulation.md), and the generator
// of each strategy's step program from a model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "step/model.h"
#include "step/program.h"

namespace wb::step {

enum class Strategy {
  kDdp,         // PyTorch DistributedDataParallel
  kFsdpFull,    // FSDP FULL_SHARD
  kFsdpGradOp,  // FSDP SHARD_GRAD_OP
  kFsdpHybrid,  // FSDP HYBRID_SHARD
  kZero1,       // DeepSpeed ZeRO stage 1, as DeepSpeed ships it
  kZero2,
  kZero3,
  kZero1Paper,  // ZeRO as the paper describes it (arXiv 1910.02054)
  kZero2Paper,
  kZero3Paper,
};
const char* strategy_name(Strategy s);  // ddp, fsdp-full, ..., zero3-paper
std::vector<Strategy> all_strategies();
// A comma-separated list of names, or "all"; throws UsageError naming the unknown one.
std::vector<Strategy> parse_strategies(const std::string& text);

enum class Prefetch { kPre, kPost, kNone };  // FSDP backward_prefetch
const char* prefetch_name(Prefetch p);
Prefetch parse_prefetch(const std::string& text);

struct StepSettings {
  int ranks = 1;
  int shard_group = 1;  // HYBRID_SHARD: ranks per shard group (a divisor of ranks)

  // Compute: 6 P FLOPs per token (2 forward, 4 backward) at `tflops`, for `tokens` per rank and
  // step; the optimizer streams `optimizer_bytes_per_param` per local parameter at `hbm_GBps`.
  // Activation checkpointing (of every layer, not the head) recomputes each layer's forward in
  // its backward: 8 P FLOPs per token (docs/step-emulation.md), and only the layers' inputs are kept.
  double tokens = 4096;
  bool activation_checkpointing = false;
  double tflops = 400;
  double hbm_GBps = 3000;
  double optimizer_bytes_per_param = 32;

  // Precision: gathered parameters and reduced gradients of FSDP and ZeRO (fp32: 4, bf16: 2).
  // DDP reduces fp32 gradients under autocast either way.
  int param_bytes = 4;
  int grad_bytes = 4;

  // DDP
  std::uint64_t bucket_cap_bytes = 25ull << 20;
  std::uint64_t first_bucket_bytes = 1ull << 20;
  // PyTorch's default (false): each gradient is copied into its bucket and back (docs/step-emulation.md),
  // and the buckets are one more copy of the gradients in memory.
  bool gradient_as_bucket_view = false;

  // FSDP
  Prefetch backward_prefetch = Prefetch::kPre;
  bool limit_all_gathers = true;
  int max_inflight_all_gathers = 2;

  // DeepSpeed (sizes in elements, as its config counts them)
  std::uint64_t reduce_bucket_elements = 500000000;
  std::uint64_t allgather_bucket_elements = 500000000;
  std::uint64_t prefetch_bucket_elements = 50000000;
  std::uint64_t max_live_parameters = 1000000000;
  std::uint64_t max_reuse_distance = 1000000000;
  std::uint64_t persistence_threshold = 100000;
  std::optional<bool> overlap_comm;  // default: on for stage 3 only

  // Megatron tensor parallelism (step/tensor_parallel.h): T consecutive ranks share every layer;
  // the data-parallel strategy runs over ranks / T.
  int tensor_parallel = 1;
  bool sequence_parallel = false;
  // Expert parallelism of a mixture of experts (step/expert_parallel.h): E consecutive ranks split
  // the experts.
  int expert_parallel = 1;
};

// "ddp", "tp8+ddp" with tensor parallelism, "ep8+ddp" with expert parallelism: what tables and
// rows call the strategy.
std::string plan_name(Strategy s, const StepSettings& settings);

struct PlanSpec {
  Strategy strategy = Strategy::kDdp;
  int tensor_parallel = 1, expert_parallel = 1;
  bool operator==(const PlanSpec&) const = default;
};
// A --strategy item with an optional "tpT+" or "epE+" prefix ("tp4+fsdp-full"; "tp4" or "ep8" alone
// is with ddp). Throws UsageError naming the bad item.
PlanSpec parse_plan(const std::string& item);

// Compute durations of the model's parts, in microseconds.
double forward_us(std::uint64_t matmul_parameters, const StepSettings& s);
// Backward of a part whose forward takes `forward`: twice its FLOPs, plus the forward again for a
// layer (`recomputable`) under activation checkpointing.
double backward_us(double forward, const StepSettings& s, bool recomputable);
double optimizer_us(std::uint64_t local_parameters, const StepSettings& s);
// A device-memory copy of `bytes` (read and write) at hbm_GBps.
double device_copy_us(std::uint64_t bytes, const StepSettings& s);

// Elements of a tensor (or flat parameter) padded to a multiple of the shard count.
std::uint64_t padded(std::uint64_t elements, int shards);

Program make_program(const Model& model, Strategy strategy, const StepSettings& settings);

// The generators behind make_program, one file each.
Program make_ddp_program(const Model& model, const StepSettings& settings);
Program make_fsdp_program(const Model& model, Strategy strategy, const StepSettings& settings);
Program make_zero_program(const Model& model, Strategy strategy, const StepSettings& settings);

}  // namespace wb::step
