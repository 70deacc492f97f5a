#include "harness/results_reporter.h"

#include <cmath>

#include "harness/extra_items.h"

namespace wb {
namespace {

double counter_or_nan(const benchmark::BenchmarkReporter::Run& run, const char* name) {
  const auto it = run.counters.find(name);
  return it == run.counters.end() ? kNotMeasured : it->second.value;
}

}  // namespace

ResultsReporter::ResultsReporter(std::unique_ptr<benchmark::BenchmarkReporter> display, ConsoleView* console,
                                 const std::map<std::string, CaseInfo>& cases, ResultsCsvWriter& writer)
    : display_(std::move(display)), console_(console), cases_(cases), writer_(writer) {}

bool ResultsReporter::ReportContext(const Context& context) { return !display_ || display_->ReportContext(context); }

void ResultsReporter::Finalize() {
  if (display_) display_->Finalize();
  if (console_) console_->end();
}

void ResultsReporter::ReportRuns(const std::vector<Run>& runs) {
  if (display_) display_->ReportRuns(runs);
  for (const Run& run : runs) {
    if (run.run_type != Run::RT_Iteration) continue;  // mean/median/stddev of repetitions
    const auto found = cases_.find(run.run_name.function_name);
    if (found == cases_.end()) continue;
    const CaseInfo& info = found->second;
    ResultRow row;
    if (run.error_occurred) {
      row = info.row;
      row.status = RowStatus::kError;
      row.reason = run.error_message;
    } else {
      const double errors = counter_or_nan(run, counter::kErrors);  // absent: data not checked
      row = measured_row(info, counter_or_nan(run, counter::kMedianUs), counter_or_nan(run, counter::kP05Us),
                         counter_or_nan(run, counter::kP95Us),
                         static_cast<std::uint64_t>(counter_or_nan(run, counter::kOps)),
                         std::isnan(errors) ? std::nullopt : std::optional(static_cast<std::uint64_t>(errors)));
      row.samples = static_cast<std::uint64_t>(counter_or_nan(run, counter::kSamples));
      row.spread_pct = counter_or_nan(run, counter::kSpreadPct);
    }
    // A case of flows measured at once writes a row per flow, and its own row only as their aggregate.
    std::vector<ResultRow> rows;
    if (run.error_occurred) {
      for (const FlowInfo& flow : info.flows) {
        ResultRow failed = flow.row;
        failed.status = RowStatus::kError;
        failed.reason = run.error_message;
        rows.push_back(std::move(failed));
      }
    } else {
      rows = info.flow_results;
    }
    if (info.flows.empty() || info.aggregate_row) rows.push_back(row);
    for (ResultRow& each : rows) {
      if (run.repetitions > 1)
        each.extra =
            ExtraItems::parse(each.extra).set("repetition", static_cast<std::uint64_t>(run.repetition_index)).text();
      writer_.write(each);
      if (console_) console_->row(each);
    }
  }
}

}  // namespace wb
