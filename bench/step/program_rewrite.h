// A data-parallel step rebuilt with a model-parallel dimension (tensor_parallel.h, expert_parallel.h):
// the source program's operations copied in order, their dependencies remapped, each collective's
// group mapped, and each compute handed to a callback that emits what stands for it (a layer's
// blocks with the collectives between them). A compute may leave a collective that the next compute
// must wait for: the activations its block produced.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "step/model.h"
#include "step/program.h"

namespace wb::step {

struct ComputeRewrite {
  int stands_for = -1;      // the op the original's dependants wait for
  int next_waits_for = -1;  // the collective the next compute waits for, -1 for none
};
// `after`: the original's dependencies, remapped, and what the previous compute left to wait for.
using RewriteCompute = std::function<ComputeRewrite(const Op& original, std::vector<int> after)>;

// Rebuilds `source` into `target` (whose name, note and group sizes the caller sets).
void rewrite_program(const Program& source, Program& target, const std::function<Group(Group)>& group_of,
                     const RewriteCompute& compute);

// The labels of the layers' computes in a step program ("fwd layer3", "bwd layer3"), true for forward.
std::map<std::string, bool> layer_passes(const Model& model);

}  // namespace wb::step
