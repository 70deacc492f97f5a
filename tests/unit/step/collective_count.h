// Counting a step program's collectives of one kind on one group, and their bytes: what the
// tensor- and expert-parallel tests hold against the formulas.
#pragma once

#include <cstdint>

#include "step/program.h"

namespace wb::step::testing {

struct CollectiveCount {
  int calls = 0;
  std::uint64_t bytes = 0;
};

inline CollectiveCount count_collectives(const Program& p, CollOp op, Group g) {
  CollectiveCount c;
  for (const Op& o : p.ops)
    if (o.kind == OpKind::kCollective && o.collective == op && o.group == g) {
      ++c.calls;
      c.bytes += o.bytes;
    }
  return c;
}

}  // namespace wb::step::testing
