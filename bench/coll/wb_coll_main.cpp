// wb-coll: collective sweeps (all_reduce, all_gather, reduce_scatter, broadcast, reduce,
// all_to_all, send_recv) on MPI host buffers or NCCL device buffers, with nccl-tests' conventions
// (sizes, datatypes, ops, root, in-place and out-of-place, algbw/busbw, checked runs), a summary
// per op and the alpha-beta fit written to fits.csv. See coll_options.h for the command line.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "harness/extra_items.h"
#include "harness/judging.h"
#include "runner/benchmark_main.h"
#include "coll/coll_batch.h"
#include "coll/coll_options.h"
#include "coll/sweep_report.h"
#include "comm/mpi_communicator.h"
#include "comm/mpi_control.h"
#include "comm/watchdog.h"
#include "gpu/gpu_runtime_info.h"
#include "harness/checked_mpi.h"
#include "harness/errors.h"
#include "harness/link_class.h"
#include "runner/mpi_program.h"
#include "harness/results_csv_writer.h"
#include "harness/run_metadata.h"
#include "harness/size_spec.h"
#include "coll/nccl_backend.h"
#include "coll/nccl_tests_console.h"
#include "harness/console_view.h"
#include <unistd.h>

extern char** environ;

namespace wb {
namespace {

const char* placement_name(Placement p) { return p == Placement::kInPlace ? "in_place" : "out_of_place"; }
const char* split_name(Split s) {
  switch (s) {
    case Split::kNone: return "world";
    case Split::kIntraNode: return "intra-node";
    case Split::kRails: return "rails";
  }
  return "world";
}

// The communicator the collectives run on: everyone, the ranks of this node, or the ranks with
// this rank's index on their nodes (one per node: the "rails").
MPI_Comm split_world(Split split) {
  MPI_Comm comm = MPI_COMM_WORLD;
  if (split == Split::kNone) return comm;
  MPI_Comm node;
  WB_MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  if (split == Split::kIntraNode) return node;
  int local_rank = 0, world_rank = 0;
  WB_MPI_CHECK(MPI_Comm_rank(node, &local_rank));
  WB_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank));
  MPI_Comm_free(&node);
  WB_MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, local_rank, world_rank, &comm));
  return comm;
}

// This rank's index among the ranks of its node.
int node_local_rank() {
  MPI_Comm node;
  WB_MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int local_rank = 0;
  WB_MPI_CHECK(MPI_Comm_rank(node, &local_rank));
  MPI_Comm_free(&node);
  return local_rank;
}

class CollRun {
 public:
  CollRun(MpiProgram& program, const CollOptions& options, const CommandLine& args)
      : program_(program), options_(options), args_(args), control_(MPI_COMM_WORLD, options.harness.timeout),
        harness_(control_, harness_options(options, control_)),
        watchdog_([this](const std::string& why) { harness_.record_interruption(why); }) {}

