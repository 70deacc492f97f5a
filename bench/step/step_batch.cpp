#include "step/step_batch.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "harness/extra_items.h"
#include "harness/statistics.h"
#include "step/chrome_trace.h"

namespace wb::step {

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

double StepBatch::run() {
  last_ = executor_.run(program_);
  steps_.push_back(last_.step_us);
  computes_.push_back(last_.compute_us);
  timings_.push_back(last_.ops);
  return last_.step_us / 1e6;
}

StepBatch::PredictionMiss StepBatch::largest_miss() {
  // Each collective's own time in a step: from the last rank's start to the last rank's end. A rank
  // that came early and waited for a late one is not the collective's fault: the op before, which
  // made that rank late, is (a 3-rank all_reduce whose extra rank got its result 68 ms after the
  // others once named the all_gather that waited behind it). The median over the timed steps,
  // against what the prediction gave it: the one over by the most explains a step slower than
  // predicted, the one under by the most a step faster. What ran beside it in the last step says
  // whether it shared the wire or the CPU.
  const std::size_t ops = program_.ops.size();
  std::vector<double> mine;
  for (std::size_t i = warmup_steps_; i < timings_.size(); ++i)
    for (const OpTiming& t : timings_[i]) {
      mine.push_back(t.start_us);
      mine.push_back(t.end_us);
    }
  const std::size_t per_rank = mine.size();
  const std::vector<double> all = control_.all_gather_values(mine, per_rank);
  const std::size_t steps = per_rank / (2 * std::max<std::size_t>(ops, 1));
  PredictionMiss worst;
  double worst_over = 0;
  const double direction = outcome_.step_us >= predicted_.step_us ? 1 : -1;
  for (std::size_t op = 0; op < ops; ++op) {
    if (program_.ops[op].kind != OpKind::kCollective) continue;
    std::vector<double> own;
    for (std::size_t i = 0; i < steps; ++i) {
      double last_start = 0, last_end = 0;
      for (int r = 0; r < control_.size(); ++r) {
        const std::size_t at = static_cast<std::size_t>(r) * per_rank + 2 * (i * ops + op);
        last_start = std::max(last_start, all[at]);
        last_end = std::max(last_end, all[at + 1]);
      }
      own.push_back(std::max(0.0, last_end - last_start));
    }
    if (own.empty()) continue;
    const double measured = summarize(own).median;
    const double predicted = predicted_.ops[op].end_us - predicted_.ops[op].start_us;
    if (direction * (measured - predicted) <= worst_over) continue;
    worst_over = direction * (measured - predicted);
    worst = {program_.ops[op].label, measured, predicted, {}};
    const OpTiming& t = last_.ops[op];
    for (std::size_t other = 0; other < ops; ++other) {
      const Op& o = program_.ops[other];
      if (other == op || o.kind == OpKind::kHostWait) continue;
      const OpTiming& u = last_.ops[other];
      if (std::min(t.end_us, u.end_us) - std::max(t.start_us, u.start_us) <= 0) continue;
      const std::string what = o.kind == OpKind::kCompute ? "compute" : o.label;
      if (worst.beside.find(what) == std::string::npos) worst.beside += (worst.beside.empty() ? "" : ", ") + what;
    }
  }
  return worst;
}

std::string StepBatch::extra_after_run() {
  // The slowest rank's step, step by step, as the harness times it; compute is each rank's own.
  // The harness's warm-up steps come first; they are not part of the medians.
  std::vector<double> slowest, compute;
  for (std::size_t i = warmup_steps_; i < steps_.size(); ++i) {
    slowest.push_back(control_.max(steps_[i]));
    compute.push_back(computes_[i]);
  }
  outcome_.step_us = summarize(slowest).median;
  outcome_.compute_us = control_.max(summarize(compute).median);
  outcome_.exposed_us = std::max(0.0, outcome_.step_us - outcome_.compute_us);
  outcome_.predicted = predicted_;
  // Each timed step replayed with its own operations' durations by the program's rules, the
  // slowest rank's per step, and the median over steps: the statistic the step itself is (a sum of
  // per-operation medians would sit below it wherever durations have a long tail).
  std::vector<double> replayed;
  for (std::size_t i = warmup_steps_; i < timings_.size(); ++i) {
    std::vector<double> durations;
    for (const OpTiming& t : timings_[i]) durations.push_back(t.end_us - t.start_us);
    replayed.push_back(control_.max(replay(program_, durations).step_us));
  }
  outcome_.replayed_us = replayed.empty() ? 0.0 : summarize(replayed).median;
  outcome_.measured_by_kind = collective_time_by_kind(program_, last_);
  const PredictionMiss miss = largest_miss();
  outcome_.predicted_by_kind = collective_time_by_kind(program_, predicted_);
  const auto events = control_.all_gather(trace_events(program_, last_, predicted_, control_.rank()));
  if (control_.is_root()) write_chrome_trace(trace_path_, events);

  ExtraItems extra;
  extra.set("compute_us", number(outcome_.compute_us))
      .set("exposed_us", number(outcome_.exposed_us))
      .set("exposed_pct", number(100 * outcome_.exposed_us / outcome_.step_us))
      .set("comm_us", number(control_.max(communication_busy_us(program_, last_))))
      .set("predicted_us", number(predicted_.step_us))
      .set("predicted_compute_us", number(predicted_.compute_us))
      .set("predicted_comm_us", number(communication_busy_us(program_, predicted_)))
      .set("predicted_exposed_us", number(predicted_.exposed_us()))
      .set("replayed_us", number(outcome_.replayed_us))
      .set("judge", "prediction");  // judged against predicted_us, made before the steps ran (issue 56)
  if (!miss.label.empty())
    extra.set("miss_op", miss.label)
        .set("miss_op_us", number(miss.measured_us))
        .set("miss_op_predicted_us", number(miss.predicted_us))
        .set("miss_op_beside", miss.beside.empty() ? "nothing" : miss.beside);
  for (const auto& [kind, bytes] : bytes_by_kind(program_)) {
    std::string key = "bytes_" + kind;
    std::replace(key.begin(), key.end(), '@', '_');  // all_gather@shard -> bytes_all_gather_shard: a key
    extra.set(key, bytes);
  }
  extra.set("memory_GB", number(outcome_.memory_bytes / 1e9))
      .set("trace", std::filesystem::path(trace_path_).filename().string());
  return extra.text();
}

}  // namespace wb::step
