// Google Benchmark for several ranks. Every rank registers the same benchmarks in the same
// order. Each sample's time is the slowest rank's (an all-reduce of the batch time), and that
// agreed time is the manual time Google Benchmark sees, so its iteration-count decisions are
// identical on every rank and no rank waits for a batch another rank never runs. Only rank 0
// prints, writes results.csv (a row per measured run, flushed at once) and meta.json.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "comm/mpi_control.h"
#include "harness/case_info.h"
#include "harness/command_line.h"
#include "harness/run_metadata.h"
#include "harness/sampling.h"
#include "harness/timed_batch.h"

namespace benchmark {
class State;
}

namespace wb {

class ResultsCsvWriter;
class RankPresence;

struct HarnessOptions {
  std::string run_dir = ".";                 // results.csv and meta.json go here
  std::chrono::milliseconds timeout{60000};  // the longest any single wait may take
  int warmup_batches = 2;                    // untimed batches before each measurement
  SamplingRule sampling;                     // how many timed batches each measurement takes
};

// Takes --run-dir, --timeout SECONDS, --warmup N and the sampling options (--benchmark_min_time,
// --min-samples N, --max-spread PERCENT, --max-time SECONDS: harness/sampling.h) from the command line.
HarnessOptions take_harness_options(CommandLine& args);

class MultiRankBenchmarks {
 public:
  using BatchFactory = std::function<std::unique_ptr<TimedBatch>()>;

  MultiRankBenchmarks(MpiControl& control, HarnessOptions options);
  ~MultiRankBenchmarks();

  void add(CaseInfo info, BatchFactory make_batch);
  // A row that is written as it is (SKIP or ERROR with its reason) when the run starts.
  void add_unmeasured(ResultRow row);

  // Runs what --benchmark_filter selects. Returns kExitOk, or kExitFailed when any data error
  // was found (the same answer on every rank).
  int run(const CommandLine& args, const RunMetadata& meta);

  // On rank 0: writes an ERROR row with `reason` for the case being measured, if any, so that the
  // run directory says what was interrupted. Used by the program's failure handler.
  void record_interruption(const std::string& reason);

  const HarnessOptions& options() const { return options_; }

 private:
  void measure(benchmark::State& state, const std::string& name);
  // The cases the reporter judges: the smallest and largest size of each sweep (cases that differ
  // only in size and batching), which take samples until their spread settles.
  void mark_judged_cases();

  MpiControl& control_;
  HarnessOptions options_;
  std::vector<std::string> order_;
  std::map<std::string, CaseInfo> cases_;
  std::map<std::string, bool> judged_;
  std::map<std::string, std::string> base_extra_;  // each case's extra before extra_after_run
  std::map<std::string, BatchFactory> factories_;
  std::vector<ResultRow> unmeasured_;
  std::unique_ptr<ResultsCsvWriter> writer_;  // rank 0 only
  std::unique_ptr<RankPresence> presence_;   // while run() runs
  const CaseInfo* current_ = nullptr;
  std::uint64_t next_sample_ = 0;
  std::uint64_t total_errors_ = 0;
};

}  // namespace wb