  int run() {
    const auto hosts = control_.all_gather(program_.host());
    comm_handle_ = split_world(options_.split);
    if (options_.split == Split::kIntraNode) comm_label_ = program_.host();
    if (options_.split == Split::kRails) comm_label_ = "rail" + std::to_string(node_local_rank());
    int comm_rank = 0, comm_size = 1;
    WB_MPI_CHECK(MPI_Comm_rank(comm_handle_, &comm_rank));
    WB_MPI_CHECK(MPI_Comm_size(comm_handle_, &comm_size));
    // Every rank checks its own communicator and all agree, so a bad root ends the run cleanly
    // with exit code 3 on every rank (no abort racing the message).
    std::optional<std::string> bad_root;
    if (options_.root >= comm_size)
      bad_root = "-r " + std::to_string(options_.root) + " is not a rank of a communicator of " + std::to_string(comm_size);
    if (const auto reason = control_.first_reason(bad_root)) {
      if (control_.is_root()) std::fprintf(stderr, "error: %s (exit code %d)\n", reason->c_str(), kExitUsage);
      return kExitUsage;
    }
    // Nodes and link class of this rank's communicator.
    std::vector<int> members(static_cast<std::size_t>(comm_size));
    const int world_rank = program_.rank();
    WB_MPI_CHECK(MPI_Allgather(&world_rank, 1, MPI_INT, members.data(), 1, MPI_INT, comm_handle_));
    std::set<std::string> comm_hosts;
    std::string comm_nodes;  // the communicator's nodes in rank order, as the hosts name themselves
    for (int m : members) {
      const std::string& host = hosts[static_cast<std::size_t>(m)];
      if (comm_hosts.insert(host).second) comm_nodes += (comm_nodes.empty() ? "" : ",") + host;
    }
    ResultRow base;
    base.bench = "coll";
    base.backend = options_.backend;
    base.link_class = comm_hosts.size() == 1 ? "shm" : options_.link_class.value_or(detect_network_link_class());
    // The whole world's communicator is named by its nodes (schema/endpoints.csv: `dgx01`,
    // `dgx01,dgx02`), so one node's nightly run is its own item and the history holds it against
    // the fleet; intra-node and rails are several communicators at once (per_comm_us), named by kind.
    base.src = options_.split == Split::kNone ? comm_nodes : split_name(options_.split);
    base.ranks = comm_size;
    base.nodes = static_cast<int>(comm_hosts.size());

    open_backend(comm_handle_);
    set_console(comm_size);
    add_cases(base, comm_size);

    const int code = harness_.run(args_, program_.run_metadata(hosts, args_, gpu_library_versions()));
    if (control_.is_root())
      report_sweeps(harness_.written_rows(), harness_.options().run_dir, options_.harness.console != "nccl-tests");
    if (scratch_run_dir()) {  // nobody asked for the files: the console was the output
      control_.barrier();
      if (control_.is_root()) std::filesystem::remove_all(harness_.options().run_dir);
    }
    return code;
  }

  MultiRankBenchmarks& harness() { return harness_; }

 private:
  // Under nccl-tests' names without --run-dir, the files the harness keeps while it measures go to
  // a folder of this job's own beside the others (every rank must see it, as it sees .), removed at
  // the end: nccl-tests writes nothing, and an earlier run's results.csv here is left alone.
  static HarnessOptions harness_options(const CollOptions& options, MpiControl& control) {
    HarnessOptions harness = options.harness;
    if (options.as_nccl_tests && !harness.run_dir_given)
      harness.run_dir = ".wirebench-" + control.all_gather(std::to_string(getpid()))[0];
    return harness;
  }
  bool scratch_run_dir() const { return options_.as_nccl_tests && !options_.harness.run_dir_given; }

  // nccl-tests' console (the default) or the plain one; every rank takes part in gathering the
  // device lines, rank 0 prints.
  void set_console(int comm_size) {
    const std::string note = decimal_units_note(options_.size_text);
    if (options_.harness.console != "nccl-tests") {
      harness_.set_console(make_plain_console(stdout, note.empty() ? "" : "sizes: " + note));
      return;
    }
    char line[256];
    const int local = node_local_rank();
    std::snprintf(line, sizeof line, "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%s] %s\n", program_.rank(),
                  options_.split == Split::kRails ? local : 0, static_cast<int>(getpid()), program_.host().c_str(),
                  options_.backend == "nccl" ? local : -1, options_.backend == "nccl" ? "gpu" : "host",
                  options_.backend == "nccl" ? "(NCCL, one GPU per rank)" : "host memory (MPI)");
    NcclTestsHeader header;
    for (const auto& device : control_.all_gather(line)) header.devices += device;
    const std::uint64_t first = options_.sizes.empty() ? 0 : options_.sizes.front();
    const std::uint64_t last = options_.sizes.empty() ? 0 : options_.sizes.back();
    const bool factor = options_.sizes.size() > 2 && options_.sizes[1] != 0 && options_.sizes[2] / options_.sizes[1] > 1 &&
                        options_.sizes[2] % options_.sizes[1] == 0;
    const std::uint64_t step = options_.sizes.size() > 1 ? (factor ? options_.sizes[2] / options_.sizes[1]
                                                                   : options_.sizes[1] - options_.sizes[0]) : 0;
    std::snprintf(line, sizeof line,
                  "# nThread 1 nGpus 1 minBytes %llu maxBytes %llu step: %llu(%s) warmup iters: %zu iters: %zu "
                  "agg iters: %zu validation: %d graph: %d\n",
                  static_cast<unsigned long long>(first), static_cast<unsigned long long>(last),
                  static_cast<unsigned long long>(step), factor ? "factor" : "bytes",
                  options_.as_nccl_tests ? options_.warmup_calls
                                         : static_cast<std::size_t>(options_.harness.warmup_batches) * options_.iterations,
                  options_.iterations,
                  options_.agg_iters, options_.checks, options_.graph_launches);
    header.parameters = line;
    if (options_.blocking) header.parameters += "# Blocking Enabled: wait for completion after each collective\n";
    if (!note.empty()) header.parameters += "# sizes: " + note + "\n";
    header.timing_rule = std::string("time: median of at least ") + std::to_string(options_.harness.sampling.min_samples) +
                         " timed batches of -n " + std::to_string(options_.iterations) + " calls, per call; ranks' times: " +
                         rank_time_name(options_.harness.rank_time) + " (-a); busbw as nccl-tests defines it";
    const int ranks = comm_size;
    harness_.set_console(make_nccl_tests_console(stdout, std::move(header), [ranks](const ResultRow& r) {
      const CollOp op = parse_collective(r.op);
      return static_cast<std::uint64_t>(shape_of(op, r.bytes, parse_dtype(r.dtype), ranks).count);
    }));
  }

