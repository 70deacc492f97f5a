// wb-step: DDP / FSDP / ZeRO training-step emulation on MPI, with the cost model's prediction
// beside every measurement and a recommendation. See step_options.h for the command line.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include "comm/mpi_control.h"
#include "coll/nccl_backend.h"
#include "gpu/gpu_runtime_info.h"
#include "harness/judging.h"
#include "harness/extra_items.h"
#include "runner/benchmark_main.h"
#include "harness/install_layout.h"
#include "harness/link_class.h"
#include "runner/multi_rank_benchmarks.h"
#include "harness/results_csv_writer.h"
#include "harness/run_metadata.h"
#include "harness/size_spec.h"
#include "harness/statistics.h"
#include "step/calibration.h"
#include "step/calibration_file.h"
#include "step/core_sharing.h"
#include "step/prediction_errors.h"
#include "step/forced_algorithm.h"
#include "step/memory_model.h"
#include "step/step_batch.h"
#include "step/step_groups.h"
#include "step/mpi_step_executor.h"
#include "step/nccl_step_executor.h"
#include "step/step_options.h"
#include "step/what_if.h"

extern char** environ;

namespace wb::step {
namespace {

class StepRun {
 public:
  StepRun(MpiProgram& program, const StepOptions& options, const CommandLine& args)
      : program_(program), options_(options), args_(args), control_(MPI_COMM_WORLD, options.harness.timeout),
        harness_(control_, options.harness) {}

  MultiRankBenchmarks& harness() { return harness_; }

