// A collective as a timed batch, timed as nccl-tests times it: `iterations` calls (-n), each of
// `agg_iters` calls in one group (-m); on a backend whose calls queue on a stream (NCCL) and
// without -z 1 they are all launched back to back and synchronised once; otherwise each call is
// waited for (MPI: its blocking call with -z 1, its non-blocking call and a wait with -z 0). With
// -G N the batch is captured once as a CUDA graph and launched N times. Then `checks` checked
// runs with fresh inputs (-c).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "comm/communicator.h"
#include "coll/coll_buffers.h"
#include "comm/collective.h"
#include "harness/timed_batch.h"

namespace wb {

struct CollBatchConfig {
  CollOp op = CollOp::kAllReduce;
  DType dtype = DType::kFloat32;
  RedOp redop = RedOp::kSum;
  int root = 0;
  bool in_place = false;
  bool blocking = true;
  CollectiveShape shape;
  std::size_t iterations = 1;  // -n: calls (or groups of agg_iters calls) per timed batch
  std::size_t agg_iters = 1;   // -m: calls per group
  bool report_cputime = false; // -C 1: the batch's time ends when the last call is launched
  int checks = 1;              // checked runs after timing; 0: data not checked
  bool corrupt_result = false; // --inject-fault corrupt: proves the check works
  int graph_launches = 0;      // -G N: the batch's calls captured once as a CUDA graph, launched N times
  // With several communicators (--split): given the seconds of each batch this rank ran, the
  // row's `extra` item with every communicator's own time (called on every rank).
  std::function<std::string(const std::vector<double>& batch_seconds)> per_communicator_extra;
  std::size_t warmup_batches = 0;  // the harness's untimed batches: left out of batch_seconds
  std::size_t warmup_calls = 0;    // untimed calls before the first batch (nccl-tests' -w, exactly)
};

// Bytes of the buffers a rank needs: {send, recv}.
std::pair<std::size_t, std::size_t> buffer_bytes(const CollBatchConfig& config);

std::unique_ptr<TimedBatch> make_coll_batch(Communicator& comm, std::unique_ptr<CollBuffers> buffers,
                                            const CollBatchConfig& config);

}  // namespace wb
