// The communicators of a step, as HYBRID_SHARD lays them out: every rank (world); shard groups of
// `shard_group` consecutive ranks (a node, when ranks are placed node by node); replica groups of
// the ranks holding the same shard in every shard group. Shared by the MPI and NCCL executors.
#pragma once

#include <mpi.h>

#include <array>

#include "step/program.h"

namespace wb::step {

// Throws UsageError unless `shard_group` divides `ranks`.
void check_shard_group(int shard_group, int ranks);

// Collective over `world`: new communicators, indexed by Group, that the caller frees.
std::array<MPI_Comm, kGroups> split_step_groups(MPI_Comm world, int shard_group);

}  // namespace wb::step