  int run() {
    if (options_.what_if) return what_if(*options_.what_if);
    const auto hosts = control_.all_gather(program_.host());
    const std::set<std::string> nodes(hosts.begin(), hosts.end());
    const int ranks = program_.size();
    nodes_ = static_cast<int>(nodes.size());
    // Ranks per core of the busiest machine: the model assumes a core per rank (core_sharing.h).
    std::vector<std::pair<std::string, int>> machines;
    for (const std::string& m : control_.all_gather(machine_identity() + " " + std::to_string(usable_cores()))) {
      const auto space = m.rfind(' ');
      machines.emplace_back(m.substr(0, space), std::atoi(m.c_str() + space + 1));
    }
    ranks_per_core_ = ranks_per_core(machines);
    StepSettings settings = options_.settings;
    settings.ranks = ranks;
    settings.shard_group = options_.shard_group.value_or(
        nodes.size() > 1 && ranks % static_cast<int>(nodes.size()) == 0 ? ranks / static_cast<int>(nodes.size())
        : ranks % 2 == 0                                                 ? ranks / 2
                                                                         : ranks);
    // Tensor parallelism: its groups are the shard groups (T consecutive ranks).
    if (settings.tensor_parallel > 1) settings.shard_group = settings.tensor_parallel;
    if (settings.expert_parallel > 1) settings.shard_group = settings.expert_parallel;
    check_shard_group(settings.shard_group, ranks);
    const Model model = load_model(options_.model, suites_dir() + "/models");

    ResultRow base;
    base.bench = "step";
    base.backend = options_.backend;
    base.link_class = nodes.size() == 1 ? "shm" : options_.link_class.value_or(detect_network_link_class());
    base.src = model.shape.name;
    base.dst = options_.wiring.empty() ? "world" : options_.wiring;
    base.direction = "uni";
    base.op = "step";
    base.dtype = settings.param_bytes == 2 ? "bf16" : "fp32";
    base.ranks = ranks;
    base.nodes = static_cast<int>(nodes.size());
    std::filesystem::create_directories(options_.harness.run_dir);

    // Every rank takes the same decision: run the backend, or write SKIP rows with the reason.
    const auto skip = options_.backend == "nccl" ? control_.first_reason(nccl_step_unavailable()) : std::nullopt;
    if (skip) {
      for (Strategy strategy : options_.strategies) {
        ResultRow row = base;
        row.case_name = plan_name(strategy, settings);
        row.status = RowStatus::kSkip;
        row.reason = *skip;
        harness_.add_unmeasured(row);
      }
      return harness_.run(args_, program_.run_metadata(hosts, args_, gpu_library_versions()));
    }
    if (options_.backend == "nccl")
      executor_ = make_nccl_step_executor(MPI_COMM_WORLD, settings.shard_group, options_.harness.timeout, options_.scale);
    else
      executor_ = std::make_unique<MpiStepExecutor>(MPI_COMM_WORLD, settings.shard_group, options_.harness.timeout,
                                                    options_.scale);
    if (options_.measure_tflops) {
      // The rate of the model's layer GEMM (tokens x h by h x h) on this GPU; the slowest rank's
      // sets everyone's compute, as the slowest GPU sets a synchronous step.
      const double mine = measure_step_tflops(static_cast<int>(settings.tokens), static_cast<int>(model.shape.hidden),
                                              static_cast<int>(model.shape.hidden), options_.harness.timeout);
      settings.tflops = -control_.max(-mine);
      if (control_.is_root())
        std::printf("compute rate: %.1f TFLOP/s measured (bf16 GEMM %g x %llu x %llu, slowest rank)\n", settings.tflops,
                    settings.tokens, static_cast<unsigned long long>(model.shape.hidden),
                    static_cast<unsigned long long>(model.shape.hidden));
    }
    for (Strategy s : options_.strategies) programs_.push_back(make_program(model, s, settings));
    outcomes_.resize(programs_.size());
    predicted_.resize(programs_.size());
    std::vector<CalibrationPoint> calibration;
    if (options_.fits) {
      costs_ = CollectiveCosts::from_fits_csv(*options_.fits, base.link_class);
      // Every collective of every program must have a cost before anything runs.
      for (const Program& p : programs_)
        for (const Op& op : p.ops) {
          const int n = p.group_sizes[static_cast<int>(op.group)];
          if (op.kind != OpKind::kCollective || n <= 1) continue;
          try {
            costs_.predict_us(op.collective, n, 1.0, static_cast<int>(op.group), op.element_bytes);
          } catch (const std::out_of_range&) {
            throw UsageError("--fits " + *options_.fits + " has no " + base.link_class + " fit for " +
                             describe(op.collective).name + " on " + std::to_string(n) + " ranks (run wb-coll with " +
                             "--collective " + describe(op.collective).name + " on this wiring first)");
          }
        }
    } else if (options_.calibration) {
      // Links fitted near the sizes this run calls: the file may come from another scale or model.
      const CallSizes needed = call_sizes(programs_, options_.scale);
      std::vector<std::string> notes;
      const auto file = read_calibration_csv(*options_.calibration);
      for (const CalibrationPoint& c : file) calibration_ranks_per_core_ = std::max(calibration_ranks_per_core_, c.ranks_per_core);
      costs_ = costs_from_calibration(file, follows_mpich(), &needed, &notes);
      if (control_.is_root())
        for (const std::string& note : notes)
          std::fprintf(stderr, "wb-step: --calibration %s: %s\n", options_.calibration->c_str(), note.c_str());
    } else {
      costs_ = calibrate(programs_, *executor_, control_, options_.scale, follows_mpich(), &calibration);
      for (CalibrationPoint& c : calibration) c.ranks_per_core = ranks_per_core_;
    }
    if (control_.is_root()) print_calibration(calibration);
    if (control_.is_root() && options_.forced_algorithm)
      std::printf("%s\n", forced_algorithm_note(*options_.forced_algorithm, options_.backend).c_str());

    for (std::size_t i = 0; i < programs_.size(); ++i) {
      const Program& p = programs_[i];
      // Collectives of groups that cross nodes share the NIC when they run at once.
      predicted_[i] = predict_step(p, costs_, options_.scale,
                                   groups_crossing_nodes(p, p.ranks / std::max(1, nodes_), nodes_));
      const double apart_us = predict_step(p, costs_, options_.scale).step_us;
      outcomes_[i].strategy = options_.strategies[i];
      outcomes_[i].memory_bytes = memory_per_rank(options_.strategies[i], model, settings);
      CaseInfo info;
      info.row = base;
      info.row.case_name = p.strategy;
      std::uint64_t moved = 0;
      for (const Op& op : p.ops)
        if (op.kind == OpKind::kCollective) moved += scaled_bytes(op, p.group_sizes[static_cast<int>(op.group)], options_.scale);
      info.row.bytes = moved;
      ExtraItems extra;
      extra.set("scale", number(options_.scale)).set("tokens", number(settings.tokens));
      if (settings.activation_checkpointing) extra.set("activation_checkpointing", "1");
      extra.set("activations_GB",
                number(activation_bytes(model.shape, settings.tokens, settings.activation_checkpointing) / 1e9));
      extra.set("tflops", number(settings.tflops));
      if (options_.measure_tflops) extra.set("tflops_measured", "1");
      extra.set("costs", options_.fits          ? std::string("fits.csv")
                        : options_.calibration ? "calibration " + std::filesystem::path(*options_.calibration).filename().string()
                                               : std::string("calibrated")).merge(path_settings_extra(environ));
      if (p.strategy == "fsdp-hybrid") extra.set("shard_group", static_cast<std::uint64_t>(settings.shard_group));
      // Ranks that share cores, and what the calibration's run shared (the reporter holds them apart).
      if (ranks_per_core_ > 1) extra.set("ranks_per_core", number(ranks_per_core_));
      if (options_.calibration && (ranks_per_core_ > 1 || calibration_ranks_per_core_ > 1))
        extra.set("calibration_ranks_per_core",
                  calibration_ranks_per_core_ > 0 ? number(calibration_ranks_per_core_) : std::string("unknown"));
      // What the link's sharing adds: the prediction as if collectives at once had a link each.
      if (std::abs(apart_us - predicted_[i].step_us) > 1e-3 * predicted_[i].step_us)
        extra.set("predicted_apart_us", number(apart_us));
      info.row.extra = extra.text();
      // judged: the step against the cost model's prediction; measured again by the same run (all its strategies)
      info.row.judged = judged_text({{"time_us", JudgedAt::kEach, JudgedAgainst::kPrediction}});
      info.row.rerun = "mpiexec -n " + std::to_string(ranks) + " wb-step " + shell_join(args_.arguments());
      info.name = "step/" + p.strategy + "/" + model.shape.name + (options_.wiring.empty() ? "" : "/" + options_.wiring);
      const std::string trace = options_.harness.run_dir + "/step_trace_" + model.shape.name + "_" + p.strategy +
                                (options_.wiring.empty() ? "" : "_" + options_.wiring) + ".json";
      harness_.add(std::move(info), [this, i, trace] {
        return std::make_unique<StepBatch>(programs_[i], *executor_, control_, predicted_[i], outcomes_[i], trace,
                                           options_.harness.warmup_batches);
      });
    }
    const int code = harness_.run(args_, program_.run_metadata(hosts, args_, gpu_library_versions()));
    if (control_.is_root()) print_summary(model, settings);
    executor_.reset();
    control_.barrier();  // every rank reaches MPI_Finalize together
    return code;
  }