  void open_backend(MPI_Comm comm) {
    if (options_.backend == "mpi") {
      auto mpi = std::make_unique<MpiCommunicator>(comm, options_.harness.timeout);
      mpi->set_watchdog(&watchdog_);
      comm_ = std::move(mpi);
      make_buffers_ = [](std::size_t send, std::size_t recv) { return make_host_coll_buffers(send, recv); };
      return;
    }
    skip_reason_ = control_.first_reason(nccl_unavailable());
    if (skip_reason_) return;
    comm_ = open_nccl(comm, options_.harness.timeout);
    const auto timeout = options_.harness.timeout;
    make_buffers_ = [timeout](std::size_t send, std::size_t recv) { return make_device_coll_buffers(send, recv, timeout); };
  }

  void add_cases(const ResultRow& base, int comm_size) {
    bool told_zero = false;
    for (CollOp op : options_.ops) {
      const CollectiveDescriptor& d = describe(op);
      const std::vector<RedOp> redops = d.reduces ? options_.redops : std::vector<RedOp>{RedOp::kSum};
      for (DType dtype : options_.dtypes)
        for (RedOp redop : redops)
          add_sweep(base, op, dtype, redop, comm_size, told_zero);
      add_unmeasured_names(base, op);
    }
  }

  // nccl-tests' reductions and types that wirebench takes but does not measure yet: a SKIP row per
  // case with the reason, so the report says what was asked for and why it has no figure.
  void add_unmeasured_names(const ResultRow& base, CollOp op) {
    auto skip = [&](ResultRow row, const std::string& name) {
      row.status = RowStatus::kSkip;
      row.reason = unmeasured_reason(name, options_.backend);
      harness_.add_unmeasured(row);
    };
    for (Placement placement : options_.placements) {
      for (const auto& name : options_.unmeasured_dtypes) {
        ResultRow row = describe_case(base, op, DType::kFloat32, RedOp::kSum, placement);
        row.dtype = name;
        skip(row, name);
      }
      if (!describe(op).reduces) continue;
      for (const auto& name : options_.unmeasured_redops)
        for (DType dtype : options_.dtypes) {
          ResultRow row = describe_case(base, op, dtype, RedOp::kSum, placement);
          row.extra = ExtraItems::parse(row.extra).set("redop", name).text();
          skip(row, name);
        }
    }
  }

