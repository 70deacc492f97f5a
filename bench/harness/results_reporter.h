// A Google Benchmark reporter that writes one results.csv row per measured run, flushed at once. Descriptive columns come
// from the CaseInfo registered under the benchmark's name, numbers from the run's counters.
#pragma once

#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>

#include "harness/case_info.h"
#include "harness/console_view.h"
#include "harness/results_csv_writer.h"

namespace wb {

// Counter names the harness sets and the reporter reads.
namespace counter {
inline constexpr const char* kMedianUs = "time_us";
inline constexpr const char* kP05Us = "p05_us";
inline constexpr const char* kP95Us = "p95_us";
inline constexpr const char* kAlgbw = "algbw_GBps";
inline constexpr const char* kBusbw = "busbw_GBps";
inline constexpr const char* kErrors = "errors";
inline constexpr const char* kOps = "ops";
inline constexpr const char* kSamples = "samples";
inline constexpr const char* kSpreadPct = "spread_pct";
}  // namespace counter

class ResultsReporter final : public benchmark::BenchmarkReporter {
 public:
  // `display`: Google Benchmark's table or JSON (--console gbench, --benchmark_format json), or
  // null; `console`: wirebench's own view of the rows (console_view.h), or null.
  ResultsReporter(std::unique_ptr<benchmark::BenchmarkReporter> display, ConsoleView* console,
                  const std::map<std::string, CaseInfo>& cases, ResultsCsvWriter& writer);

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  std::unique_ptr<benchmark::BenchmarkReporter> display_;
  ConsoleView* console_;
  const std::map<std::string, CaseInfo>& cases_;
  ResultsCsvWriter& writer_;
};

// Reports nothing: what ranks other than 0 use, so only rank 0 prints.
class SilentReporter final : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace wb
