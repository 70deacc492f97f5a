// `wirebench place --gpus K`: which K GPUs of a node to give a job (topology/gpu_placement.h), as
// CUDA_VISIBLE_DEVICES values and Slurm gres.conf lines, from the live node or a saved
// `nvidia-smi topo -m`; with --tp/--dp, which ranks share a node and which GPUs each group takes.
#pragma once

#include <string>

#include "harness/command_line.h"

namespace wb {

std::string place_help();
// Returns the exit code: 0, or 3 for bad usage or input.
int run_place_command(CommandLine& args);

}  // namespace wb
