// --algorithm in a measured wb-step run: the library is made to run one algorithm for every
// collective that has it (MPICH's MPIR_CVAR_I<OP>_INTRA_ALGORITHM: the executor starts nonblocking
// collectives; NCCL's NCCL_ALGO), set in the environment before MPI_Init and ncclCommInit read it. The
// calibration then measures that algorithm, so the prediction beside each measured step is of it.
#pragma once

#include <string>
#include <vector>

#include "step/collective_algorithms.h"

namespace wb::step {

using ForcedSetting = MpichSetting;  // a variable and its value, MPICH's or NCCL's

// What forcing `a` sets on `backend` ("mpi": MPICH's variables for every collective that has it;
// "nccl": NCCL_ALGO=Ring|Tree). Throws UsageError where the backend has no such algorithm, naming
// the ones it has.
std::vector<ForcedSetting> forced_algorithm_settings(Algorithm a, const std::string& backend);

// From argv, before MPI_Init: a measured run's --algorithm NAME (not with --what-if) applied with
// setenv. Anything it cannot read is left to the full parse, which reports it.
void force_algorithm_early(int argc, char** argv);

// One line a collective: what the library was made to run for it, or that it chose.
std::string forced_algorithm_note(Algorithm a, const std::string& backend);

}  // namespace wb::step
