// Which algorithm MPICH runs for each nonblocking collective wb-step's MPI executor starts
// (MPI_Iallreduce, MPI_Iallgather, MPI_Ireduce_scatter_block, ...), by the default selection tree
// MPICH 4.1-5.0 compile in (maint/tuning/coll/mpir/generic.json, evaluated by src/mpi/coll/src/csel.c)
// for an intra-communicator, a built-in commutative operation (MPI_SUM) and out-of-place buffers.
// The cost model follows the algorithm MPICH picks at each size and group size, so a prediction at
// a group size that was not calibrated, or between sweep points on either side of a switch, costs
// the algorithm that will run. Environment settings that force an algorithm
// (MPIR_CVAR_I<OP>_INTRA_ALGORITHM) are the caller's to apply (force_algorithm.h).
#pragma once

#include <string>
#include <vector>

#include "step/collective_algorithms.h"

namespace wb::step {

struct MpichChoice {
  Algorithm algorithm;  // the formula that costs it (collective_algorithms.h)
  std::string name;     // MPICH's: "sched_reduce_scatter_allgather"
};

// `bytes` is the full buffer S (nccl-tests' count), `ranks` the communicator's size.
MpichChoice mpich_nonblocking_choice(CollOp op, int ranks, double bytes, int element_bytes);

// The sizes S at which the choice changes on `ranks` ranks (the first size of the new choice),
// ascending: what a sweep must not interpolate across.
std::vector<double> mpich_switch_bytes(CollOp op, int ranks, int element_bytes);

}  // namespace wb::step
