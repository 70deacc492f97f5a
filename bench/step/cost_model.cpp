#include "step/cost_model.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "coll/fits_file.h"
#include "harness/errors.h"
#include "step/mpich_selection.h"
#include "step/nccl_algorithms.h"

namespace wb::step {

void CollectiveCosts::add_sweep(CollOp op, int ranks, std::vector<SweepPoint> points, const AlphaBeta& fit, int group,
                                int element_bytes, CallContext context) {
  std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
  sweeps_[index(context)][{op, ranks, group, element_bytes}] = std::move(points);
  add_fit(op, ranks, fit, group, element_bytes, context);
}

namespace {

// Linear through two points, and beyond them along the same line.
double through(const SweepPoint& a, const SweepPoint& b, double bytes) {
  const double x0 = static_cast<double>(a.bytes), x1 = static_cast<double>(b.bytes);
  const double w = x1 > x0 ? (bytes - x0) / (x1 - x0) : 0;
  return a.time_us + w * (b.time_us - a.time_us);
}

}  // namespace

std::optional<double> CollectiveCosts::lookup_us(int context, CollOp op, int ranks, double bytes, int group,
                                                 int element_bytes) const {
  for (const Key& key : {Key{op, ranks, group, element_bytes}, Key{op, ranks, group, kAny},
                         Key{op, ranks, kAny, element_bytes}, Key{op, ranks, kAny, kAny}}) {
    if (const auto sweep = sweeps_[context].find(key); sweep != sweeps_[context].end() && sweep->second.size() >= 2) {
      const auto& all = sweep->second;
      if (bytes >= static_cast<double>(all.front().bytes) && bytes <= static_cast<double>(all.back().bytes)) {
        // Only the points MPICH ran the same algorithm at: never a line from one algorithm to another.
        std::vector<SweepPoint> p;
        const int element = std::get<3>(key) == kAny ? 4 : std::get<3>(key);
        const std::string runs = mpich_ ? mpich_nonblocking_choice(op, ranks, bytes, element).name : "";
        for (const SweepPoint& point : all)
          if (!mpich_ || mpich_nonblocking_choice(op, ranks, static_cast<double>(point.bytes), element).name == runs)
            p.push_back(point);
        if (p.size() >= 2) {
          std::size_t i = 1;
          while (i + 1 < p.size() && static_cast<double>(p[i].bytes) < bytes) ++i;
          return std::max(0.0, through(p[i - 1], p[i], bytes));
        }
        if (p.size() == 1) {  // one point of that algorithm: its time, the fit's slope for the rest
          const auto fit = fits_[context].find(key);
          const double slope = fit != fits_[context].end() ? fit->second.beta_us_per_byte : 0;
          return p[0].time_us + (bytes - static_cast<double>(p[0].bytes)) * slope;
        }
      }
    }
    if (const auto it = fits_[context].find(key); it != fits_[context].end())
      return it->second.alpha_us + bytes * it->second.beta_us_per_byte;
  }
  // Another group size: the collective's own link through the formula of what runs at this one.
  for (const auto& link_key : {std::pair{op, element_bytes}, std::pair{op, kAny}})
    if (const auto it = links_[context].find(link_key); it != links_[context].end()) {
      const int element = element_bytes == kAny ? 4 : element_bytes;
      const Algorithm a = mpich_ ? mpich_nonblocking_choice(op, ranks, bytes, element).algorithm : Algorithm::kRing;
      const double early = context == index(CallContext::kIsolated) ? early_first_step_bytes(op, a, ranks, bytes) : 0;
      return flat_time_us(op, a, ranks, bytes, it->second) + early * it->second.beta_us_per_byte;
    }
  return std::nullopt;
}

double CollectiveCosts::predict_us(CollOp op, int ranks, double bytes, int group, int element_bytes,
                                   CallContext context) const {
  if (ranks <= 1) return 0;
  const int first = index(context);
  for (const int c : {first, 1 - first})
    if (const auto t = lookup_us(c, op, ranks, bytes, group, element_bytes)) return *t;
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
      if (!costs.fits_[0].count({op, row.ranks, kAny, kAny})) costs.add_fit(op, row.ranks, fit);
    } catch (const UsageError& e) {
      throw InputError(path, row.line, e.what());
    }
  }
  return costs;
}

Timeline predict_step(const Program& program, const CollectiveCosts& costs, double scale, const SharedLink& shared) {
  return simulate(program, [&](const Op& op, CallContext context) {
    if (op.kind == OpKind::kCompute) return scaled_compute_us(op, scale);
    const int n = program.group_sizes[static_cast<int>(op.group)];
    return costs.predict_us(op.collective, n, static_cast<double>(scaled_bytes(op, n, scale)), static_cast<int>(op.group),
                            op.element_bytes, context);
  }, shared);
}

}  // namespace wb::step

namespace wb::step {

ClusterWiring group_wiring(const Program& program, Group group, const ClusterWiring& wiring) {
  const int per_node = std::max(1, wiring.gpus_per_node);
  const int shard = program.group_sizes[static_cast<int>(Group::kShard)];
  ClusterWiring sub = wiring;
  switch (group) {
    case Group::kWorld: break;
    case Group::kShard:  // consecutive ranks: inside a node, or whole nodes of it
      sub.gpus_per_node = std::min(shard, per_node);
      sub.nodes = std::max(1, shard / per_node);
      break;
    case Group::kReplicate:  // one rank of each shard group: several per node when shards are smaller
      sub.gpus_per_node = std::max(1, per_node / std::max(1, shard));
      sub.nodes = std::max(1, program.group_sizes[static_cast<int>(Group::kReplicate)] / sub.gpus_per_node);
      break;
  }
  return sub;
}

AlgorithmChoice predict_collective(const Program& program, const Op& op, const ClusterWiring& wiring,
                                   const AlgorithmPolicy& policy) {
  const double bytes = static_cast<double>(op.bytes);
  const ClusterWiring where = group_wiring(program, op.group, wiring);
  if (policy.nccl)
    return choose_algorithm(nccl_algorithms_for(op.collective, where), policy,
                            [&](Algorithm a) { return nccl_time_us(op.collective, a, bytes, where); });
  return choose_algorithm(mpi_algorithms_for(op.collective), policy,
                          [&](Algorithm a) { return hierarchical_time_us(op.collective, a, bytes, where); });
}

Timeline predict_step(const Program& program, const ClusterWiring& wiring, const AlgorithmPolicy& policy) {
  return simulate(program, [&](const Op& op) {
    if (op.kind == OpKind::kCompute) return op.compute_us;
    return predict_collective(program, op, wiring, policy).time_us;
  });
}

AlgorithmUse algorithms_used(const Program& program, const ClusterWiring& wiring, const AlgorithmPolicy& policy) {
  AlgorithmUse use;
  for (const Op& op : program.ops) {
    if (op.kind != OpKind::kCollective) continue;
    std::string key = describe(op.collective).name;
    if (op.group != Group::kWorld) key += std::string("@") + group_name(op.group);  // as bytes_by_kind names it
    ++use[key][predict_collective(program, op, wiring, policy).algorithm];
  }
  return use;
}

std::string describe_algorithm_use(const AlgorithmUse& use) {
  std::string text;
  for (const auto& [kind, counts] : use) {
    text += (text.empty() ? "" : "; ") + kind + ":";
    bool first = true;
    for (const auto& [algorithm, count] : counts) {
      text += std::string(first ? " " : ", ") + algorithm_name(algorithm) + " " + std::to_string(count);
      first = false;
    }
  }
  return text.empty() ? "no collectives" : text;
}

}  // namespace wb::step
