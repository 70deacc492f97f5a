#include "coll/coll_options.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "harness/errors.h"
#include "harness/option_parser.h"
#include "harness/size_spec.h"

namespace wb {
namespace {

// The MPICH variable that picks the algorithm of the call wb-coll makes for a collective named in
// MPICH's spelling (allreduce, bcast) or wirebench's (all_reduce, broadcast); nullopt for anything else.
std::optional<std::string> mpich_algorithm_variable_for(std::string_view name) {
  const auto op = find_collective(name);
  if (!op || *op == CollOp::kSendRecv) return std::nullopt;
  return mpich_algorithm_variable(*op);
}

// Timed batches of -n calls per size under nccl-tests' names: nccl-tests times one; five give a
// median, and a sweep of small sizes still ends in about the time nccl-tests takes.
constexpr std::size_t kNcclTestsBatches = 5;

constexpr const char* kFooter =
    "nccl-tests' flags keep nccl-tests' meanings and defaults (docs/tools.md maps each one). On MPI one call runs\n"
    "at a time whatever -z says, as osu_allreduce and IMB time it (-z 1: MPI's blocking call; -z 0: its\n"
    "non-blocking call and a wait); on NCCL, -z 0 launches -n calls back to back and synchronises once.\n"
    "Time, algbw and busbw are the median of at least 5 timed batches of -n calls.\n"
    "Google Benchmark's --benchmark_filter, --benchmark_repetitions, --benchmark_out and --benchmark_format work\n"
    "as usual; only rank 0 prints and writes.";

constexpr struct {
  const char* alias;
  const char* collective;
} kAliases[] = {{"all_reduce_perf", "all_reduce"}, {"all_gather_perf", "all_gather"},
                {"reduce_scatter_perf", "reduce_scatter"}, {"broadcast_perf", "broadcast"},
                {"reduce_perf", "reduce"}, {"alltoall_perf", "all_to_all"}, {"sendrecv_perf", "send_recv"}};

std::vector<std::string> nonempty_list(const std::string& text) {
  auto items = split_list(text);
  if (items.empty()) throw UsageError("empty list '" + text + "'");
  return items;
}

template <typename T, typename Parse, typename All>
std::vector<T> parse_list(const std::string& text, Parse parse, All all) {
  if (text == "all") return all();
  std::vector<T> items;
  for (const auto& item : nonempty_list(text)) items.push_back(parse(item));
  return items;
}

// The raw texts whose meaning depends on others (sizes: -b/-e/-f/-i or --sizes), settled after parsing.
struct SizeFlags {
  std::optional<std::string> spec, first, last, factor, step;
};

void declare_coll_options(OptionParser& p, CollOptions& o, SizeFlags& sizes, std::string& fault,
                          const std::string& program) {
  const std::string alias = collective_of_alias(program);
  p.group("What to measure");
  p.value("--collective", "LIST",
          "all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all, send_recv, or all (default " +
              (alias.empty() ? std::string("all_reduce") : alias + ", as " + program + " says") + ")",
          [&](const std::string& v) { o.ops = parse_list<CollOp>(v, parse_collective, all_collectives); });
  p.value("--backend", "B", "mpi (host buffers, default) or nccl (device buffers, one rank per GPU)",
          [&](const std::string& v) {
            if (v != "mpi" && v != "nccl") throw UsageError("--backend: '" + v + "' is not mpi or nccl");
            o.backend = v;
          });
  p.value("--in-place", "MODE", "both (default: out-of-place and in-place side by side), yes, no",
          [&](const std::string& v) {
            if (v == "both") o.placements = {Placement::kOutOfPlace, Placement::kInPlace};
            else if (v == "no") o.placements = {Placement::kOutOfPlace};
            else if (v == "yes") o.placements = {Placement::kInPlace};
            else throw UsageError("--in-place: '" + v + "' is not both, yes or no");
          });
  p.value("--sizes", "SPEC", "instead of -b/-e/-f/-i: 8, 1M, 8:4G:2, lists", [&](const std::string& v) { sizes.spec = v; });
  p.value("--split", "MODE", "intra: one communicator per node; rails: one per local rank index (default none)",
          [&](const std::string& v) {
            if (v == "none") o.split = Split::kNone;
            else if (v == "intra") o.split = Split::kIntraNode;
            else if (v == "rails") o.split = Split::kRails;
            else throw UsageError("--split: '" + v + "' is not none, intra or rails");
          });
  p.value("--mpich-algorithm", "OP=ALG",
          "e.g. allreduce=ring (or all_reduce=ring): sets MPIR_CVAR_<OP>_INTRA_ALGORITHM of the blocking call (-z 1; "
          "reduce_scatter: MPI_Reduce_scatter_block's), recorded",
          [&](const std::string& v) {
            for (const auto& item : nonempty_list(v)) {
              const auto equals = item.find('=');
              if (equals == std::string::npos || equals == 0 || equals + 1 == item.size())
                throw UsageError("--mpich-algorithm: '" + item + "' is not OP=ALGORITHM (e.g. allreduce=ring)");
              if (!mpich_algorithm_variable_for(item.substr(0, equals)))
                throw UsageError("--mpich-algorithm: '" + item.substr(0, equals) +
                                 "' is not a collective (allreduce, allgather, reduce_scatter, bcast, reduce, "
                                 "alltoall, or wirebench's all_reduce, broadcast, ...)");
              o.mpich_algorithms.push_back(item);
            }
          });
  p.value("--link-class", "CLASS", "link class of collectives across nodes (default: read from sysfs)",
          [&](const std::string& v) { o.link_class = v; });
  p.value("--inject-fault", "corrupt", "one wrong element in rank 0's checked result (tests the data check)",
          [&](const std::string& v) { fault = v; });

  p.group("nccl-tests' flags (same meanings, same defaults)");
  p.value("-t,--nthreads", "1", "threads per process: 1 (wirebench runs one rank per GPU; use mpiexec -n)",
          [](const std::string& v) {
            if (parse_whole_number("-t", v, 1) != 1)
              throw UsageError("-t " + v + ": wb-coll runs one thread per process; start one rank per GPU instead");
          });
  p.value("-g,--ngpus", "1", "GPUs per thread: 1 (one rank per GPU; use mpiexec -n)", [](const std::string& v) {
    if (parse_whole_number("-g", v, 1) != 1)
      throw UsageError("-g " + v + ": wb-coll drives one GPU per rank; start one rank per GPU instead");
  });
  p.value("-b,--minbytes", "SIZE", std::string("first size (default 32M). ") + kSizeUnitsHelp,
          [&](const std::string& v) { sizes.first = v; });
  p.value("-e,--maxbytes", "SIZE", "last size (default 32M)", [&](const std::string& v) { sizes.last = v; });
  p.value("-i,--stepbytes", "SIZE", "additive step when -f is 1 (default 1M)", [&](const std::string& v) { sizes.step = v; });
  p.value("-f,--stepfactor", "F", "multiplication factor between sizes (default 1: -i steps)",
          [&](const std::string& v) { sizes.factor = v; });
  p.value("-n,--iters", "N", "calls per timed batch (default 20); each figure is the median of at least 5 batches",
          [&](const std::string& v) { o.iterations = static_cast<std::size_t>(parse_whole_number("-n", v, 1)); });
  p.value("-w,--warmup_iters", "N", "untimed calls before each measurement, in batches of -n (default: 2 batches, and at least a tenth of the "
          "minimum time)",
          [&](const std::string& v) { o.warmup_calls = static_cast<std::size_t>(parse_whole_number("-w", v, 0)); });
  p.value("-m,--agg_iters", "N", "calls aggregated in one NCCL group (default 1; nccl)",
          [&](const std::string& v) { o.agg_iters = static_cast<std::size_t>(parse_whole_number("-m", v, 1)); });
  p.value("-o,--op", "LIST", "reduction: sum, prod, max, min, avg (NCCL), or all (sum to min; default sum); mulsum is a SKIP row for now",
          [&](const std::string& v) {
    try {
      o.unmeasured_redops.clear();
      std::string known;
      for (const auto& item : nonempty_list(v)) {
        if (item == "mulsum") o.unmeasured_redops.push_back(item);
        else known += (known.empty() ? "" : ",") + item;
      }
      o.redops = known.empty() ? std::vector<RedOp>{}
                               : parse_list<RedOp>(known, parse_redop, [] { return std::vector<RedOp>{RedOp::kSum, RedOp::kProd, RedOp::kMax, RedOp::kMin}; });
    } catch (const UsageError& e) {
      // wb-coll's --op once named the collective: say where it went.
      bool collective = true;
      try {
        for (const auto& item : nonempty_list(v)) parse_collective(item);
      } catch (const UsageError&) {
        collective = false;
      }
      if (collective && v != "all")
        throw UsageError("--op is the reduction, as in nccl-tests: '" + v + "' is a collective; use --collective " + v);
      throw;
    }
  });
  p.value("-d,--datatype", "LIST",
          "int8 uint8 int32 uint32 int64 uint64 float16 bfloat16 float32 float64 (nccl-tests' half, float, double, "
          "bf16 too), or all (default float32); f8e4m3 and f8e5m2 are SKIP rows for now",
          [&](const std::string& v) {
            o.unmeasured_dtypes.clear();
            std::string known;
            for (const auto& item : nonempty_list(v)) {
              if (item == "f8e4m3" || item == "f8e5m2" || item == "fp8_e4m3" || item == "fp8_e5m2") o.unmeasured_dtypes.push_back(item);
              else known += (known.empty() ? "" : ",") + item;
            }
            o.dtypes = known.empty() ? std::vector<DType>{} : parse_list<DType>(known, parse_dtype, all_dtypes);
          });
  p.value("-r,--root", "N", "root of broadcast and reduce (default 0)",
          [&](const std::string& v) { o.root = static_cast<int>(parse_whole_number("-r", v, 0)); });
  p.value("-c,--check", "N", "checked runs after timing, 0 for none (default 1)",
          [&](const std::string& v) { o.checks = static_cast<int>(parse_whole_number("-c", v, 0)); });
  p.value("-z,--blocking", "0|1",
          "0 (default): NCCL calls launched back to back, one synchronisation per batch; 1: each call waited for. "
          "MPI: blocking calls either way",
          [&](const std::string& v) { o.blocking = parse_zero_or_one("-z", v); });
  p.value("-G,--cudagraph", "N", "capture each batch's calls as a CUDA graph and time N launches of it (nccl; default 0)",
          [&](const std::string& v) { o.graph_launches = static_cast<int>(parse_whole_number("-G", v, 0)); });
  p.value("-a,--average", "0|1|2|3", "a batch's time across ranks: 0 rank 0, 1 the average (default), 2 the fastest, 3 the slowest",
          [&](const std::string& v) {
            o.harness.rank_time = static_cast<RankTime>(parse_whole_number("-a", v, 0));
            if (static_cast<int>(o.harness.rank_time) > 3) throw UsageError("-a: '" + v + "' is not 0, 1, 2 or 3");
          });
  p.value("-C,--report_cputime", "0|1", "1: time the launches, not their completion (nccl; default 0)",
          [&](const std::string& v) { o.report_cputime = parse_zero_or_one("-C", v); });
  p.value("-J,--output_file", "FILE", "also write the results as JSON to FILE (Google Benchmark's JSON; results.csv always)",
          [&](const std::string& v) { o.harness.json_file = v; });
  p.value("-R,--local_register", "0", "buffer registration: 0 only (not supported yet)", [](const std::string& v) {
    if (v != "0") throw UsageError("-R " + v + ": buffer registration is not supported by wb-coll yet; leave -R out or pass -R 0");
  });
  p.value("-p,--parallel_init", "0", "0 only (one thread per process)", [](const std::string& v) {
    if (v != "0") throw UsageError("-p " + v + ": wb-coll runs one thread per process; there is nothing to initialise in parallel");
  });
  p.value("-y,--stream_null", "0", "0 only (calls go on a stream of their own)", [](const std::string& v) {
    if (v != "0") throw UsageError("-y " + v + ": wb-coll always uses a stream of its own");
  });
  HarnessSpellings spellings;
  spellings.timeout = "-T,--timeout";
  spellings.timeout_note = "; nccl-tests' -T 0 (no timeout) keeps this default: wirebench never waits forever";
  spellings.timeout_zero_keeps_default = true;
  spellings.nccl_console = true;
  declare_harness_options(p, o.harness, spellings);
}

std::vector<std::uint64_t> settle_sizes(const SizeFlags& f, std::string& text) {
  if (f.spec) {
    if (f.first || f.last || f.factor || f.step) throw UsageError("give either --sizes or -b/-e/-f/-i, not both");
    text = *f.spec;
    return parse_size_spec(*f.spec);
  }
  // nccl-tests' rule: a factor above 1 multiplies, otherwise the step adds.
  const std::string first = f.first.value_or("32M"), last = f.last.value_or("32M");
  const long factor = f.factor ? parse_whole_number("-f", *f.factor, 1) : 1;
  if (parse_size(first) > parse_size(last))
    throw UsageError("-b " + first + " is larger than -e " + last);
  text = first + ":" + last;
  std::string range = text + (factor > 1 ? ":" + std::to_string(factor) : ":+" + f.step.value_or("1M"));
  return parse_size_spec(range);
}

}  // namespace

std::string unmeasured_reason(const std::string& name, const std::string& backend) {
  const bool fp8 = name.find('8') != std::string::npos;
  if (backend == "mpi")
    return fp8 ? "MPI has no " + name + " type (NCCL has fp8 from 2.24 on Hopper and newer GPUs)"
               : "MPI has no " + name + " reduction (NCCL has it: --backend nccl)";
  return "-" + std::string(fp8 ? "d " : "o ") + name + " is not measured by wirebench yet: its exact data check has no " +
         (fp8 ? "rule for fp8 rounding" : "rule for a reduction that divides or scales");
}

std::string inexact_average_reason(DType dtype, int ranks) {
  const std::string name = info(dtype).name;
  const bool floating = name.starts_with("float") || name.starts_with("bfloat");
  if (!floating || (ranks > 0 && (ranks & (ranks - 1)) == 0)) return "";
  return "avg of " + name + " over " + std::to_string(ranks) + " ranks: 1/" + std::to_string(ranks) + " is not exact in " +
         name + ", so the exact check cannot hold; wirebench checks floating-point averages on 2, 4, 8... ranks";
}

std::string collective_of_alias(const std::string& program) {
  const std::string base = program.substr(program.find_last_of('/') + 1);
  for (const auto& a : kAliases)
    if (base == a.alias) return a.collective;
  return "";
}

CollOptions parse_coll_options(CommandLine& args) {
  CollOptions o;
  const std::string program = args.original().empty() ? "wb-coll" : args.original().front();
  const std::string alias = collective_of_alias(program);
  o.ops = {alias.empty() ? CollOp::kAllReduce : parse_collective(alias)};
  o.dtypes = {DType::kFloat32};
  o.redops = {RedOp::kSum};
  o.placements = {Placement::kOutOfPlace, Placement::kInPlace};
  o.harness.rank_time = RankTime::kAverage;  // nccl-tests' -a 1
  o.harness.console = "nccl-tests";
  o.as_nccl_tests = !alias.empty();
  if (o.as_nccl_tests) o.harness.sampling.fixed_samples = kNcclTestsBatches;  // --benchmark_min_time replaces it
  SizeFlags sizes;
  std::string fault;
  OptionParser parser(program.substr(program.find_last_of('/') + 1), "", kFooter);
  declare_coll_options(parser, o, sizes, fault, program);
  parser.parse(args);
  o.sizes = settle_sizes(sizes, o.size_text);
  if (o.backend != "nccl" && std::erase(o.redops, RedOp::kAvg) > 0) o.unmeasured_redops.push_back("avg");  // MPI has none
  if (o.backend != "nccl") {
    if (o.graph_launches > 0) throw UsageError("-G " + std::to_string(o.graph_launches) + " (CUDA graph launch) needs --backend nccl");
    if (o.agg_iters > 1) throw UsageError("-m " + std::to_string(o.agg_iters) + " (calls in one NCCL group) needs --backend nccl");
    if (o.report_cputime) throw UsageError("-C 1 (the launches' time) needs --backend nccl: MPI's calls return when done");
  }
  if (!fault.empty()) {
    if (fault != "corrupt") throw UsageError("--inject-fault: '" + fault + "' is not corrupt");
    if (o.checks == 0) throw UsageError("--inject-fault corrupt needs the data check (-c 1 or more)");
    o.corrupt_result = true;
  }
  // -w counts calls. Under nccl-tests' names exactly -w calls warm each size up (the batch makes
  // them); wb-coll itself warms up in batches of -n (and at least a tenth of the minimum time).
  o.harness.warmup_batches = o.as_nccl_tests ? 0 : static_cast<int>((o.warmup_calls + o.iterations - 1) / o.iterations);
  return o;
}

std::string coll_help(const std::string& program) {
  CollOptions o;
  SizeFlags sizes;
  std::string fault;
  const std::string base = program.substr(program.find_last_of('/') + 1);
  OptionParser parser(base, base + ": collectives (nccl-tests' all_reduce_perf and its siblings) on MPI or NCCL\nusage: mpiexec -n N " + base + " [options] [--benchmark_* options]", kFooter);
  declare_coll_options(parser, o, sizes, fault, program);
  return parser.help();
}

void apply_mpich_algorithms(const CollOptions& options) {
  for (const auto& item : options.mpich_algorithms) {
    const auto equals = item.find('=');
    // An unknown collective is left to the full parse, which says so.
    if (const auto variable = mpich_algorithm_variable_for(item.substr(0, equals)))
      setenv(variable->c_str(), item.substr(equals + 1).c_str(), 1);
  }
}

}  // namespace wb
