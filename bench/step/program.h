// A training step as a program of operations per rank (docs/step-emulation.md).
// The host issues operations in program order onto streams; a stream runs its operations one after
// the other; an operation also waits for the operations in `after` (events recorded on other
// streams). A host wait stops the host from issuing anything further until an operation has
// finished (FSDP's all-gather limiter). Each communicator has one stream, so collectives on one
// communicator run in the order the host issued them (docs/step-emulation.md, rule 1).
// Executors (MPI threads, CUDA streams) and the cost model's simulation read the same program.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "comm/collective.h"

namespace wb::step {

// Which group a collective runs on. kWorld: every rank; kShard and kReplicate: HYBRID_SHARD's
// groups (the ranks of one shard group; the ranks holding the same shard in every group).
enum class Group { kWorld, kShard, kReplicate };
const char* group_name(Group g);
inline constexpr int kGroups = 3;

enum class OpKind { kCompute, kCollective, kHostWait };

struct Op {
  OpKind kind = OpKind::kCompute;
  std::string label;          // "fwd layer3", "all_gather layer3 (prefetch)"
  double compute_us = 0;      // kCompute: duration at full model scale
  CollOp collective = CollOp::kAllReduce;
  Group group = Group::kWorld;
  int element_bytes = 4;      // the dtype's size: 4 fp32, 2 bf16
  std::uint64_t bytes = 0;    // kCollective: the full buffer S as nccl-tests counts it (unsharded size)
  std::vector<int> after;     // indices of earlier operations this one waits for
  int waits_for = -1;         // kHostWait: the operation the host waits for
};

// Streams: 0 computes; 1 + group runs that group's collectives.
inline constexpr int kComputeStream = 0;
inline int stream_of(const Op& op) { return op.kind == OpKind::kCollective ? 1 + static_cast<int>(op.group) : kComputeStream; }
inline constexpr int kStreams = 1 + kGroups;
const char* stream_name(int stream);

struct Program {
  std::string strategy;            // "ddp", "fsdp-full", ...
  std::string variant_note;        // what the program follows ("as DeepSpeed ships it", ...)
  int ranks = 1;                   // data-parallel ranks
  int group_sizes[kGroups] = {1, 1, 1};
  std::vector<Op> ops;

  int compute(std::string label, double us, std::vector<int> after = {});
  int collective(CollOp kind, Group group, std::uint64_t bytes, int element_bytes, std::string label,
                 std::vector<int> after = {});
  void host_wait(int op_index);
  int last_on(int stream) const;  // the last operation issued so far on a stream, -1 if none
};

// The full-buffer bytes S of every collective kind in the program (all_reduce, all_gather, ...),
// per group: what a "bytes per collective kind" line reports.
std::map<std::string, std::uint64_t> bytes_by_kind(const Program& program);
// Bytes this rank sends for the program's collectives under ring algorithms: S x (n-1)/n for
// gathers and scatters, 2 (n-1)/n for all_reduce (docs/step-emulation.md's volumes).
double ring_bytes_sent_per_rank(const Program& program);
double compute_total_us(const Program& program);

}  // namespace wb::step