  // One sweep, in nccl-tests' order: every size out of place and then in place, so that the
  // console can print the two side by side.
  void add_sweep(const ResultRow& base, CollOp op, DType dtype, RedOp redop, int comm_size, bool& told_zero) {
    const CollectiveDescriptor& d = describe(op);
    std::vector<Placement> placements;
    for (Placement placement : options_.placements)
      if (!comm_ || comm_->supports(op, placement == Placement::kInPlace)) placements.push_back(placement);
    std::optional<std::string> skip = skip_reason_;
    if (!skip && redop == RedOp::kAvg && d.reduces)
      if (const std::string inexact = inexact_average_reason(dtype, comm_size); !inexact.empty()) skip = inexact;
    if (skip) {
      for (Placement placement : placements) {
        ResultRow row = describe_case(base, op, dtype, redop, placement);
        row.status = RowStatus::kSkip;
        row.reason = *skip;
        harness_.add_unmeasured(row);
      }
      return;
    }
    for (std::uint64_t bytes : options_.sizes) {
      const CollectiveShape shape = shape_of(op, bytes, dtype, comm_size);
      if (shape.count == 0) {
        if (!told_zero && control_.is_root() && bytes > 0)
          std::fprintf(stderr, "wb-coll: sizes below one element per rank are left out (%s of %s)\n",
                       format_size(bytes).c_str(), d.name);
        told_zero = true;
        continue;
      }
      for (Placement placement : placements) add_case(base, op, dtype, redop, placement, shape, comm_size);
    }
  }

  ResultRow describe_case(const ResultRow& base, CollOp op, DType dtype, RedOp redop, Placement placement) const {
    ResultRow row = base;
    row.case_name = placement_name(placement);
    row.op = describe(op).name;
    row.dtype = info(dtype).name;
    row.direction = "uni";
    ExtraItems extra;
    if (describe(op).reduces) extra.set("redop", to_string(redop));
    if (describe(op).rooted) extra.set("root", std::to_string(options_.root));
    extra.set("blocking", options_.blocking ? "1" : "0").set("checks", std::to_string(options_.checks));
    if (options_.graph_launches > 0) extra.set("graph", std::to_string(options_.graph_launches));
    if (options_.agg_iters > 1) extra.set("agg_iters", std::to_string(options_.agg_iters));
    if (options_.report_cputime) extra.set("cputime", "1");
    extra.set("rank_time", rank_time_name(options_.harness.rank_time));
    row.extra = extra.merge(path_settings_extra(environ)).text();
    return row;
  }

  // How the reporter judges the row (its bus bandwidth at the sweep's largest size against what the
  // communicator's wiring carries) and the command that measures it again, as it ran.
  void declare_judging(ResultRow& row) const {
    row.judged = transfer_judged(static_cast<double>(row.bytes), "busbw_GBps");
    // The settings of the path it ran (path_settings_extra: NCCL_ALGO, NCCL_PROTO, NCCL_P2P_DISABLE ...,
    // UCX's and MPICH's), set again: NCCL_ALGO decides the expectation, the others the path measured.
    std::string settings;
    for (std::string_view rest = row.extra; !rest.empty();) {
      const std::string_view item = rest.substr(0, rest.find(';'));
      rest = item.size() < rest.size() ? rest.substr(item.size() + 1) : std::string_view();
      if (item.starts_with("NCCL_") || item.starts_with("UCX_") || item.starts_with("MPIR_CVAR_"))
        settings += std::string(item) + " ";
    }
    const char* placement = row.case_name == "in_place" ? " --in-place yes" : row.case_name == "out_of_place" ? " --in-place no" : "";
    const std::string size = std::to_string(row.bytes);
    row.rerun = settings + "mpiexec -n " +
                std::to_string(program_.size()) + " wb-coll --backend " + row.backend + " --collective " + row.op +
                " -d " + row.dtype + " -b " + size + " -e " + size + placement + " -c 1" +
                (options_.split == Split::kIntraNode ? " --split intra" : options_.split == Split::kRails ? " --split rails" : "");
  }

