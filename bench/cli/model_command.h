// `wirebench model`: the cost model held against measured algorithms. From a run's results.csv,
// where wb-coll measured one collective under several of MPICH's algorithms
// (--mpich-algorithm allreduce=ring, ...), it fits the link on one algorithm and predicts the
// others with their formulas (no refit): per size the measured and predicted times, the error, which
// algorithm each says is faster, and the crossover size.
#pragma once

#include <string>

#include "harness/command_line.h"

namespace wb {

std::string model_help();
// Returns the exit code: 0, or 3 for bad usage or input.
int run_model_command(CommandLine& args);

}  // namespace wb