 private:
  // No measurement: the programs for clusters of those shapes, played on link figures.
  int what_if(const WhatIfRequest& request) {
    if (!control_.is_root()) return kExitOk;  // one process answers
    const Model model = load_model(options_.model, suites_dir() + "/models");
    print_what_if(model, options_.strategies, options_.settings, request, options_.shard_group,
                  options_.gpu_memory_GB * 1e9);
    print_error_bands();
    return kExitOk;
  }

  // How far this model's predictions missed measured steps here: the band to read them with.
  void print_error_bands() const {
    const std::string path = suites_dir() + "/step-prediction-errors.csv";
    const std::vector<PredictionError> errors = read_prediction_errors(path);
    std::string machine;
    int runs = 0;
    for (const PredictionError& e : errors) machine = e.machine, runs = std::max(runs, e.runs);
    std::printf("\nhow far this model's prediction missed measured steps (%% of the step, min..max, by node count; "
                "%d runs each on the %s; MPICH, calibrated before the steps: not these links, nor NCCL; %s):\n",
                runs, machine.c_str(), path.c_str());
    for (Strategy s : options_.strategies) {
      const std::string band = error_band(errors, strategy_name(s));
      std::printf("  %-18s %s\n", (std::string(strategy_name(s)) + ":").c_str(), band.empty() ? "not measured" : band.c_str());
    }
  }

  // MPICH picks the algorithm itself unless --algorithm forces one (then the calibration measured that).
  bool follows_mpich() const { return options_.backend == "mpi" && !options_.forced_algorithm; }

  void print_calibration(const std::vector<CalibrationPoint>& calibration) const {
    if (options_.fits) {
      std::printf("cost model: fits from %s\n", options_.fits->c_str());
      return;
    }
    if (options_.calibration) {
      std::printf("cost model: calibration from %s (group sizes it did not measure: %s on each collective's link)\n",
                  options_.calibration->c_str(), follows_mpich() ? "the algorithm MPICH runs there" : "ring");
      return;
    }
    // Every measured point, for whoever wants to check the fits, or to predict a larger run from.
    // Named by the wiring as the traces are: a suite that steps over two wirings keeps both.
    const std::string name = "step_calibration" + (options_.wiring.empty() ? "" : "_" + options_.wiring) + ".csv";
    write_calibration_csv(options_.harness.run_dir + "/" + name, calibration);
    std::printf("cost model calibration (t = alpha + S beta, %zu collectives; points in %s):\n", calibration.size(),
                name.c_str());
    for (const auto& c : calibration)
      std::printf("  %-15s %-9s %2d ranks %s %-8s alpha %9.1f us  %8.3f GB/s  (%zu sizes up to %s)\n",
                  describe(c.op).name, group_name(c.group), c.ranks, c.element_bytes == 2 ? "bf16" : "fp32",
                  context_name(c.context),
                  c.fit.alpha_us, c.fit.bandwidth_GBps(), c.points.size(),
                  c.points.empty() ? "-" : format_size(c.points.back().bytes).c_str());
    std::fflush(stdout);
  }

