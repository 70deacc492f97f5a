#include "step/program.h"

namespace wb::step {

const char* group_name(Group g) {
  switch (g) {
    case Group::kWorld: return "world";
    case Group::kShard: return "shard";
    case Group::kReplicate: return "replicate";
  }
  return "world";
}

const char* stream_name(int stream) {
  static const char* const names[kStreams] = {"compute", "comm world", "comm shard", "comm replicate"};
  return stream >= 0 && stream < kStreams ? names[stream] : "?";
}

int Program::compute(std::string label, double us, std::vector<int> after) {
  Op op;
  op.kind = OpKind::kCompute;
  op.label = std::move(label);
  op.compute_us = us;
  op.after = std::move(after);
  ops.push_back(std::move(op));
  return static_cast<int>(ops.size()) - 1;
}

int Program::collective(CollOp kind, Group group, std::uint64_t bytes, int element_bytes, std::string label,
                        std::vector<int> after) {
  Op op;
  op.kind = OpKind::kCollective;
  op.collective = kind;
  op.group = group;
  op.bytes = bytes;
  op.element_bytes = element_bytes;
  op.label = std::move(label);
  op.after = std::move(after);
  ops.push_back(std::move(op));
  return static_cast<int>(ops.size()) - 1;
}

void Program::host_wait(int op_index) {
  Op op;
  op.kind = OpKind::kHostWait;
  op.waits_for = op_index;
  op.label = "host waits for " + ops.at(static_cast<std::size_t>(op_index)).label;
  ops.push_back(std::move(op));
}

int Program::last_on(int stream) const {
  for (int i = static_cast<int>(ops.size()) - 1; i >= 0; --i)
    if (ops[static_cast<std::size_t>(i)].kind != OpKind::kHostWait && stream_of(ops[static_cast<std::size_t>(i)]) == stream)
      return i;
  return -1;
}

std::map<std::string, std::uint64_t> bytes_by_kind(const Program& program) {
  std::map<std::string, std::uint64_t> bytes;
  for (const Op& op : program.ops) {
    if (op.kind != OpKind::kCollective) continue;
    std::string key = describe(op.collective).name;
    if (op.group != Group::kWorld) key += std::string("@") + group_name(op.group);
    bytes[key] += op.bytes;
  }
  return bytes;
}

double ring_bytes_sent_per_rank(const Program& program) {
  double total = 0;
  for (const Op& op : program.ops) {
    if (op.kind != OpKind::kCollective) continue;
    const int n = program.group_sizes[static_cast<int>(op.group)];
    total += static_cast<double>(op.bytes) * describe(op.collective).busbw_factor(n);
  }
  return total;
}

double compute_total_us(const Program& program) {
  double total = 0;
  for (const Op& op : program.ops)
    if (op.kind == OpKind::kCompute) total += op.compute_us;
  return total;
}

}  // namespace wb::step
