#include "cli/model_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "comm/collective.h"
#include "harness/errors.h"
#include "harness/option_parser.h"
#include "harness/results_csv_reader.h"
#include "harness/size_spec.h"
#include "harness/statistics.h"
#include "step/collective_algorithms.h"

namespace wb {
namespace {

using step::Algorithm;

struct ModelOptions {
  std::string results;
  std::string fitted = "ring";
  std::string case_name = "out_of_place";
  std::optional<std::string> csv;
};

void declare_model_options(OptionParser& p, ModelOptions& o) {
  p.value("--results", "FILE|RUN_DIR", "results.csv of wb-coll runs under several algorithms (required)",
          [&o](const std::string& v) { o.results = v; });
  p.value("--fitted", "ALGORITHM",
          "the algorithm whose measurements fit the link (default ring); the others are predicted from it",
          [&o](const std::string& v) { o.fitted = v; });
  p.value("--case", "out_of_place|in_place", "which of wb-coll's cases (default out_of_place)",
          [&o](const std::string& v) { o.case_name = v; });
  p.value("--csv", "FILE", "also write every row (measured, predicted, error) as CSV",
          [&o](const std::string& v) { o.csv = v; });
}

constexpr const char* kModelSynopsis =
    "wirebench model: the cost model's algorithms (docs/algorithms.md) against measured ones. The link\n"
    "(alpha, beta) is fitted on one algorithm's smallest and largest sizes; every other algorithm is\n"
    "predicted from its own formula on that link, without refitting. A row's algorithm is the MPICH\n"
    "variable wb-coll recorded (--mpich-algorithm allreduce=recursive_doubling).\n"
    "usage: wirebench model --results RUN_DIR [--fitted ring] [--csv FILE]";

// One measured collective: op, ranks, algorithm, bytes -> time.
struct Measured {
  CollOp op;
  int ranks, nodes;
  Algorithm algorithm;
  double bytes, time_us;
};

struct Group {
  CollOp op;
  int ranks;
  bool operator<(const Group& o) const { return std::tie(op, ranks) < std::tie(o.op, o.ranks); }
};

std::vector<Measured> measured_rows(const std::string& path, const std::string& case_name, int& unlabelled) {
  const ResultsFile file = read_results_csv(path);
  for (const std::string& problem : file.problems) std::fprintf(stderr, "warning: %s\n", problem.c_str());
  std::vector<Measured> rows;
  for (const ResultRow& row : file.rows) {
    if (row.bench != "coll" || row.case_name != case_name || row.status != RowStatus::kOk || !std::isfinite(row.time_us)) continue;
    const CollOp op = parse_collective(row.op);
    const std::string key = mpich_algorithm_variable(op) + "=";
    const auto at = row.extra.find(key);
    std::optional<Algorithm> algorithm;
    if (at != std::string::npos) {
      const auto start = at + key.size();
      algorithm = step::from_mpich_name(op, row.extra.substr(start, row.extra.find(';', start) - start));
    }
    if (!algorithm) {
      ++unlabelled;
      continue;
    }
    rows.push_back({op, row.ranks, row.nodes, *algorithm, static_cast<double>(row.bytes), row.time_us});
  }
  return rows;
}

// Median time per size of one algorithm (a file can hold repeated runs).
std::map<double, double> times_by_size(const std::vector<Measured>& rows, const Group& g, Algorithm a) {
  std::map<double, std::vector<double>> all;
  for (const Measured& m : rows)
    if (m.op == g.op && m.ranks == g.ranks && m.algorithm == a) all[m.bytes].push_back(m.time_us);
  std::map<double, double> median;
  for (const auto& [bytes, times] : all) median[bytes] = percentile(times, 50);
  return median;
}

// The exact size, between 1 B and max_bytes, where `challenger` stops being faster than `fitted`,
// by bisection on the formulas (nullopt when it is faster nowhere or everywhere in the range).
std::optional<double> predicted_crossover(CollOp op, int ranks, const step::LinkCost& link, Algorithm fitted,
                                          Algorithm challenger, double max_bytes) {
  const auto faster = [&](double n) {
    return step::flat_time_us(op, challenger, ranks, n, link) < step::flat_time_us(op, fitted, ranks, n, link);
  };
  if (faster(1) == faster(max_bytes)) return std::nullopt;
  double lo = 1, hi = max_bytes;
  for (int i = 0; i < 200 && hi - lo > 0.5; ++i) {
    const double mid = std::sqrt(lo * hi) > lo + 1 ? std::sqrt(lo * hi) : (lo + hi) / 2;
    (faster(mid) == faster(1) ? lo : hi) = mid;
  }
  return hi;
}

std::string size_text(double bytes) { return format_size(static_cast<std::uint64_t>(bytes)); }

}  // namespace

std::string model_help() {
  ModelOptions o;
  OptionParser parser("wirebench model", kModelSynopsis);
  declare_model_options(parser, o);
  return parser.help();
}

int run_model_command(CommandLine& args) {
  ModelOptions o;
  OptionParser parser("wirebench model", kModelSynopsis);
  declare_model_options(parser, o);
  parser.parse(args);
  if (args.benchmark_arguments().size() > 1) throw UsageError("unknown option " + args.benchmark_arguments()[1]);
  if (o.results.empty()) throw UsageError("--results: give a run directory or its results.csv");
  if (std::filesystem::is_directory(o.results)) o.results += "/results.csv";
  const Algorithm fitted = step::parse_algorithm(o.fitted);
  if (!step::is_mpi_algorithm(fitted))
    throw UsageError("--fitted " + o.fitted + ": the rows are MPICH's algorithms; give ring, recursive_doubling, "
                     "rabenseifner or binomial");
  int unlabelled = 0;
  const std::vector<Measured> rows = measured_rows(o.results, o.case_name, unlabelled);
  std::set<Group> groups;
  for (const Measured& m : rows) groups.insert({m.op, m.ranks});
  if (groups.empty())
    throw InputError(o.results, 0, "no " + o.case_name + " collective rows with an MPICH algorithm recorded (" +
                                       std::to_string(unlabelled) + " without one)");

  std::ofstream csv;
  if (o.csv) {
    csv.open(*o.csv);
    if (!csv) throw UsageError("--csv: cannot write " + *o.csv);
    csv << "op,ranks,nodes,bytes,algorithm,fit_point,measured_us,predicted_us,error_pct\n";
  }
  for (const Group& g : groups) {
    const std::map<double, double> fit_points = times_by_size(rows, g, fitted);
    if (fit_points.size() < 2) {
      std::printf("%s on %d ranks: %s was measured at %zu size(s); a fit needs two\n", describe(g.op).name, g.ranks,
                  step::algorithm_name(fitted), fit_points.size());
      continue;
    }
    const auto& [n0, t0] = *fit_points.begin();
    const auto& [n1, t1] = *fit_points.rbegin();
    const double beta = (t1 - t0) / (n1 - n0), alpha = t0 - n0 * beta;
    const step::LinkCost link = step::link_from_fit(g.op, fitted, g.ranks, alpha, beta);
    int nodes = 0;
    for (const Measured& m : rows)
      if (m.op == g.op && m.ranks == g.ranks) nodes = m.nodes;
    std::printf("%s on %d ranks (%d nodes): link from %s at %s and %s: alpha %.4g us a message, beta %.4g ns/B "
                "(%.4g MB/s), the reduction folded into beta\n",
                describe(g.op).name, g.ranks, nodes, step::algorithm_name(fitted), size_text(n0).c_str(),
                size_text(n1).c_str(), link.alpha_us, link.beta_us_per_byte * 1e3, 1.0 / link.beta_us_per_byte);
    std::printf("  %10s  %-20s %14s %14s %8s\n", "size", "algorithm", "measured us", "predicted us", "error%");
    std::map<double, std::map<Algorithm, double>> measured;
    for (Algorithm a : step::algorithms_for(g.op))
      for (const auto& [bytes, time] : times_by_size(rows, g, a)) measured[bytes][a] = time;
    for (const auto& [bytes, by_algorithm] : measured) {
      std::optional<Algorithm> fastest_measured, fastest_predicted;
      for (const auto& [a, time] : by_algorithm) {
        const double predicted = step::flat_time_us(g.op, a, g.ranks, bytes, link);
        const double error = 100 * (predicted - time) / time;
        const bool fit_point = a == fitted && (bytes == n0 || bytes == n1);
        std::printf("  %10s  %-20s %14.1f %14.1f %+8.1f%s\n", size_text(bytes).c_str(), step::algorithm_name(a), time,
                    predicted, error, fit_point ? "  (fit point)" : "");
        if (csv.is_open())
          csv << describe(g.op).name << ',' << g.ranks << ',' << nodes << ',' << static_cast<std::uint64_t>(bytes) << ','
              << step::algorithm_name(a) << ',' << (fit_point ? 1 : 0) << ',' << time << ',' << predicted << ','
              << error << '\n';
        if (!fastest_measured || time < by_algorithm.at(*fastest_measured)) fastest_measured = a;
        if (!fastest_predicted || predicted < step::flat_time_us(g.op, *fastest_predicted, g.ranks, bytes, link))
          fastest_predicted = a;
      }
      if (by_algorithm.size() > 1) {
        // Within 5% of each other the measurement cannot say which is faster (its own spread).
        double runner_up = 0;
        for (const auto& [a, time] : by_algorithm)
          if (a != *fastest_measured && (runner_up == 0 || time < runner_up)) runner_up = time;
        const bool tie = runner_up < 1.05 * by_algorithm.at(*fastest_measured);
        std::printf("  %10s  faster: measured %s, predicted %s%s\n", "", step::algorithm_name(*fastest_measured),
                    step::algorithm_name(*fastest_predicted),
                    tie                                       ? "  (measured within 5%: a tie)"
                    : *fastest_measured == *fastest_predicted ? ""
                                                              : "  <- the model is wrong here");
      }
    }
    // Crossovers: where each other algorithm stops (or starts) being faster than the fitted one.
    const double largest = measured.rbegin()->first;
    for (Algorithm a : step::algorithms_for(g.op)) {
      if (a == fitted) continue;
      // Sizes where both were measured and differ by more than 5%, in order: where the faster of
      // the two changes.
      std::vector<std::pair<double, bool>> faster;  // size, challenger faster
      int both = 0;
      for (const auto& [bytes, by_algorithm] : measured) {
        if (!by_algorithm.count(a) || !by_algorithm.count(fitted)) continue;
        ++both;
        const double x = by_algorithm.at(a), y = by_algorithm.at(fitted);
        if (std::max(x, y) >= 1.05 * std::min(x, y)) faster.emplace_back(bytes, x < y);
      }
      if (both == 0) continue;
      std::string measured_text = "within 5% at every size measured (a tie)";
      int flips = 0;
      for (std::size_t i = 1; i < faster.size(); ++i) {
        if (faster[i].second == faster[i - 1].second) continue;
        if (++flips == 1)
          measured_text = "between " + size_text(faster[i - 1].first) + " and " + size_text(faster[i].first);
      }
      if (flips == 0 && !faster.empty())
        measured_text = std::string(faster[0].second ? "faster" : "slower") + " at every size measured apart from ties";
      else if (flips > 1)
        measured_text += " (the order changes " + std::to_string(flips) + " times: noise, or a protocol switch)";
      const auto predicted = predicted_crossover(g.op, g.ranks, link, fitted, a, largest);
      std::printf("  crossover %s against %s: measured %s; predicted %s\n", step::algorithm_name(a),
                  step::algorithm_name(fitted), measured_text.c_str(),
                  predicted ? ("at " + size_text(*predicted)).c_str() : "none in the range");
    }
  }
  if (unlabelled > 0)
    std::printf("(%d row(s) without a recorded MPICH algorithm left out: the library chose for them)\n", unlabelled);
  return kExitOk;
}

}  // namespace wb
