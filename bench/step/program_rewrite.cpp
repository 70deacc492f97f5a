#include "step/program_rewrite.h"

namespace wb::step {

void rewrite_program(const Program& source, Program& target, const std::function<Group(Group)>& group_of,
                     const RewriteCompute& compute) {
  std::vector<int> index(source.ops.size(), -1);  // source op -> the op that stands for it in target
  int pending = -1;
  for (std::size_t i = 0; i < source.ops.size(); ++i) {
    const Op& op = source.ops[i];
    if (op.kind == OpKind::kHostWait) {
      index[i] = index[static_cast<std::size_t>(op.waits_for)];
      target.host_wait(index[i]);
      continue;
    }
    std::vector<int> after;
    for (int a : op.after) after.push_back(index[static_cast<std::size_t>(a)]);
    if (op.kind == OpKind::kCollective) {
      index[i] = target.collective(op.collective, group_of(op.group), op.bytes, op.element_bytes, op.label, after);
      continue;
    }
    if (pending >= 0) after.push_back(pending);
    const ComputeRewrite r = compute(op, std::move(after));
    index[i] = r.stands_for;
    pending = r.next_waits_for;
  }
}

std::map<std::string, bool> layer_passes(const Model& model) {
  std::map<std::string, bool> passes;
  for (std::size_t u = 1; u < model.units.size(); ++u) {
    passes["fwd " + model.units[u].name] = true;
    passes["bwd " + model.units[u].name] = false;
  }
  return passes;
}

}  // namespace wb::step
