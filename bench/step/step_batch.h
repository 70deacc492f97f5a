// One training step per timed batch of the multi-rank harness, and what the measurement of one
// strategy came to (for wb-step's summary). The harness times each step (slowest rank); the batch
// keeps each rank's own step and compute time for the exposed-communication split, writes the
// Chrome trace of the last step of every rank, and gives the row its step details.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "comm/mpi_control.h"
#include "harness/timed_batch.h"
#include "step/step_executor.h"
#include "step/strategy.h"

namespace wb::step {

struct Outcome {
  Strategy strategy = Strategy::kDdp;
  double step_us = 0, compute_us = 0, exposed_us = 0;  // medians over the timed steps
  Timeline predicted;
  double replayed_us = 0;  // the run's own operation durations replayed under the program's rules
  std::map<std::string, double> measured_by_kind, predicted_by_kind;  // collective time per kind
  double memory_bytes = 0;
};

class StepBatch final : public TimedBatch {
 public:
  StepBatch(const Program& program, StepExecutor& executor, MpiControl& control, const Timeline& predicted,
            Outcome& outcome, std::string trace_path, int warmup_steps)
      : program_(program), executor_(executor), control_(control), predicted_(predicted), outcome_(outcome),
        trace_path_(std::move(trace_path)), warmup_steps_(static_cast<std::size_t>(warmup_steps)) {}

  std::uint64_t ops_per_batch() const override { return 1; }
  void prepare(std::uint64_t) override {}
  double run() override;
  std::uint64_t verify(std::uint64_t) override { return 0; }
  bool checks_data() const override { return false; }  // a step moves bytes; wb-coll checks them
  // Collective over the ranks: medians, the trace, and the row's key=value details.
  std::string extra_after_run() override;

 private:
  struct PredictionMiss {
    std::string label;  // the collective, as the program names it ("reduce_scatter layer3")
    double measured_us = 0, predicted_us = 0;
    std::string beside;  // what overlapped it in the last step: "compute, all_gather layer2"
  };
  // The collective that missed its prediction the most in the step's direction (over for a step
  // slower than predicted, under for a faster one). Every rank calls it: it gathers every rank's
  // times of every timed step.
  PredictionMiss largest_miss();
  const Program& program_;
  StepExecutor& executor_;
  MpiControl& control_;
  const Timeline& predicted_;
  Outcome& outcome_;
  std::string trace_path_;
  std::size_t warmup_steps_;
  Timeline last_;
  std::vector<double> steps_, computes_;
  std::vector<std::vector<OpTiming>> timings_;  // per step: each operation's start and end on this rank
};

// "%.6g" of a number, for key=value details.
std::string number(double value);

}  // namespace wb::step