  void print_summary(const Model& model, const StepSettings& settings) const {
    std::printf("\n%s (%.3g B parameters), %d ranks on %d node(s)%s, scale %g, %g tokens/rank at %g TFLOP/s\n",
                model.shape.name.c_str(), static_cast<double>(model.parameters()) / 1e9, settings.ranks,
                nodes_, options_.wiring.empty() ? "" : (", wiring " + options_.wiring).c_str(),
                options_.scale, settings.tokens, settings.tflops);
    // predicted: the links' alpha-beta fit; replayed: the step's own operations under the overlap rules
    std::printf("%-17s %10s %10s %10s %8s %12s %8s %11s %8s %12s %12s\n", "strategy", "step ms", "compute ms",
                "exposed ms", "exposed%", "predicted ms", "error%", "replayed ms", "error%", "MB (S)/step", "memory/rank");
    std::vector<StrategyOutcome> ranking;
    for (std::size_t i = 0; i < programs_.size(); ++i) {
      const Outcome& o = outcomes_[i];
      if (o.step_us <= 0) continue;  // filtered out
      double bytes = 0;
      for (const auto& [kind, b] : bytes_by_kind(programs_[i])) bytes += static_cast<double>(b);
      std::printf("%-17s %10.2f %10.2f %10.2f %8.1f %12.2f %+8.1f %11.2f %+8.1f %12.1f %9.3g GB\n",
                  plan_name(o.strategy, settings).c_str(), o.step_us / 1e3, o.compute_us / 1e3, o.exposed_us / 1e3,
                  100 * o.exposed_us / o.step_us, o.predicted.step_us / 1e3,
                  100 * (o.predicted.step_us - o.step_us) / o.step_us, o.replayed_us / 1e3,
                  100 * (o.replayed_us - o.step_us) / o.step_us, bytes / 1e6, o.memory_bytes / 1e9);
      ranking.push_back({o.strategy, o.step_us, o.memory_bytes});
    }
    std::printf("\ncollectives per step (bytes S at model scale; time measured in the last step / predicted):\n");
    for (std::size_t i = 0; i < programs_.size(); ++i) {
      const Outcome& o = outcomes_[i];
      if (o.step_us <= 0) continue;
      std::printf("  %-17s", plan_name(o.strategy, settings).c_str());
      for (const auto& [kind, bytes] : bytes_by_kind(programs_[i]))
        std::printf("  %s %.1f MB %.2f/%.2f ms", kind.c_str(), static_cast<double>(bytes) / 1e6, o.measured_by_kind.at(kind) / 1e3,
                    o.predicted_by_kind.at(kind) / 1e3);
      std::printf("   [%s]\n", programs_[i].variant_note.c_str());
    }
    const Recommendation r = recommend(ranking, options_.gpu_memory_GB * 1e9, settings);
    std::printf("\nrecommendation: %s\n", r.reason.c_str());
    std::printf("%s\n(step traces in %s)\n", memory_note(model.shape, settings).c_str(),
                options_.harness.run_dir.c_str());
  }


  MpiProgram& program_;
  const StepOptions& options_;
  const CommandLine& args_;
  MpiControl control_;
  MultiRankBenchmarks harness_;
  int nodes_ = 1;
  double ranks_per_core_ = 1;              // this run's busiest machine (core_sharing.h)
  double calibration_ranks_per_core_ = 0;  // --calibration's run; 0: its file did not record it
  std::vector<Program> programs_;
  std::unique_ptr<StepExecutor> executor_;
  CollectiveCosts costs_;
  std::vector<Outcome> outcomes_;
  std::vector<Timeline> predicted_;
};

}  // namespace
}  // namespace wb::step

int main(int argc, char** argv) {
  wb::step::force_algorithm_early(argc, argv);  // before MPI_Init and NCCL read the environment
  return wb::benchmark_main<wb::step::StepRun, wb::step::StepOptions>(
      argc, argv, wb::step::step_help,
      [](wb::CommandLine& args, const wb::MpiProgram&) { return wb::step::parse_step_options(args); },
      MPI_THREAD_FUNNELED);  // only the main thread calls MPI (mpi_step_executor.h)
}
