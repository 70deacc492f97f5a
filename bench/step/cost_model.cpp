#include "step/cost_model.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "coll/fits_file.h"
#include "harness/errors.h"

namespace wb::step {

double ring_time_us(CollOp op, int ranks, double bytes, const LinkCost& link) {
  if (ranks <= 1) return 0;
  const double p = ranks;
  switch (op) {
    case CollOp::kAllReduce: return 2 * (p - 1) * link.alpha_us + 2 * (p - 1) / p * bytes * link.beta_us_per_byte;
    case CollOp::kAllGather:
    case CollOp::kReduceScatter:
    case CollOp::kAllToAll: return (p - 1) * link.alpha_us + (p - 1) / p * bytes * link.beta_us_per_byte;
    case CollOp::kBroadcast:
    case CollOp::kReduce:
    case CollOp::kSendRecv: return link.alpha_us + bytes * link.beta_us_per_byte;
  }
  return 0;
}

void CollectiveCosts::add_sweep(CollOp op, int ranks, std::vector<SweepPoint> points, const AlphaBeta& fit, int group,
                                int element_bytes) {
  std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
  sweeps_[{op, ranks, group, element_bytes}] = std::move(points);
  add_fit(op, ranks, fit, group, element_bytes);
}

double CollectiveCosts::predict_us(CollOp op, int ranks, double bytes, int group, int element_bytes) const {
  if (ranks <= 1) return 0;
  for (const auto& key : {std::tuple{op, ranks, group, element_bytes}, std::tuple{op, ranks, group, kAny},
                          std::tuple{op, ranks, kAny, element_bytes}, std::tuple{op, ranks, kAny, kAny}}) {
    if (const auto sweep = sweeps_.find(key); sweep != sweeps_.end() && sweep->second.size() >= 2) {
      const auto& p = sweep->second;
      if (bytes >= static_cast<double>(p.front().bytes) && bytes <= static_cast<double>(p.back().bytes)) {
        std::size_t i = 1;
        while (i + 1 < p.size() && static_cast<double>(p[i].bytes) < bytes) ++i;
        const double x0 = static_cast<double>(p[i - 1].bytes), x1 = static_cast<double>(p[i].bytes);
        const double w = x1 > x0 ? (bytes - x0) / (x1 - x0) : 0;
        return p[i - 1].time_us + w * (p[i].time_us - p[i - 1].time_us);
      }
    }
    if (const auto it = fits_.find(key); it != fits_.end())
      return it->second.alpha_us + bytes * it->second.beta_us_per_byte;
  }
  if (link_) return ring_time_us(op, ranks, bytes, *link_);
  throw std::out_of_range(std::string("no cost for ") + describe(op).name + " on " + std::to_string(ranks) +
                          " ranks: neither a fit nor a link cost");
}

CollectiveCosts CollectiveCosts::from_fits_csv(const std::string& path, const std::string& link_class) {
  CollectiveCosts costs;
  for (const FitRow& row : read_fits_csv(path)) {
    if (!link_class.empty() && row.link_class != link_class) continue;
    if (row.case_name == "in_place") continue;  // a step's collectives are out of place
    try {
      const AlphaBeta fit{row.alpha_us, row.beta_us_per_byte, 0};
      const CollOp op = parse_collective(row.op);
      costs.add_fit(op, row.ranks, fit, kAny, static_cast<int>(info(parse_dtype(row.dtype)).size));
      // Also for any element size, unless an earlier row answered for it already.
      if (!costs.fits_.count({op, row.ranks, kAny, kAny})) costs.add_fit(op, row.ranks, fit);
    } catch (const UsageError& e) {
      throw InputError(path, row.line, e.what());
    }
  }
  return costs;
}

Timeline predict_step(const Program& program, const CollectiveCosts& costs, double scale) {
  return simulate(program, [&](const Op& op) {
    if (op.kind == OpKind::kCompute) return scaled_compute_us(op, scale);
    const int n = program.group_sizes[static_cast<int>(op.group)];
    return costs.predict_us(op.collective, n, static_cast<double>(scaled_bytes(op, n, scale)), static_cast<int>(op.group),
                            op.element_bytes);
  });
}

}  // namespace wb::step

namespace wb::step {

double hierarchical_time_us(CollOp op, double bytes, const ClusterWiring& w) {
  const int g = w.gpus_per_node, k = w.nodes;
  if (k <= 1) return ring_time_us(op, g, bytes, w.intra);
  if (g <= 1) return ring_time_us(op, k, bytes, w.inter);
  switch (op) {
    case CollOp::kAllReduce:
    case CollOp::kAllGather:
    case CollOp::kReduceScatter:
      // Inside the node over the whole buffer, across nodes over this GPU's g-th of it.
      return ring_time_us(op, g, bytes, w.intra) + ring_time_us(op, k, bytes / g, w.inter);
    default:
      return ring_time_us(op, g * k, bytes, w.inter);  // flat, limited by the NICs
  }
}

Timeline predict_step(const Program& program, const ClusterWiring& wiring) {
  return simulate(program, [&](const Op& op) {
    if (op.kind == OpKind::kCompute) return op.compute_us;
    const double bytes = static_cast<double>(op.bytes);
    switch (op.group) {
      case Group::kWorld: return hierarchical_time_us(op.collective, bytes, wiring);
      case Group::kShard:
        return ring_time_us(op.collective, program.group_sizes[static_cast<int>(Group::kShard)], bytes, wiring.intra);
      case Group::kReplicate:
        return ring_time_us(op.collective, program.group_sizes[static_cast<int>(Group::kReplicate)], bytes, wiring.inter);
    }
    return 0.0;
  });
}

}  // namespace wb::step
