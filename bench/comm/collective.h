// Each collective described once, as nccl-tests does: how many elements a rank sends and receives
// for a collective of S bytes, nccl-tests' bus-bandwidth factor, whether it reduces or has a root,
// and the data check (what every rank puts in, what every rank must get out). One loop serves
// them all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "comm/dtype.h"
#include "collective_check.h"

namespace wb {

enum class CollOp { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kReduce, kAllToAll, kSendRecv };

// Elements of one call. `count` is the count argument of the call as NCCL takes it (all_gather:
// per-rank send count; reduce_scatter: per-rank receive count; all_to_all: per-peer chunk).
struct CollectiveShape {
  std::size_t count = 0;
  std::size_t send_elements = 0, recv_elements = 0;
  std::uint64_t bytes = 0;  // S as nccl-tests counts it, after rounding to whole elements
};

struct CollectiveDescriptor {
  CollOp op;
  const char* name;        // all_reduce, ...: the `op` column and the name in benchmark names
  const char* mpich;       // MPICH's name of the call wirebench makes, in its control variables
                           // (ALLREDUCE, REDUCE_SCATTER_BLOCK: MPI_Reduce_scatter_block); "" for send_recv
  bool reduces;
  bool rooted;
  bool sharded;            // S is split over ranks (all_gather, reduce_scatter, all_to_all)
  double (*busbw_factor)(int ranks);
};

const CollectiveDescriptor& describe(CollOp op);
std::vector<CollOp> all_collectives();
std::optional<CollOp> find_collective(std::string_view text);  // all_reduce, allreduce, bcast, ...
CollOp parse_collective(std::string_view text);                 // the same; throws UsageError
// MPIR_CVAR_<MPICH NAME>_INTRA_ALGORITHM: the variable that picks the algorithm of the blocking call
// wirebench makes for OP (the nonblocking one's is MPIR_CVAR_I<...>); "" for send_recv.
std::string mpich_algorithm_variable(CollOp op);

CollectiveShape shape_of(CollOp op, std::uint64_t bytes, DType dtype, int ranks);

// The data check. Values are small whole numbers, so every reduction is exact in every type.
struct CheckContext {
  CollOp op = CollOp::kAllReduce;
  DType dtype = DType::kFloat32;
  RedOp redop = RedOp::kSum;
  int ranks = 1;
  int root = 0;
  std::uint64_t seed = 0;  // differs per check run
  std::size_t count = 0;   // CollectiveShape::count
};

// What `rank` puts at `index` of its send buffer.
double input_value(const CheckContext& c, int rank, std::size_t index);
// What `rank` must find at `index` of its receive buffer (every expected value is at least 1, so
// a buffer poisoned with 0 cannot pass).
double expected_value(const CheckContext& c, int rank, std::size_t index);
// Whether `rank` receives anything to check (reduce: only the root).
bool receives_result(const CheckContext& c, int rank);

// The same context in the terms of the device check (kernels/collective_check.h).
collcheck::Params check_params(const CheckContext& c);
// Elements of a rank's send and receive buffers in the check.
std::size_t check_send_elements(const CheckContext& c);
std::size_t check_recv_elements(const CheckContext& c);

void fill_send(const CheckContext& c, int rank, void* buffer);     // send_elements values
void poison_recv(const CheckContext& c, void* buffer);             // recv_elements zeros
std::uint64_t count_wrong(const CheckContext& c, int rank, const void* buffer);  // recv elements

}  // namespace wb
