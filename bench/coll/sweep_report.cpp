#include "coll/sweep_report.h"

#include <array>
#include <cstdio>
#include <fstream>
#include <map>

#include "coll/fits_file.h"
#include "coll/sweep_summary.h"
#include "harness/extra_items.h"
#include "harness/results_csv_writer.h"
#include "harness/size_spec.h"

namespace wb {

void report_sweeps(const std::vector<ResultRow>& rows, const std::string& run_dir, bool print) {
  std::map<std::string, std::vector<SweepPoint>> sweeps;
  std::map<std::string, ResultRow> firsts;
  for (const ResultRow& r : rows) {
    if (r.bench != "coll" || r.status != RowStatus::kOk) continue;
    const std::string key = r.op + " " + r.dtype + " " + r.case_name + " " + ExtraItems::parse(r.extra).identity_text();
    sweeps[key].push_back({r.bytes, r.time_us, r.busbw_GBps});
    firsts.emplace(key, r);
  }
  if (sweeps.empty()) return;
  const std::string fits_path = run_dir + "/fits.csv";
  const bool new_file = !std::ifstream(fits_path).good();
  std::ofstream fits(fits_path, std::ios::app);
  if (new_file) fits << csv_line(kFitsColumns);
  if (print) std::printf("\n%-15s %-9s %-13s %12s %10s %14s %12s %10s %10s\n", "op", "dtype", "placement", "peak busbw",
              "at", "80% of peak", "latency us", "alpha us", "fit GB/s");
  for (const auto& [key, points] : sweeps) {
    const ResultRow& r = firsts.at(key);
    const SweepSummary s = summarize_sweep(points);
    const auto fit = fit_alpha_beta(points);
    if (print) std::printf("%-15s %-9s %-13s %12.4g %10s %14s %12.4g %10s %10s\n", r.op.c_str(), r.dtype.c_str(),
                r.case_name.c_str(), s.peak_busbw_GBps, format_size(s.peak_bytes).c_str(),
                s.bytes_at_80pct ? format_size(*s.bytes_at_80pct).c_str() : "-", s.small_latency_us,
                fit ? std::to_string(fit->alpha_us).substr(0, 8).c_str() : "-",
                fit ? std::to_string(fit->bandwidth_GBps()).substr(0, 8).c_str() : "-");
    const std::array<std::string, kFitsColumns.size()> fields = {
        "coll", r.op, r.dtype, r.case_name, r.backend, r.link_class, std::to_string(r.ranks), std::to_string(r.nodes),
        fit ? std::to_string(fit->alpha_us) : "", fit ? std::to_string(fit->beta_us_per_byte) : "",
        fit ? std::to_string(fit->bandwidth_GBps()) : "", std::to_string(points.size()),
        std::to_string(s.peak_busbw_GBps), std::to_string(s.peak_bytes),
        s.bytes_at_80pct ? std::to_string(*s.bytes_at_80pct) : "", std::to_string(s.small_latency_us),
        std::to_string(s.small_bytes), ExtraItems::parse(r.extra).identity_text()};
    fits << csv_line(fields);
  }
  if (print) std::printf("(alpha-beta fits in %s)\n", fits_path.c_str());
}

}  // namespace wb
