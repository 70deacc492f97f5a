#include "step/step_groups.h"

#include <string>

#include "harness/checked_mpi.h"
#include "harness/errors.h"

namespace wb::step {

void check_shard_group(int shard_group, int ranks) {
  if (shard_group < 1 || ranks % shard_group != 0)
    throw UsageError("--shard-group " + std::to_string(shard_group) + " does not divide " + std::to_string(ranks) +
                     " ranks");
}

std::array<MPI_Comm, kGroups> split_step_groups(MPI_Comm world, int shard_group) {
  int rank = 0, size = 1;
  WB_MPI_CHECK(MPI_Comm_rank(world, &rank));
  WB_MPI_CHECK(MPI_Comm_size(world, &size));
  check_shard_group(shard_group, size);
  std::array<MPI_Comm, kGroups> groups{};
  WB_MPI_CHECK(MPI_Comm_dup(world, &groups[static_cast<int>(Group::kWorld)]));
  WB_MPI_CHECK(MPI_Comm_split(world, rank / shard_group, rank, &groups[static_cast<int>(Group::kShard)]));
  WB_MPI_CHECK(MPI_Comm_split(world, rank % shard_group, rank, &groups[static_cast<int>(Group::kReplicate)]));
  return groups;
}

}  // namespace wb::step
