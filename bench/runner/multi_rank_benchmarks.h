// Google Benchmark for several ranks. Every rank registers the same benchmarks in the same
// order. Each sample's time is the slowest rank's (an all-reduce of the batch time; wb-coll's -a may ask for
// the average, the fastest or rank 0), and that
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
#include "harness/console_view.h"
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

// How the ranks' times of one batch make the sample: nccl-tests' -a (0 rank 0, 1 average, 2 the
// fastest, 3 the slowest rank). wirebench's binaries judge the slowest rank; wb-coll follows -a.
enum class RankTime { kRank0 = 0, kAverage = 1, kFastest = 2, kSlowest = 3 };

// The `rank_time` item of a row: rank0, avg, min, max.
const char* rank_time_name(RankTime how);

struct HarnessOptions {
  std::string run_dir = ".";                 // results.csv and meta.json go here
  bool run_dir_given = false;                // --run-dir was given (nccl-tests' names write files only then)
  std::chrono::milliseconds timeout{60000};  // the longest any single wait may take
  int warmup_batches = 2;                    // untimed batches before each measurement
  SamplingRule sampling;                     // how many timed batches each measurement takes
  RankTime rank_time = RankTime::kSlowest;   // how ranks' batch times combine
  std::string console = "plain";             // plain | gbench | nccl-tests (wb-coll)
  std::string json_file;                     // also Google Benchmark's JSON here (wb-coll -J)
};

// What differs between the binaries in the shared options' spelling.
struct HarnessSpellings {
  std::string timeout = "--timeout";
  std::string timeout_note;               // added to --timeout's help
  bool timeout_zero_keeps_default = false;  // nccl-tests' -T 0 ("none") keeps wirebench's deadline
  bool nccl_console = false;              // --console nccl-tests is offered (wb-coll)
};

class OptionParser;

// Declares --run-dir, --timeout, --console, --warmup and the sampling options (--benchmark_min_time,
// --min-samples, --max-spread, --max-time: harness/sampling.h), written into `options`.
void declare_harness_options(OptionParser& parser, HarnessOptions& options, const HarnessSpellings& spellings = {});

class MultiRankBenchmarks {
 public:
  using BatchFactory = std::function<std::unique_ptr<TimedBatch>()>;

  MultiRankBenchmarks(MpiControl& control, HarnessOptions options);
  ~MultiRankBenchmarks();

  void add(CaseInfo info, BatchFactory make_batch);
  // What rank 0 prints (--console plain or nccl-tests); the plain view when none is set.
  void set_console(std::unique_ptr<ConsoleView> console) { console_ = std::move(console); }
  // A row that is written as it is (SKIP or ERROR with its reason) when the run starts.
  void add_unmeasured(ResultRow row);

  // Runs what --benchmark_filter selects. Returns kExitOk, or kExitFailed when any data error
  // was found (the same answer on every rank).
  int run(const CommandLine& args, const RunMetadata& meta);

  // On rank 0: writes an ERROR row with `reason` for the case being measured, if any, so that the
  // run directory says what was interrupted. Used by the program's failure handler.
  void record_interruption(const std::string& reason);

  const HarnessOptions& options() const { return options_; }
  // On rank 0 after run(): the rows it wrote to results.csv, in order; empty on the other ranks.
  const std::vector<ResultRow>& written_rows() const;

 private:
  void measure(benchmark::State& state, const std::string& name);
  // The cases the reporter judges: the smallest and largest size of each sweep (cases that differ
  // only in size and batching), which take samples until their spread settles.
  void mark_judged_cases();
  // One batch's time as the sample: the ranks' times combined as --average / the binary says.
  double ranks_time(double seconds, const std::string& what);

  MpiControl& control_;
  HarnessOptions options_;
  std::vector<std::string> order_;
  std::map<std::string, CaseInfo> cases_;
  std::map<std::string, bool> judged_;
  std::map<std::string, std::string> base_extra_;  // each case's extra before extra_after_run
  std::map<std::string, BatchFactory> factories_;
  std::vector<ResultRow> unmeasured_;
  std::unique_ptr<ResultsCsvWriter> writer_;  // rank 0 only
  std::unique_ptr<ConsoleView> console_;     // rank 0 only
  std::unique_ptr<RankPresence> presence_;   // while run() runs
  const CaseInfo* current_ = nullptr;
  std::uint64_t next_sample_ = 0;
  std::uint64_t total_errors_ = 0;
};

}  // namespace wb
