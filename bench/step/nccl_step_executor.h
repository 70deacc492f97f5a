// The NCCL executor of step programs: one GPU per rank; the compute stream runs a busy kernel of
// each computation's duration (kernels/compute_kernels.h); each group's NCCL communicator has its
// own stream; `after` becomes cudaStreamWaitEvent, a host wait polls the event with a deadline,
// and CUDA events time every operation. A collective that does not finish within the timeout
// aborts the NCCL communicators and fails the step with a TimeoutError.
#pragma once

#include <mpi.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "step/step_executor.h"

namespace wb::step {

// Why the NCCL executor cannot run here (no CUDA build, no GPU), or nothing.
std::optional<std::string> nccl_step_unavailable();
// Collective over `world`: selects this rank's GPU, creates the world, shard and replicate
// communicators (bootstrapped over MPI).
std::unique_ptr<StepExecutor> make_nccl_step_executor(MPI_Comm world, int shard_group,
                                                      std::chrono::milliseconds timeout, double scale);

// The compute rate of this rank's GPU for an m x k by k x n bf16 GEMM, TFLOP/s (cuBLAS).
double measure_step_tflops(int m, int n, int k, std::chrono::milliseconds timeout);

}  // namespace wb::step
