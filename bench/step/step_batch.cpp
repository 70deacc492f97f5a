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
  std::vector<double> durations;
  for (const OpTiming& t : last_.ops) durations.push_back(t.end_us - t.start_us);
  durations_.push_back(std::move(durations));
  return last_.step_us / 1e6;
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
  for (std::size_t i = warmup_steps_; i < durations_.size(); ++i)
    replayed.push_back(control_.max(replay(program_, durations_[i]).step_us));
  outcome_.replayed_us = replayed.empty() ? 0.0 : summarize(replayed).median;
  outcome_.measured_by_kind = collective_time_by_kind(program_, last_);
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
      .set("replayed_us", number(outcome_.replayed_us));
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
