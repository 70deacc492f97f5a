#include "step/step_options.h"

#include <charconv>
#include <map>

#include "harness/errors.h"
#include "harness/option_parser.h"
#include "step/forced_algorithm.h"

namespace wb::step {
namespace {

double positive_number(const std::string& flag, const std::string& text) {
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || !(value > 0))
    throw UsageError(flag + ": '" + text + "' is not a number > 0");
  return value;
}

constexpr const char* kSynopsis =
    "wb-step: DDP / FSDP / ZeRO training steps, emulated. Each rank issues the collectives its framework\n"
    "would, in the same order and with the same overlap rules, with compute replaced by waits of the\n"
    "computed duration (a sleep on MPI, a busy kernel on the GPU). Prints step, compute and exposed\n"
    "communication per strategy beside what the alpha-beta cost model predicts, and which strategy to\n"
    "use. --what-if needs no mpiexec.\n"
    "usage: mpiexec -n N wb-step [options] [--benchmark_* options]";

// The step options' texts by name ("model"), read after parsing: several depend on each other.
struct RawValues {
  std::map<std::string, std::string> values;
  std::optional<std::string> take(const std::string& name) {
    const auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    std::string value = it->second;
    values.erase(it);
    return value;
  }
};

void declare_step_options(OptionParser& p, RawValues& raw, HarnessOptions& harness) {
  auto into = [&raw](const std::string& name) { return [&raw, name](const std::string& v) { raw.values[name] = v; }; };
  p.group("The model and the strategies");
  p.value("--model", "NAME|FILE",
          "a model of suites/models (tiny, gpt2-xl, llama2-7b, llama2-13b, llama2-70b, mixtral-8x7b) or a shape file "
          "(default tiny)",
          into("model"));
  p.value("--strategy", "LIST|all",
          "ddp, fsdp-full, fsdp-grad-op, fsdp-hybrid, zero1, zero2, zero3, zero1-paper, zero2-paper, zero3-paper "
          "(default all); tpT+STRATEGY adds Megatron tensor parallelism of T consecutive ranks (tp8+ddp, "
          "tp4+fsdp-full; one T per run); epE+STRATEGY expert parallelism of a mixture of experts (--model "
          "mixtral-8x7b; ep8+ddp, ep8+fsdp-full, ep8+zero2)",
          into("strategy"));
  p.value("--sequence-parallel", "0|1",
          "with tpT+...: Megatron's sequence parallelism, each all_reduce an all_gather + reduce_scatter (default 0)",
          into("sequence-parallel"));
  p.value("--backend", "mpi|nccl",
          "MPI on host buffers (default), or NCCL with CUDA streams, one GPU per rank (SKIP rows with the reason "
          "where no GPU is)",
          into("backend"));
  p.value("--scale", "F", "shrink the model: bytes and compute x F (default 1)", into("scale"));
  p.value("--tokens", "N", "tokens per rank and step (default 4096)", into("tokens"));
  p.value("--activation-checkpointing", "0|1",
          "recompute each layer's forward in its backward: 8 P FLOPs per token instead of 6, only the layers' inputs "
          "kept (default 0)",
          into("activation-checkpointing"));
  p.value("--tflops", "X|measured",
          "compute rate per rank, TFLOP/s (default 400); measured: the model's layer GEMM on the GPU (bf16, cuBLAS; "
          "--backend nccl)",
          into("tflops"));
  p.value("--hbm-GBps", "X", "memory rate for the optimizer step and DDP's bucket copies (default 3000)", into("hbm-GBps"));
  p.value("--ddp-bucket-view", "0|1",
          "DDP gradient_as_bucket_view: 0 (PyTorch's default) copies gradients into buckets and back and holds the "
          "buckets (4P) besides the gradients",
          into("ddp-bucket-view"));
  p.value("--precision", "fp32|bf16", "FSDP/ZeRO gathered parameters and reduced gradients (default fp32)", into("precision"));
  p.value("--shard-group", "G", "HYBRID_SHARD shard group size (default: ranks per node, or half the ranks on one node)",
          into("shard-group"));
  p.value("--backward-prefetch", "pre|post|none", "FSDP (default pre)", into("backward-prefetch"));
  p.value("--overlap-comm", "0|1", "DeepSpeed overlap_comm (default: on for stage 3 only)", into("overlap-comm"));
  p.value("--gpu-memory", "GB", "memory per GPU for the recommendation (default 80)", into("gpu-memory"));
  p.value("--fits", "FILE", "predict from wb-coll's fits.csv instead of calibrating here", into("fits"));
  p.value("--calibration", "FILE",
          "predict from another run's step_calibration.csv (e.g. 2 nodes) instead of calibrating here: group sizes "
          "it did not measure cost the algorithm MPICH runs there on each collective's fitted link",
          into("calibration"));
  p.value("--wiring", "NAME", "label of the wiring (the dst column), e.g. vcluster-1gbit", into("wiring"));
  p.value("--link-class", "CLASS", "the link_class column between nodes (default: detected)", into("link-class"));
  p.group("What-if (measures nothing)");
  p.value("--what-if", "NODESxGPUS[,...]",
          "predict the steps on clusters of those shapes from link figures (--intra-GBps 360 --intra-latency-us 2: "
          "NVLink 4 at 80%; --inter-GBps 46 --inter-latency-us 5: an NDR NIC per GPU)",
          into("what-if"));
  p.value("--intra-GBps", "X", "with --what-if: bandwidth inside a node", into("intra-GBps"));
  p.value("--inter-GBps", "X", "with --what-if: bandwidth between nodes", into("inter-GBps"));
  p.value("--intra-latency-us", "X", "with --what-if: latency inside a node", into("intra-latency-us"));
  p.value("--inter-latency-us", "X", "with --what-if: latency between nodes", into("inter-latency-us"));
  p.value("--nvswitch", "none|ampere|hopper|blackwell",
          "with --what-if: the node's NVSwitch (default hopper: NVLS, NVLink SHARP; none: no NVLS, no CollNet direct)",
          into("nvswitch"));
  p.value("--sharp", "0|1", "with --what-if: IB SHARP in the fabric (CollNet; NVLS across nodes); default 0",
          into("sharp"));
  p.value("--algorithm", "NAME[,...]|nccl|mpi",
          "with --what-if: nccl (the default: NCCL's algorithms on the wiring, the fastest per call, as its tuner "
          "picks: ring, tree, nvls, nvls_tree, collnet_direct, collnet_chain, pat where each can run); mpi (an MPI "
          "library's: ring, recursive_doubling, rabenseifner, binomial, the fastest per call); one of those names; "
          "several, e.g. ring,tree,nccl: a table of each and NCCL's choice for the step's sizes. In a measured "
          "run, one algorithm the library is made to run (MPICH's MPIR_CVAR_*_ALGORITHM, NCCL_ALGO), which the "
          "calibration then measures",
          into("algorithm"));
  p.value("--global-tokens", "N",
          "with --what-if: a global batch split over the ranks (strong scaling), instead of --tokens per rank",
          into("global-tokens"));
  declare_harness_options(p, harness);
}

}  // namespace

