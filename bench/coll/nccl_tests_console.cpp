#include "coll/nccl_tests_console.h"

#include <cmath>

#include "comm/collective.h"
#include "harness/extra_items.h"

namespace wb {
namespace {

// nccl-tests' names for the types it shares with wirebench.
std::string nccl_tests_type(const std::string& dtype) {
  if (dtype == "float32") return "float";
  if (dtype == "float16") return "half";
  if (dtype == "float64") return "double";
  return dtype;
}

class NcclTestsConsole final : public ConsoleView {
 public:
  NcclTestsConsole(std::FILE* out, NcclTestsHeader header, std::function<std::uint64_t(const ResultRow&)> count_of)
      : out_(out), header_(std::move(header)), count_of_(std::move(count_of)) {}

  void begin(const RunMetadata& meta) override {
    std::fputs(header_.parameters.c_str(), out_);
    std::fputs("#\n# Using devices\n", out_);
    std::fputs(header_.devices.c_str(), out_);
    std::fputs("#\n", out_);
    std::fputs(run_header(meta, header_.timing_rule).c_str(), out_);
    std::fflush(out_);
  }

  void row(const ResultRow& r) override {
    if (r.op != collective_) {
      finish_line();
      collective_ = r.op;
      print_columns();
    }
    if (r.status != RowStatus::kOk) {
      finish_line();
      std::fprintf(out_, "# %s %s %s %s: %s\n", std::string(to_string(r.status)).c_str(), r.op.c_str(),
                   r.dtype.c_str(), r.case_name.c_str(), r.reason.c_str());
      std::fflush(out_);
      return;
    }
    const std::string key = r.op + "|" + r.dtype + "|" + ExtraItems::parse(r.extra).identity_text() + "|" +
                            std::to_string(r.bytes);
    const bool in_place = r.case_name == "in_place";
    if (open_ && (key != key_ || in_place == false)) finish_line();
    if (!open_) {
      const ExtraItems extra = ExtraItems::parse(r.extra);
      const std::string redop = extra.get("redop").value_or("none");
      const std::string root = extra.get("root").value_or("-1");
      std::fprintf(out_, "%12llu  %12llu  %8s  %6s  %6s", static_cast<unsigned long long>(r.bytes),
                   static_cast<unsigned long long>(count_of_(r)), nccl_tests_type(r.dtype).c_str(), redop.c_str(),
                   root.c_str());
      if (in_place) std::fprintf(out_, "  %7s  %6s  %6s  %5s", "", "", "", "");  // no out-of-place figure
      open_ = true;
      key_ = key;
    }
    std::fprintf(out_, "  %7s  %6.2f  %6.2f  %5s", nccl_tests_time(r.time_us).c_str(), r.algbw_GBps, r.busbw_GBps,
                 r.errors ? std::to_string(*r.errors).c_str() : "N/A");
    if (r.errors && *r.errors > 0) ++wrong_tests_;
    if (!std::isnan(r.busbw_GBps)) {
      busbw_sum_ += r.busbw_GBps;
      ++busbw_count_;
    }
    if (in_place) finish_line();
    std::fflush(out_);
  }

  void end() override {
    finish_line();
    std::fprintf(out_, "# Out of bounds values : %llu %s\n", static_cast<unsigned long long>(wrong_tests_),
                 wrong_tests_ ? "FAILED" : "OK");
    std::fprintf(out_, "# Avg bus bandwidth    : %g \n#\n", busbw_count_ ? busbw_sum_ / busbw_count_ : 0.0);
    std::fflush(out_);
  }

 private:
  void print_columns() {
    std::fprintf(out_, "#\n# %s\n", collective_.c_str());
    std::fprintf(out_, "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n",
                 "", "", "", "", "");
    std::fprintf(out_, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s\n", "size", "count", "type",
                 "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
    std::fprintf(out_, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s\n", "(B)", "(elements)", "",
                 "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  }

  void finish_line() {
    if (!open_) return;
    std::fputc('\n', out_);
    open_ = false;
  }

  std::FILE* out_;
  NcclTestsHeader header_;
  std::function<std::uint64_t(const ResultRow&)> count_of_;
  std::string collective_;
  std::string key_;
  bool open_ = false;
  std::uint64_t wrong_tests_ = 0;  // sizes and placements with any wrong element, as nccl-tests counts
  double busbw_sum_ = 0;
  std::uint64_t busbw_count_ = 0;
};

}  // namespace

std::string nccl_tests_time(double us) {
  char text[32];
  if (std::isnan(us)) return "-";
  if (us >= 10000.0) std::snprintf(text, sizeof text, "%7.0f", us);
  else if (us >= 100.0) std::snprintf(text, sizeof text, "%7.1f", us);
  else std::snprintf(text, sizeof text, "%7.2f", us);
  return text;
}

std::unique_ptr<ConsoleView> make_nccl_tests_console(std::FILE* out, NcclTestsHeader header,
                                                     std::function<std::uint64_t(const ResultRow&)> count_of) {
  return std::make_unique<NcclTestsConsole>(out, std::move(header), std::move(count_of));
}

}  // namespace wb
