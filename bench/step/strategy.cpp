#include "step/strategy.h"

#include "harness/command_line.h"
#include "harness/errors.h"
#include "step/expert_parallel.h"
#include "step/tensor_parallel.h"

namespace wb::step {

const char* strategy_name(Strategy s) {
  switch (s) {
    case Strategy::kDdp: return "ddp";
    case Strategy::kFsdpFull: return "fsdp-full";
    case Strategy::kFsdpGradOp: return "fsdp-grad-op";
    case Strategy::kFsdpHybrid: return "fsdp-hybrid";
    case Strategy::kZero1: return "zero1";
    case Strategy::kZero2: return "zero2";
    case Strategy::kZero3: return "zero3";
    case Strategy::kZero1Paper: return "zero1-paper";
    case Strategy::kZero2Paper: return "zero2-paper";
    case Strategy::kZero3Paper: return "zero3-paper";
  }
  return "?";
}

std::vector<Strategy> all_strategies() {
  return {Strategy::kDdp,   Strategy::kFsdpFull, Strategy::kFsdpGradOp, Strategy::kFsdpHybrid, Strategy::kZero1,
          Strategy::kZero2, Strategy::kZero3,    Strategy::kZero1Paper, Strategy::kZero2Paper, Strategy::kZero3Paper};
}

std::vector<Strategy> parse_strategies(const std::string& text) {
  if (text == "all") return all_strategies();
  std::vector<Strategy> chosen;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    bool found = false;
    for (Strategy s : all_strategies())
      if (item == strategy_name(s)) {
        chosen.push_back(s);
        found = true;
      }
    if (!found) {
      std::string names;
      for (Strategy s : all_strategies()) names += std::string(names.empty() ? "" : ", ") + strategy_name(s);
      throw UsageError("--strategy: '" + item + "' is not one of all, " + names);
    }
    start = comma + 1;
  }
  return chosen;
}

const char* prefetch_name(Prefetch p) {
  switch (p) {
    case Prefetch::kPre: return "pre";
    case Prefetch::kPost: return "post";
    case Prefetch::kNone: return "none";
  }
  return "?";
}

Prefetch parse_prefetch(const std::string& text) {
  if (text == "pre") return Prefetch::kPre;
  if (text == "post") return Prefetch::kPost;
  if (text == "none") return Prefetch::kNone;
  throw UsageError("--backward-prefetch: '" + text + "' is not pre, post or none");
}

double forward_us(std::uint64_t matmul_parameters, const StepSettings& s) {
  return 2.0 * static_cast<double>(matmul_parameters) * s.tokens / (s.tflops * 1e12) * 1e6;
}

double backward_us(double forward, const StepSettings& s, bool recomputable) {
  return (recomputable && s.activation_checkpointing ? 3.0 : 2.0) * forward;
}

double device_copy_us(std::uint64_t bytes, const StepSettings& s) {
  return 2.0 * static_cast<double>(bytes) / (s.hbm_GBps * 1e9) * 1e6;
}

double optimizer_us(std::uint64_t local_parameters, const StepSettings& s) {
  return static_cast<double>(local_parameters) * s.optimizer_bytes_per_param / (s.hbm_GBps * 1e9) * 1e6;
}

std::uint64_t padded(std::uint64_t elements, int shards) {
  const auto n = static_cast<std::uint64_t>(shards);
  return (elements + n - 1) / n * n;
}

std::string plan_name(Strategy s, const StepSettings& settings) {
  std::string prefix;
  if (settings.tensor_parallel > 1) prefix = "tp" + std::to_string(settings.tensor_parallel) + "+";
  if (settings.expert_parallel > 1) prefix = "ep" + std::to_string(settings.expert_parallel) + "+";
  return prefix + strategy_name(s);
}

PlanSpec parse_plan(const std::string& item) {
  const bool tp = item.rfind("tp", 0) == 0, ep = item.rfind("ep", 0) == 0;
  if (!tp && !ep) return {parse_strategies(item).front()};
  const std::size_t plus = item.find('+');
  const std::string t = item.substr(2, plus == std::string::npos ? std::string::npos : plus - 2);
  int size = 0;
  try {
    size = static_cast<int>(parse_whole_number("--strategy", t, 1));
  } catch (const UsageError&) {
    throw UsageError("--strategy: '" + item + "' is not tpT+STRATEGY or epE+STRATEGY (e.g. tp4+fsdp-full, ep8+ddp)");
  }
  PlanSpec plan;
  plan.strategy = plus == std::string::npos ? Strategy::kDdp : parse_strategies(item.substr(plus + 1)).front();
  (tp ? plan.tensor_parallel : plan.expert_parallel) = size;
  return plan;
}

Program make_program(const Model& model, Strategy strategy, const StepSettings& settings) {
  if (settings.ranks < 1) throw UsageError("a step needs at least one rank");
  if (is_mixture_of_experts(model)) return make_expert_parallel_program(model, strategy, settings);
  if (settings.expert_parallel > 1)
    throw UsageError("ep" + std::to_string(settings.expert_parallel) + "+: " + model.shape.name +
                     " has no experts (a mixture of experts, e.g. mixtral-8x7b)");
  if (settings.tensor_parallel > 1) return make_tensor_parallel_program(model, strategy, settings);
  switch (strategy) {
    case Strategy::kDdp: return make_ddp_program(model, settings);
    case Strategy::kFsdpFull:
    case Strategy::kFsdpGradOp:
    case Strategy::kFsdpHybrid: return make_fsdp_program(model, strategy, settings);
    default: return make_zero_program(model, strategy, settings);
  }
}

}  // namespace wb::step
