// wb-step's command line.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/command_line.h"
#include "harness/multi_rank_benchmarks.h"
#include "step/strategy.h"
#include "step/what_if.h"

namespace wb::step {

inline constexpr const char* kStepUsage =
    "usage: mpiexec -n N wb-step [options] [Google Benchmark options]\n"
    "Emulates DDP / FSDP / ZeRO training steps: each rank issues the collectives its framework\n"
    "would, in the same order and with the same overlap rules, with compute replaced by waits of\n"
    "the computed duration (a sleep on MPI, a busy kernel on the GPU). Prints step, compute and\n"
    "exposed communication per strategy beside what the alpha-beta cost model predicts, and which\n"
    "strategy to use. --what-if needs no mpiexec.\n"
    "  --model NAME|FILE        a model of suites/models (tiny, gpt2-xl, llama2-7b, llama2-13b,\n"
    "                           llama2-70b) or a shape file (default tiny)\n"
    "  --strategy LIST|all      ddp, fsdp-full, fsdp-grad-op, fsdp-hybrid, zero1, zero2, zero3,\n"
    "                           zero1-paper, zero2-paper, zero3-paper (default all)\n"
    "  --backend mpi|nccl       MPI on host buffers (default), or NCCL with CUDA streams, one GPU per\n"
    "                           rank (SKIP rows with the reason where no GPU is)\n"
    "  --scale F                shrink the model: bytes and compute x F (default 1)\n"
    "  --tokens N               tokens per rank and step (default 4096)\n"
    "  --activation-checkpointing 0|1   recompute each layer's forward in its backward: 8 P\n"
    "                           FLOPs per token instead of 6, only the layers' inputs kept (default 0)\n"
    "  --tflops X|measured      compute rate per rank, TFLOP/s (default 400); measured: the model's\n"
    "                           layer GEMM on the GPU (bf16, cuBLAS; --backend nccl)\n"
    "  --hbm-GBps X             memory rate for the optimizer step and DDP's bucket copies (default 3000)\n"
    "  --ddp-bucket-view 0|1    DDP gradient_as_bucket_view: 0 (PyTorch's default) copies gradients into\n"
    "                           buckets and back and holds the buckets (4P) besides the gradients\n"
    "  --precision fp32|bf16    FSDP/ZeRO gathered parameters and reduced gradients (default fp32)\n"
    "  --shard-group G          HYBRID_SHARD shard group size (default: ranks per node, or half\n"
    "                           the ranks on one node)\n"
    "  --backward-prefetch pre|post|none   FSDP (default pre)\n"
    "  --overlap-comm 0|1       DeepSpeed overlap_comm (default: on for stage 3 only)\n"
    "  --gpu-memory GB          memory per GPU for the recommendation (default 80)\n"
    "  --fits FILE              predict from wb-coll's fits.csv instead of calibrating here\n"
    "  --what-if NODESxGPUS[,...]  measure nothing: predict the steps on clusters of those shapes\n"
    "                           from link figures (--intra-GBps 360 --intra-latency-us 2: NVLink 4\n"
    "                           at 80%; --inter-GBps 46 --inter-latency-us 5: an NDR NIC per GPU)\n"
    "  --global-tokens N        with --what-if: a global batch split over the ranks (strong\n"
    "                           scaling), instead of --tokens per rank\n"
    "  --wiring NAME            label of the wiring (the dst column), e.g. vcluster-1gbit\n"
    "  --link-class CLASS       the link_class column between nodes (default: detected)\n"
    "  --run-dir DIR            results.csv, meta.json, step traces (default .)\n"
    "  --timeout SECONDS        longest wait for any collective (default 60)\n"
    "  --warmup N               untimed steps before measuring (default 2)\n"
    "  --benchmark_min_time, --min-samples, --max-spread, --max-time: as wb-net (how many steps)\n";

struct StepOptions {
  HarnessOptions harness;
  std::string model = "tiny";
  std::string backend = "mpi";
  std::vector<Strategy> strategies;
  StepSettings settings;  // ranks and shard_group filled at run time
  std::optional<int> shard_group;
  double scale = 1;
  bool measure_tflops = false;
  double gpu_memory_GB = 80;
  std::optional<std::string> fits;
  std::optional<WhatIfRequest> what_if;
  std::string wiring;
  std::optional<std::string> link_class;
};

StepOptions parse_step_options(CommandLine& args);

}  // namespace wb::step
