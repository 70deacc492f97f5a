#include "harness/console_view.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace wb {
namespace {

class PlainConsole final : public ConsoleView {
 public:
  PlainConsole(std::FILE* out, std::string notes) : out_(out), notes_(std::move(notes)) {}

  void begin(const RunMetadata& meta) override {
    std::fputs(run_header(meta, "time: median of the timed batches per operation (p05 and p95 beside it), of the "
                                "slowest rank; GB/s = 10^9 bytes/s").c_str(), out_);
    if (!notes_.empty()) std::fprintf(out_, "# %s\n", notes_.c_str());
    std::fprintf(out_, "#\n# %-14s %-40s %12s %10s %10s %10s %8s %8s %7s %7s %6s\n", "case", "src -> dst", "size(B)",
                 "time(us)", "p05(us)", "p95(us)", "algbw", "busbw", "samples", "spread%", "#wrong");
    std::fflush(out_);
  }

  void row(const ResultRow& r) override {
    const std::string what = r.case_name.empty() ? r.op : r.case_name;
    const std::string between = r.dst.empty() ? r.src : r.src + " -> " + r.dst;
    if (r.status != RowStatus::kOk) {
      std::fprintf(out_, "  %-14s %-40s %12llu  %s: %s\n", what.c_str(), between.c_str(),
                   static_cast<unsigned long long>(r.bytes), std::string(to_string(r.status)).c_str(), r.reason.c_str());
    } else {
      std::fprintf(out_, "  %-14s %-40s %12llu %10s %10s %10s %8s %8s %7llu %7s %6s\n", what.c_str(), between.c_str(),
                   static_cast<unsigned long long>(r.bytes), plain_number(r.time_us).c_str(),
                   plain_number(r.time_us_p05).c_str(), plain_number(r.time_us_p95).c_str(),
                   plain_number(r.algbw_GBps).c_str(), plain_number(r.busbw_GBps).c_str(),
                   static_cast<unsigned long long>(r.samples), plain_number(r.spread_pct).c_str(),
                   r.errors ? std::to_string(*r.errors).c_str() : "N/A");
    }
    std::fflush(out_);
  }

  void end() override {}

 private:
  std::FILE* out_;
  std::string notes_;
};

}  // namespace

std::string plain_number(double value) {
  if (std::isnan(value)) return "-";
  char text[48];
  if (value == 0 || std::fabs(value) >= 1000) {
    std::snprintf(text, sizeof text, "%.0f", value);
  } else {  // 4 significant digits in fixed notation: 813.8, 4.915, 0.01717
    const int decimals = std::clamp(3 - static_cast<int>(std::floor(std::log10(std::fabs(value)))), 0, 9);
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
  }
  return text;
}

std::string run_header(const RunMetadata& meta, const std::string& timing_rule) {
  const std::string program =
      meta.command_line.empty() ? "wirebench" : std::filesystem::path(meta.command_line.front()).filename().string();
  std::string text = "# " + program + " (wirebench " + meta.version + ") on " + std::to_string(meta.ranks) +
                     (meta.ranks == 1 ? " rank, " : " ranks, ") + std::to_string(meta.hosts.size()) +
                     (meta.hosts.size() == 1 ? " node:" : " nodes:");
  for (const auto& host : meta.hosts) text += " " + host;
  text += "\n";
  for (const auto& [library, version] : meta.versions) text += "# " + library + ": " + version + "\n";
  text += "# " + timing_rule + "\n";
  return text;
}

std::unique_ptr<ConsoleView> make_plain_console(std::FILE* out, std::string notes) {
  return std::make_unique<PlainConsole>(out, std::move(notes));
}

}  // namespace wb
