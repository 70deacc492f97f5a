// A collective as a timed batch: `iterations` calls back to back (blocking, or started and then
// waited for), then `checks` checked runs with fresh inputs, as nccl-tests does with -n and -c.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "comm/communicator.h"
#include "coll/coll_buffers.h"
#include "coll/collective.h"
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
  std::size_t iterations = 1;  // calls per timed batch
  int checks = 1;              // checked runs after timing; 0: data not checked
  bool corrupt_result = false; // --inject-fault corrupt: proves the check works
  bool graph = false;          // -G: the batch's calls captured once as a CUDA graph, then replayed
  // With several communicators (--split): given the seconds of each batch this rank ran, the
  // row's `extra` item with every communicator's own time (called on every rank).
  std::function<std::string(const std::vector<double>& batch_seconds)> per_communicator_extra;
  std::size_t warmup_batches = 0;  // the harness's untimed batches: left out of batch_seconds
};

// Calls per batch: many for small collectives (timer and synchronisation vanish), few for large.
std::size_t iterations_per_batch(std::uint64_t bytes);

// Bytes of the buffers a rank needs: {send, recv}.
std::pair<std::size_t, std::size_t> buffer_bytes(const CollBatchConfig& config);

std::unique_ptr<TimedBatch> make_coll_batch(Communicator& comm, std::unique_ptr<CollBuffers> buffers,
                                            const CollBatchConfig& config);

}  // namespace wb