  void add_case(const ResultRow& base, CollOp op, DType dtype, RedOp redop, Placement placement,
                const CollectiveShape& shape, int comm_size) {
    CollBatchConfig config;
    config.op = op;
    config.dtype = dtype;
    config.redop = redop;
    config.root = options_.root;
    config.in_place = placement == Placement::kInPlace;
    config.blocking = options_.blocking;
    config.shape = shape;
    config.iterations = options_.iterations;
    config.agg_iters = options_.agg_iters;
    config.report_cputime = options_.report_cputime;
    config.checks = options_.checks;
    config.corrupt_result = options_.corrupt_result;
    config.graph_launches = options_.graph_launches;
    if (options_.split != Split::kNone) config.per_communicator_extra = per_communicator_times(config.iterations);
    config.warmup_batches = static_cast<std::size_t>(std::max(options_.harness.warmup_batches, 0));
    if (options_.as_nccl_tests) config.warmup_calls = options_.warmup_calls;

    CaseInfo info_;
    info_.row = describe_case(base, op, dtype, redop, placement);
    info_.row.bytes = shape.bytes;
    info_.row.extra = ExtraItems::parse(info_.row.extra).set("iters", config.iterations).text();
    info_.bytes_per_op = static_cast<double>(shape.bytes);
    info_.busbw_factor = describe(op).busbw_factor(comm_size);
    declare_judging(info_.row);
    info_.name = std::string("coll/") + describe(op).name + "/" + options_.backend + "/" + info(dtype).name + "/" +
                 (describe(op).reduces ? std::string(to_string(redop)) + "/" : std::string()) +
                 (config.in_place ? "in" : "out") + "/" + format_size(shape.bytes);
    Communicator& comm = *comm_;
    auto make_buffers = make_buffers_;
    harness_.add(std::move(info_), [&comm, make_buffers, config] {
      const auto [send, recv] = buffer_bytes(config);
      return make_coll_batch(comm, make_buffers(send, recv), config);
    });
  }

  // The row holds rank 0's communicator at the slowest rank's time; with several communicators
  // `per_comm_us` names each one's own median time per call (the slowest of its ranks), so a slow node
  // or rail stands out: per_comm_us=nodeA:812.3|nodeB:1104.9.
  std::function<std::string(const std::vector<double>&)> per_communicator_times(std::size_t iterations) {
    return [this, iterations](const std::vector<double>& seconds) {
      std::vector<double> sorted = seconds;
      std::sort(sorted.begin(), sorted.end());
      const double mine = sorted.empty() ? 0.0 : sorted[sorted.size() / 2] / static_cast<double>(iterations) * 1e6;
      std::map<std::string, double> slowest;
      for (const std::string& entry : control_.all_gather(comm_label_ + "=" + std::to_string(mine))) {
        const auto eq = entry.rfind('=');
        double& us = slowest[entry.substr(0, eq)];
        us = std::max(us, std::stod(entry.substr(eq + 1)));
      }
      std::string times;
      for (const auto& [label, us] : slowest) {
        char value[32];
        std::snprintf(value, sizeof value, "%.4g", us);
        times += (times.empty() ? "" : "|") + label + ":" + value;
      }
      return ExtraItems().set("per_comm_us", times).text();
    };
  }

  MpiProgram& program_;
  const CollOptions& options_;
  const CommandLine& args_;
  MpiControl control_;
  MultiRankBenchmarks harness_;
  Watchdog watchdog_;
  MPI_Comm comm_handle_ = MPI_COMM_WORLD;
  std::string comm_label_ = "world";  // this rank's communicator: its node, or its rail
  std::unique_ptr<Communicator> comm_;
  std::function<std::unique_ptr<CollBuffers>(std::size_t, std::size_t)> make_buffers_;
  std::optional<std::string> skip_reason_;
};

// --mpich-algorithm must reach MPICH before MPI_Init reads its variables: the same parser runs once
// before it, quietly; its errors are said once, by the full parse after MPI_Init.
void apply_mpich_algorithms_early(int argc, char** argv) {
  try {
    CommandLine args(argc, argv);
    apply_mpich_algorithms(parse_coll_options(args));
  } catch (...) {
  }
}

}  // namespace
}  // namespace wb

int main(int argc, char** argv) {
  wb::apply_mpich_algorithms_early(argc, argv);  // before MPI_Init reads them
  const std::string program = argc > 0 ? argv[0] : "wb-coll";
  return wb::benchmark_main<wb::CollRun, wb::CollOptions>(
      argc, argv, [program] { return wb::coll_help(program); },
      [](wb::CommandLine& args, const wb::MpiProgram&) { return wb::parse_coll_options(args); });
}
