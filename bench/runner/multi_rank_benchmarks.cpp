#include "runner/multi_rank_benchmarks.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <unistd.h>

#include "comm/mpi_deadline_wait.h"
#include "harness/console_view.h"
#include "harness/errors.h"
#include "harness/extra_items.h"
#include "harness/flow_samples.h"
#include "harness/option_parser.h"
#include "harness/rank_presence.h"
#include "harness/results_csv_writer.h"
#include "harness/results_reporter.h"
#include "harness/statistics.h"

namespace wb {
namespace {

// Google Benchmark's table (--console gbench) without its context block: wirebench prints its own
// run header, and the "Library was built as DEBUG" line of Debian's libbenchmark says nothing
// about wirebench's timings (the harness, not the library, times every batch).
class GbenchTable final : public benchmark::ConsoleReporter {
 public:
  using ConsoleReporter::ConsoleReporter;
  bool ReportContext(const Context& context) override {
    name_field_width_ = context.name_field_width;
    printed_header_ = false;
    prev_counters_.clear();
    return true;
  }
};

std::unique_ptr<benchmark::BenchmarkReporter> make_display_reporter(const std::vector<std::string>& args) {
  std::string format = "console";
  bool color = isatty(STDOUT_FILENO) != 0;
  for (const auto& arg : args) {
    if (arg.starts_with("--benchmark_format=")) format = arg.substr(std::string("--benchmark_format=").size());
    if (arg.starts_with("--benchmark_color=")) {
      const std::string value = arg.substr(std::string("--benchmark_color=").size());
      color = value == "true" || value == "yes" || value == "1" || (value == "auto" && color);
    }
  }
  if (format == "json") return std::make_unique<benchmark::JSONReporter>();
  if (format == "console")
    return std::make_unique<GbenchTable>(color ? benchmark::ConsoleReporter::OO_ColorTabular
                                               : benchmark::ConsoleReporter::OO_Tabular);
  // Google Benchmark's own CSV reporter is deprecated; results.csv is the CSV of every run.
  throw UsageError("--benchmark_format: '" + format + "' is not console or json (CSV is always in results.csv)");
}

}  // namespace

const char* rank_time_name(RankTime how) {
  switch (how) {
    case RankTime::kRank0: return "rank0";
    case RankTime::kAverage: return "avg";
    case RankTime::kFastest: return "min";
    case RankTime::kSlowest: return "max";
  }
  return "max";
}

void declare_harness_options(OptionParser& parser, HarnessOptions& options, const HarnessSpellings& spellings) {
  parser.group("Run");
  parser.value("--run-dir", "DIR", "where results.csv and meta.json go (default .)",
               [&](const std::string& v) {
                 options.run_dir = v;
                 options.run_dir_given = true;
               });
  parser.value(spellings.timeout, "SECONDS",
               "longest any wait may take before the run is aborted with a message naming the rank (default 60)" +
                   spellings.timeout_note,
               [&options, zero = spellings.timeout_zero_keeps_default](const std::string& v) {
                 if (zero && v == "0") return;  // nccl-tests' "no timeout": wirebench always keeps one
                 options.timeout = std::chrono::milliseconds(static_cast<long>(parse_positive_seconds("timeout", v) * 1000.0));
               });
  parser.value("--console", "STYLE",
               "what rank 0 prints: " + std::string(spellings.nccl_console ? "nccl-tests (default), " : "") +
                   "plain (one line per measurement, the median" + (spellings.nccl_console ? "" : "; default") +
                   ") or gbench (Google Benchmark's table)",
               [&options, nccl = spellings.nccl_console](const std::string& v) {
                 if (v != "plain" && v != "gbench" && !(nccl && v == "nccl-tests"))
                   throw UsageError("--console: '" + v + "' is not " + (nccl ? "nccl-tests, " : "") + "plain or gbench");
                 options.console = v;
               });
  parser.group("Sampling (how many samples: docs/results.md)");
  parser.value("--warmup", "N", "untimed batches before each measurement (default 2, and at least a tenth of the minimum time)",
               [&](const std::string& v) {
                 options.warmup_batches = static_cast<int>(parse_whole_number("--warmup", v, 0));
               });
  parser.value("--benchmark_min_time", "SECONDS|Nx",
               "the least each measurement takes (default 0.5; Nx: exactly N samples)", [&](const std::string& v) {
                 // Google Benchmark's spelling: "0.2", "0.2s" (seconds) or "50x" (exactly 50 samples here).
                 if (v.ends_with('x')) {
                   const std::string count = v.substr(0, v.size() - 1);
                   if (count.empty() || count.find_first_not_of("0123456789") != std::string::npos || std::stoul(count) == 0)
                     throw UsageError("--benchmark_min_time: '" + v + "' is not SECONDS, SECONDSs or COUNTx");
                   options.sampling.fixed_samples = std::stoul(count);
                 } else {
                   options.sampling.fixed_samples.reset();  // seconds replace a default count
                   options.sampling.min_seconds =
                       parse_positive_seconds("benchmark_min_time", v.ends_with('s') ? v.substr(0, v.size() - 1) : v);
                 }
               });
  parser.value("--min-samples", "N", "the fewest timed batches behind a figure (default 5)", [&](const std::string& v) {
    options.sampling.min_samples = static_cast<std::size_t>(parse_whole_number("--min-samples", v, 1));
  });
  parser.value("--max-spread", "PCT",
               "the smallest and largest size of a sweep take samples until (p95-p05)/median is at most PCT "
               "percent (default 2) ...",
               [&](const std::string& v) { options.sampling.max_spread = parse_positive_seconds("max-spread", v) / 100.0; });
  parser.value("--max-time", "SECONDS", "... or this time is spent (default twice the minimum time)",
               [&](const std::string& v) { options.sampling.max_seconds = parse_positive_seconds("max-time", v); });
}

MultiRankBenchmarks::MultiRankBenchmarks(MpiControl& control, HarnessOptions options)
    : control_(control), options_(std::move(options)) {}

MultiRankBenchmarks::~MultiRankBenchmarks() = default;

void MultiRankBenchmarks::add(CaseInfo info, BatchFactory make_batch) {
  const std::string name = info.name;
  if (cases_.count(name)) throw std::logic_error("benchmark registered twice: " + name);
  order_.push_back(name);
  factories_[name] = std::move(make_batch);
  cases_.emplace(name, std::move(info));
}

void MultiRankBenchmarks::add_unmeasured(ResultRow row) { unmeasured_.push_back(std::move(row)); }

const std::vector<ResultRow>& MultiRankBenchmarks::written_rows() const {
  static const std::vector<ResultRow> kNone;
  return writer_ ? writer_->written() : kNone;
}

int MultiRankBenchmarks::run(const CommandLine& args, const RunMetadata& meta) {
  std::vector<std::string> gb_args = args.benchmark_arguments();
  if (!options_.json_file.empty()) {
    gb_args.push_back("--benchmark_out=" + options_.json_file);
    gb_args.push_back("--benchmark_out_format=json");
  }
  if (control_.is_root()) {
    std::filesystem::create_directories(options_.run_dir);
    writer_ = std::make_unique<ResultsCsvWriter>(options_.run_dir + "/results.csv");
    write_run_metadata(options_.run_dir + "/meta.json", meta);
    // wirebench's console unless Google Benchmark's table or JSON is asked for.
    const bool json_display =
        std::any_of(gb_args.begin(), gb_args.end(), [](const std::string& a) { return a == "--benchmark_format=json"; });
    if (json_display || options_.console == "gbench") console_.reset();
    else if (!console_) console_ = make_plain_console(stdout);
    if (!json_display && options_.console == "gbench")
      std::fputs(run_header(meta, "Time: the median batch per operation (time_us is the same median)").c_str(), stdout);
    if (console_) console_->begin(meta);
    for (const auto& row : unmeasured_) {
      writer_->write(row);
      if (console_) console_->row(row);
    }
  } else {
    // Other ranks run the same benchmarks but print and write nothing.
    std::erase_if(gb_args, [](const std::string& a) { return a.starts_with("--benchmark_out"); });
    if (std::freopen("/dev/null", "w", stdout) == nullptr) throw CallError("cannot silence stdout");
  }
  control_.barrier();  // rank 0's files are in place (or it has aborted with the reason)
  // Every rank's heartbeat, so that a failure names the peer at fault (harness/rank_presence.h).
  const std::string job = control_.all_gather(std::to_string(getpid()) + "-" + std::to_string(time(nullptr)))[0];
  presence_ = std::make_unique<RankPresence>(options_.run_dir + "/.ranks", control_.rank(), control_.size(),
                                             rank_label(), job);
  set_rank_presence(presence_.get());

  // One pass of Google Benchmark's loop per measurement (a batch counts as its operations): the
  // sampling rule decides how many batches it takes (harness/sampling.h), so Google Benchmark must
  // accept its first pass; the time it shows is the median batch's. (The flag, not Iterations(),
  // which would rename every benchmark.)
  gb_args.insert(gb_args.begin() + 1, "--benchmark_min_time=1e-9");
  std::vector<char*> argv;
  for (auto& a : gb_args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  benchmark::Initialize(&argc, argv.data());
  if (argc > 1) throw UsageError(std::string("unknown Google Benchmark option ") + argv[1]);

  mark_judged_cases();
  for (const auto& name : order_) {
    benchmark::RegisterBenchmark(name.c_str(), [this, name](benchmark::State& state) { measure(state, name); })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  }
  if (control_.is_root()) {
    ResultsReporter reporter(console_ ? nullptr : make_display_reporter(gb_args), console_.get(), cases_, *writer_);
    benchmark::RunSpecifiedBenchmarks(&reporter);
  } else {
    SilentReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
  }
  benchmark::Shutdown();
  current_ = nullptr;
  control_.barrier();  // every rank done before the heartbeats stop
  set_rank_presence(nullptr);
  presence_.reset();
  return total_errors_ > 0 ? kExitFailed : kExitOk;
}

void MultiRankBenchmarks::measure(benchmark::State& state, const std::string& name) {
  CaseInfo& info = cases_.at(name);
  current_ = &info;
  presence_->entering(name);
  std::unique_ptr<TimedBatch> batch = factories_.at(name)();
  const std::uint64_t ops = batch->ops_per_batch();

  const std::string step = "the start of a batch of " + name;
  const std::string agreement = name;
  // Warm-up: --warmup batches, and at least a tenth of the minimum time (agreed by all ranks), so
  // a pair's first measurement does not time its connection being set up (seen on the virtual
  // cluster: a first 8 B ping-pong at 6x its siblings' median with two batches of warm-up).
  const auto warmup_start = std::chrono::steady_clock::now();
  for (int i = 0; options_.warmup_batches > 0; ++i) {
    batch->prepare(next_sample_++);
    control_.barrier(&step);
    batch->run();
    const double warm_seconds = control_.max(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - warmup_start).count(), &agreement);
    if (i + 1 >= options_.warmup_batches && warm_seconds >= 0.1 * options_.sampling.min_seconds) break;
  }

  std::vector<double> per_op_us;
  std::vector<double> batch_seconds;
  std::uint64_t local_errors = 0;
  SampleSizer sizer(options_.sampling, judged_[name]);
  FlowSamples flows(info, ops, options_.sampling, judged_[name]);
  const auto started = std::chrono::steady_clock::now();
  const std::string agreement_time = name + " (its elapsed time)";
  while (state.KeepRunningBatch(static_cast<benchmark::IterationCount>(ops))) {
    double elapsed = 0;
    do {
      const std::uint64_t sample = next_sample_++;
      batch->prepare(sample);
      // Every rank starts the timed batch only when all have prepared: otherwise one rank's clock
      // would include waiting for a peer still filling or verifying its buffers.
      control_.barrier(&step);
      const double mine = batch->run();
      // Flows measured at once: every rank's clock, each flow timed by its own ranks; the sample
      // is the slowest flow's (the round's) time.
      double seconds = 0;
      if (flows.empty()) {
        seconds = ranks_time(mine, agreement);
      } else {
        const std::vector<double> times = control_.all_gather_values(mine, &agreement);
        seconds = flows.add(times, flows.slots() ? control_.all_gather_values(batch->flow_seconds(), flows.slots(), &agreement)
                                                 : std::vector<double>{});
      }
      local_errors += batch->verify(sample);
      batch_seconds.push_back(seconds);
      per_op_us.push_back(seconds / static_cast<double>(ops) * 1e6);
      elapsed = control_.max(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
                             &agreement_time);
    } while (flows.empty() ? sizer.wants_more(per_op_us, elapsed) : flows.want_more(elapsed));
    state.SetIterationTime(summarize(batch_seconds).median);
  }
  for (int i = 0; i < batch->check_runs(); ++i) {
    control_.barrier(&step);
    local_errors += batch->check(next_sample_++);
  }
  const std::vector<double> rank_errors =
      flows.empty() ? std::vector<double>{} : control_.all_gather_values(static_cast<double>(local_errors));
  const std::uint64_t errors = control_.sum(local_errors);
  total_errors_ += errors;
  if (per_op_us.empty()) return;
  // The reporter builds the row from this case once the function returns: details the batch
  // computed go in now (replacing a previous repetition's).
  if (!base_extra_.count(name)) base_extra_[name] = info.row.extra;
  ExtraItems extra = ExtraItems::parse(base_extra_[name]);
  if (const std::string more = batch->extra_after_run(); !more.empty()) extra.merge(ExtraItems::parse(more));
  const bool checked = batch->checks_data();
  if (!flows.empty()) {
    info.flow_results = flows.rows(checked, rank_errors);
    extra.set("slowest", flows.slowest(info.flow_results));
  }
  info.row.extra = extra.text();

  const Summary s = summarize(per_op_us);
  ResultRow row = measured_row(info, s.median, s.p05, s.p95, per_op_us.size() * ops,
                               checked ? std::optional(errors) : std::nullopt);
  row.samples = per_op_us.size();
  row.spread_pct = 100 * s.relative_spread;
  state.counters[counter::kMedianUs] = s.median;
  state.counters[counter::kP05Us] = s.p05;
  state.counters[counter::kP95Us] = s.p95;
  if (!std::isnan(row.algbw_GBps)) {  // a latency has no bandwidth: no column of "nan"
    state.counters[counter::kAlgbw] = row.algbw_GBps;
    state.counters[counter::kBusbw] = row.busbw_GBps;
  }
  if (checked) state.counters[counter::kErrors] = static_cast<double>(errors);
  state.counters[counter::kOps] = static_cast<double>(row.iters);
  state.counters[counter::kSamples] = static_cast<double>(row.samples);
  state.counters[counter::kSpreadPct] = row.spread_pct;
  presence_->finished(name);
}

double MultiRankBenchmarks::ranks_time(double seconds, const std::string& what) {
  switch (options_.rank_time) {
    case RankTime::kRank0: return control_.from_root(seconds, &what);
    case RankTime::kAverage: return control_.mean(seconds, &what);
    case RankTime::kFastest: return control_.min(seconds, &what);
    case RankTime::kSlowest: break;
  }
  return control_.max(seconds, &what);
}

void MultiRankBenchmarks::mark_judged_cases() {
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> extremes;  // sweep -> smallest, largest size
  auto sweep_of = [](const ResultRow& r) {
    return r.bench + "|" + r.case_name + "|" + r.backend + "|" + r.src + "|" + r.dst + "|" + r.direction + "|" +
           r.op + "|" + r.dtype + "|" + ExtraItems::parse(r.extra).identity_text();
  };
  for (const auto& [name, info] : cases_) {
    auto [it, fresh] = extremes.try_emplace(sweep_of(info.row), info.row.bytes, info.row.bytes);
    it->second.first = std::min(it->second.first, info.row.bytes);
    it->second.second = std::max(it->second.second, info.row.bytes);
  }
  for (const auto& [name, info] : cases_) {
    const auto& [smallest, largest] = extremes.at(sweep_of(info.row));
    judged_[name] = info.row.bytes == smallest || info.row.bytes == largest;
  }
}

void MultiRankBenchmarks::record_interruption(const std::string& reason) {
  if (writer_ == nullptr || current_ == nullptr) return;
  std::vector<ResultRow> rows;
  for (const FlowInfo& flow : current_->flows) rows.push_back(flow.row);
  if (current_->flows.empty() || current_->aggregate_row) rows.push_back(current_->row);
  for (ResultRow& row : rows) {
    row.status = RowStatus::kError;
    row.reason = reason;
    writer_->write(row);
  }
}

}  // namespace wb