StepOptions parse_step_options(CommandLine& line) {
  StepOptions o;
  RawValues raw;
  OptionParser parser("wb-step", kSynopsis);
  declare_step_options(parser, raw, o.harness);
  parser.parse(line);
  RawValues& args = raw;
  if (auto v = args.take("model")) o.model = *v;
  if (auto v = args.take("backend")) {
    if (*v != "mpi" && *v != "nccl") throw UsageError("--backend: '" + *v + "' is not mpi or nccl");
    o.backend = *v;
  }
  const std::string strategies = args.take("strategy").value_or("all");
  if (strategies == "all") {
    o.strategies = all_strategies();
  } else {
    std::optional<PlanSpec> first;
    for (const std::string& item : split_list(strategies)) {
      const PlanSpec plan = parse_plan(item);
      if (first && (first->tensor_parallel != plan.tensor_parallel || first->expert_parallel != plan.expert_parallel))
        throw UsageError("--strategy: one tensor- and expert-parallel size per run ('" + strategies +
                         "' mixes them; run each)");
      if (!first) first = plan;
      o.strategies.push_back(plan.strategy);
    }
    if (!first) throw UsageError("--strategy: no strategy given");
    o.settings.tensor_parallel = first->tensor_parallel;
    o.settings.expert_parallel = first->expert_parallel;
  }
  if (auto v = args.take("sequence-parallel")) {
    if (*v != "0" && *v != "1") throw UsageError("--sequence-parallel: '" + *v + "' is not 0 or 1");
    o.settings.sequence_parallel = *v == "1";
  }
  if (auto v = args.take("scale")) o.scale = positive_number("--scale", *v);
  const auto tokens = args.take("tokens");
  if (tokens) o.settings.tokens = positive_number("--tokens", *tokens);
  if (auto v = args.take("tflops")) {
    if (*v == "measured") o.measure_tflops = true;
    else o.settings.tflops = positive_number("--tflops", *v);
  }
  if (auto v = args.take("activation-checkpointing")) {
    if (*v != "0" && *v != "1") throw UsageError("--activation-checkpointing: '" + *v + "' is not 0 or 1");
    o.settings.activation_checkpointing = *v == "1";
  }
  if (auto v = args.take("ddp-bucket-view")) {
    if (*v != "0" && *v != "1") throw UsageError("--ddp-bucket-view: '" + *v + "' is not 0 or 1");
    o.settings.gradient_as_bucket_view = *v == "1";
  }
  if (auto v = args.take("hbm-GBps")) o.settings.hbm_GBps = positive_number("--hbm-GBps", *v);
  if (auto v = args.take("precision")) {
    if (*v == "fp32") o.settings.param_bytes = o.settings.grad_bytes = 4;
    else if (*v == "bf16") o.settings.param_bytes = o.settings.grad_bytes = 2;
    else throw UsageError("--precision: '" + *v + "' is not fp32 or bf16");
  }
  if (auto v = args.take("shard-group")) {
    const double g = positive_number("--shard-group", *v);
    if (g != static_cast<int>(g)) throw UsageError("--shard-group: '" + *v + "' is not a whole number");
    o.shard_group = static_cast<int>(g);
  }
  if (auto v = args.take("backward-prefetch")) o.settings.backward_prefetch = parse_prefetch(*v);
  if (auto v = args.take("overlap-comm")) {
    if (*v != "0" && *v != "1") throw UsageError("--overlap-comm: '" + *v + "' is not 0 or 1");
    o.settings.overlap_comm = *v == "1";
  }
  if (auto v = args.take("gpu-memory")) o.gpu_memory_GB = positive_number("--gpu-memory", *v);
  o.fits = args.take("fits");
  o.calibration = args.take("calibration");
  if (o.fits && o.calibration) throw UsageError("--fits and --calibration: give one source of costs");
  if (auto v = args.take("what-if")) {
    WhatIfRequest w;
    w.shapes = parse_cluster_shapes(*v);
    if (auto b = args.take("intra-GBps")) w.links.intra_GBps = positive_number("--intra-GBps", *b);
    if (auto b = args.take("inter-GBps")) w.links.inter_GBps = positive_number("--inter-GBps", *b);
    if (auto a = args.take("intra-latency-us")) w.links.intra_latency_us = positive_number("--intra-latency-us", *a);
    if (auto a = args.take("inter-latency-us")) w.links.inter_latency_us = positive_number("--inter-latency-us", *a);
    if (auto n = args.take("nvswitch")) w.links.nvswitch = parse_nvswitch(*n);
    if (auto sharp = args.take("sharp")) {
      if (*sharp != "0" && *sharp != "1") throw UsageError("--sharp: '" + *sharp + "' is not 0 or 1");
      w.links.sharp = *sharp == "1";
    }
    if (auto a = args.take("algorithm")) {
      w.policies.clear();
      for (const std::string& name : split_list(*a)) w.policies.push_back(parse_algorithm_policy(name));
      if (w.policies.empty()) throw UsageError("--algorithm: no algorithm given");
    }
    if (auto g = args.take("global-tokens")) {
      if (tokens) throw UsageError("--global-tokens and --tokens: give one (a global batch, or one per rank)");
      w.global_tokens = positive_number("--global-tokens", *g);
    }
    o.what_if = w;
  } else if (auto a = args.take("algorithm")) {
    // A measured run: the library is made to run it (set before MPI_Init by force_algorithm_early).
    const std::vector<std::string> names = split_list(*a);
    if (names.size() != 1 || *a == "nccl" || *a == "mpi")
      throw UsageError("--algorithm " + *a + ": a measured run forces one algorithm on the library (ring, "
                       "recursive_doubling, rabenseifner, binomial on MPI; ring or tree on NCCL); several, nccl "
                       "and mpi are for --what-if");
    if (o.fits || o.calibration)
      throw UsageError(std::string("--algorithm with ") + (o.fits ? "--fits" : "--calibration") +
                       ": those were measured under the library's own choice; leave it out and the calibration "
                       "measures the forced algorithm");
    o.forced_algorithm = parse_algorithm(names.front());
    forced_algorithm_settings(*o.forced_algorithm, o.backend);  // throws where the backend has no such algorithm
  } else if (args.take("global-tokens")) {
    throw UsageError("--global-tokens needs --what-if (a measured run's tokens per rank are --tokens)");
  }
  for (const char* what_if_only : {"nvswitch", "sharp"})
    if (args.take(what_if_only))
      throw UsageError(std::string("--") + what_if_only + " needs --what-if (a measured run has the wiring it has)");
  o.wiring = args.take("wiring").value_or("");
  o.link_class = args.take("link-class");
  if (o.measure_tflops && o.backend != "nccl") throw UsageError("--tflops measured needs --backend nccl (a GPU to measure)");
  return o;
}

std::string step_help() {
  RawValues raw;
  HarnessOptions harness;
  OptionParser parser("wb-step", kSynopsis);
  declare_step_options(parser, raw, harness);
  return parser.help();
}

}  // namespace wb::step
