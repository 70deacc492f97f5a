// Model-state memory per rank under mixed-precision Adam (ZeRO paper, Figure 1: 2 bytes of
// parameters, 2 of gradients, K = 12 of optimizer state per parameter), and the recommendation:
// the fastest strategy whose model states fit the GPU. Activations and communication buffers
// come on top and are not counted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "step/strategy.h"

namespace wb::step {

// Bytes per rank for P parameters on N ranks (g: HYBRID_SHARD's shard group).
double model_state_bytes(Strategy s, double parameters, int ranks, int shard_group);
std::string memory_formula(Strategy s);  // "16P/N", ...

struct StrategyOutcome {
  Strategy strategy;
  double step_us = 0;  // measured (or predicted) median step time
  double memory_bytes = 0;
};

struct Recommendation {
  std::optional<Strategy> strategy;  // empty: nothing fits
  std::string reason;
};

Recommendation recommend(const std::vector<StrategyOutcome>& outcomes, double gpu_memory_bytes);

}  // namespace wb::step
