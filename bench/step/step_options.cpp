#include "step/step_options.h"

#include <charconv>

#include "harness/errors.h"

namespace wb::step {
namespace {

double positive_number(const std::string& flag, const std::string& text) {
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || !(value > 0))
    throw UsageError(flag + ": '" + text + "' is not a number > 0");
  return value;
}

}  // namespace

StepOptions parse_step_options(CommandLine& args) {
  StepOptions o;
  o.harness = take_harness_options(args);
  if (auto v = args.take("model")) o.model = *v;
  if (auto v = args.take("backend")) {
    if (*v != "mpi" && *v != "nccl") throw UsageError("--backend: '" + *v + "' is not mpi or nccl");
    o.backend = *v;
  }
  o.strategies = parse_strategies(args.take("strategy").value_or("all"));
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
  if (auto v = args.take("what-if")) {
    WhatIfRequest w;
    w.shapes = parse_cluster_shapes(*v);
    if (auto b = args.take("intra-GBps")) w.links.intra_GBps = positive_number("--intra-GBps", *b);
    if (auto b = args.take("inter-GBps")) w.links.inter_GBps = positive_number("--inter-GBps", *b);
    if (auto a = args.take("intra-latency-us")) w.links.intra_latency_us = positive_number("--intra-latency-us", *a);
    if (auto a = args.take("inter-latency-us")) w.links.inter_latency_us = positive_number("--inter-latency-us", *a);
    if (auto g = args.take("global-tokens")) {
      if (tokens) throw UsageError("--global-tokens and --tokens: give one (a global batch, or one per rank)");
      w.global_tokens = positive_number("--global-tokens", *g);
    }
    o.what_if = w;
  } else if (args.take("global-tokens")) {
    throw UsageError("--global-tokens needs --what-if (a measured run's tokens per rank are --tokens)");
  }
  o.wiring = args.take("wiring").value_or("");
  o.link_class = args.take("link-class");
  if (o.measure_tflops && o.backend != "nccl") throw UsageError("--tflops measured needs --backend nccl (a GPU to measure)");
  return o;
}

}  // namespace wb::step
