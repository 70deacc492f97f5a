#include "step/mpich_selection.h"

#include <cmath>

namespace wb::step {

namespace {

int pof2(int p) {  // MPL_pof2: the largest power of two <= p
  int q = 1;
  while (q * 2 <= p) q *= 2;
  return q;
}

bool is_pof2(int p) { return p > 0 && (p & (p - 1)) == 0; }

}  // namespace

MpichChoice mpich_nonblocking_choice(CollOp op, int ranks, double bytes, int element_bytes) {
  const int p = ranks;
  const double elements = bytes / element_bytes;
  using A = Algorithm;
  switch (op) {
    case CollOp::kAllReduce: {
      // avg_msg_size is the rank's buffer in bytes; count<pow2 compares elements with p'.
      if (bytes <= 2048 || elements < pof2(p)) return {A::kRecursiveDoubling, "sched_recursive_doubling"};
      return {A::kRabenseifner, "sched_reduce_scatter_allgather"};
    }
    case CollOp::kReduceScatter:
      // total_msg_size: csel.c overwrites the type's size with recvcount * comm_size for
      // ireduce_scatter_block, so the 524288 threshold counts elements (2 MiB of fp32), not bytes.
      if (elements < 524288) return {A::kRecursiveDoubling, "sched_recursive_halving"};
      return {A::kRing, "sched_pairwise"};
    case CollOp::kAllGather:
      // total_msg_size: the gathered buffer in bytes.
      if (is_pof2(p)) {
        if (bytes < 524288) return {A::kRecursiveDoubling, "sched_recursive_doubling"};
        return {A::kRing, "sched_ring"};
      }
      if (bytes < 81920) return {A::kRecursiveDoubling, "sched_brucks"};
      return {A::kRing, "sched_ring"};
    case CollOp::kBroadcast:
      if (p < 8 || bytes < 12288) return {A::kBinomial, "sched_binomial"};
      if (is_pof2(p) && bytes < 524288) return {A::kRabenseifner, "sched_scatter_recursive_doubling_allgather"};
      return {A::kRabenseifner, "sched_scatter_ring_allgather"};
    case CollOp::kReduce:
      if (bytes <= 2048 || elements < pof2(p)) return {A::kBinomial, "sched_binomial"};
      return {A::kRabenseifner, "sched_reduce_scatter_gather"};
    case CollOp::kAllToAll:
      // Below 32 KiB a rank's messages go all at once (permuted sendrecv): the pairwise formula's
      // bytes, one latency; costed as pairwise here (the formulas have no separate form).
      return {A::kRing, bytes / p <= 32768 ? "sched_permuted_sendrecv" : "sched_pairwise"};
    case CollOp::kSendRecv: return {A::kRing, "isendrecv"};
  }
  return {A::kRing, "?"};
}

std::vector<double> mpich_switch_bytes(CollOp op, int ranks, int element_bytes) {
  // Probe the choice on a geometric grid and pin each change down by bisection on whole elements.
  std::vector<double> switches;
  const double e = element_bytes;
  double lo = e;
  std::string current = mpich_nonblocking_choice(op, ranks, lo, element_bytes).name;
  for (double hi = 2 * e; hi <= 1ull << 40; hi *= 2) {
    const std::string next = mpich_nonblocking_choice(op, ranks, hi, element_bytes).name;
    if (next != current) {
      double a = lo, b = hi;  // choice(a) == current, choice(b) != current
      while (b - a > e) {
        const double mid = std::floor((a + b) / 2 / e) * e;
        if (mid <= a) break;
        (mpich_nonblocking_choice(op, ranks, mid, element_bytes).name == current ? a : b) = mid;
      }
      switches.push_back(b);
      current = next;
    }
    lo = hi;
  }
  return switches;
}

}  // namespace wb::step
