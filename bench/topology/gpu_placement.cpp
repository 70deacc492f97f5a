#include "topology/gpu_placement.h"

#include <algorithm>
#include <functional>
#include <set>
#include <tuple>

#include "harness/errors.h"

namespace wb {
namespace {

std::string join(const std::vector<int>& values, const char* separator) {
  std::string text;
  // Appended piece by piece (GCC 12's false -Wrestrict on "literal" + string at -O3: size_spec.cpp).
  for (int v : values) {
    if (!text.empty()) text += separator;
    text += std::to_string(v);
  }
  return text;
}

bool near_a_nic(const TopoMatrix& m, std::size_t gpu) {
  for (std::size_t nic : m.nic_indices()) {
    const PathKind kind = m.at(gpu, nic).kind;
    if (kind == PathKind::kPix || kind == PathKind::kPxb) return true;
  }
  return false;
}

GpuSet describe_set(const TopoMatrix& m, const std::vector<std::size_t>& devices) {
  GpuSet set;
  set.bottleneck.kind = PathKind::kSelf;
  std::set<std::string> numa;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    set.gpus.push_back(m.devices[devices[i]].index);
    if (near_a_nic(m, devices[i])) ++set.gpus_near_a_nic;
    numa.insert(m.devices[devices[i]].numa_affinity);
    for (std::size_t j = i + 1; j < devices.size(); ++j) {
      const TopoCell& cell = m.at(devices[i], devices[j]);
      if (set.pairs_at_bottleneck == 0 || nearer(set.bottleneck, cell)) {
        set.bottleneck = cell;
        set.pairs_at_bottleneck = 1;
      } else if (!nearer(cell, set.bottleneck)) {
        ++set.pairs_at_bottleneck;
      }
    }
  }
  set.numa_nodes = static_cast<int>(numa.size());
  std::sort(set.gpus.begin(), set.gpus.end());
  return set;
}

bool better(const GpuSet& a, const GpuSet& b) {
  if (nearer(a.bottleneck, b.bottleneck)) return true;
  if (nearer(b.bottleneck, a.bottleneck)) return false;
  return std::tie(a.pairs_at_bottleneck, b.gpus_near_a_nic, a.numa_nodes, a.gpus) <
         std::tie(b.pairs_at_bottleneck, a.gpus_near_a_nic, b.numa_nodes, b.gpus);
}

// Every k-set of the given GPU devices (matrix indices), best first.
std::vector<GpuSet> rank_among(const TopoMatrix& m, const std::vector<std::size_t>& candidates, int k) {
  std::vector<GpuSet> sets;
  std::vector<std::size_t> chosen;
  std::function<void(std::size_t)> pick = [&](std::size_t from) {
    if (static_cast<int>(chosen.size()) == k) {
      sets.push_back(describe_set(m, chosen));
      return;
    }
    for (std::size_t i = from; i < candidates.size(); ++i) {
      chosen.push_back(candidates[i]);
      pick(i + 1);
      chosen.pop_back();
    }
  };
  pick(0);
  std::sort(sets.begin(), sets.end(), better);
  return sets;
}

std::size_t device_of_gpu(const TopoMatrix& m, int gpu) {
  for (std::size_t i : m.gpu_indices())
    if (m.devices[i].index == gpu) return i;
  return 0;
}

}  // namespace

std::string GpuSet::cuda_visible_devices() const { return join(gpus, ","); }

bool nearer(const TopoCell& a, const TopoCell& b) {
  if (a.kind != b.kind) return a.kind < b.kind;
  return a.kind == PathKind::kNvlink && a.nvlinks > b.nvlinks;
}

std::vector<GpuSet> rank_gpu_sets(const TopoMatrix& matrix, int k) {
  const std::vector<std::size_t> gpus = matrix.gpu_indices();
  if (k < 1 || k > static_cast<int>(gpus.size()))
    throw UsageError("--gpus " + std::to_string(k) + ": the node has " + std::to_string(gpus.size()) + " GPU(s)");
  return rank_among(matrix, gpus, k);
}

std::vector<std::string> gres_conf_lines(const TopoMatrix& m) {
  std::vector<std::size_t> gpus = m.gpu_indices();
  std::sort(gpus.begin(), gpus.end(), [&](auto a, auto b) { return m.devices[a].index < m.devices[b].index; });
  std::vector<std::string> lines;
  for (std::size_t g : gpus) {
    std::vector<int> links;
    for (std::size_t h : gpus) {
      const TopoCell& cell = m.at(g, h);
      links.push_back(g == h ? -1 : cell.kind == PathKind::kNvlink ? cell.nvlinks : 0);
    }
    std::string line = "Name=gpu File=/dev/nvidia" + std::to_string(m.devices[g].index) + " Links=" + join(links, ",");
    const TopoDevice& d = m.devices[g];
    if (!d.cpu_affinity.empty() || !d.numa_affinity.empty())
      line += "  # NUMA " + (d.numa_affinity.empty() ? std::string("?") : d.numa_affinity) + ", CPUs " +
              (d.cpu_affinity.empty() ? std::string("?") : d.cpu_affinity);
    lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> placement_warnings(const TopoMatrix& m, const std::vector<GpuSet>& ranked) {
  std::vector<std::string> warnings;
  if (ranked.empty() || ranked[0].gpus.size() < 2) return warnings;
  const GpuSet& best = ranked[0];
  const std::vector<std::size_t> gpus = m.gpu_indices();
  bool any_nvlink = false;
  std::vector<std::string> switch_pairs;
  for (std::size_t i = 0; i < gpus.size(); ++i)
    for (std::size_t j = i + 1; j < gpus.size(); ++j) {
      const TopoCell& cell = m.at(gpus[i], gpus[j]);
      if (cell.kind == PathKind::kNvlink) any_nvlink = true;
      if (cell.kind == PathKind::kPix || cell.kind == PathKind::kPxb)
        switch_pairs.push_back(std::to_string(m.devices[gpus[i]].index) + "-" + std::to_string(m.devices[gpus[j]].index) +
                               " (" + cell.text() + ")");
    }
  const std::string k = std::to_string(best.gpus.size());
  if (!any_nvlink) {
    warnings.push_back("no NVLink between these GPUs: a job of " + k + " GPUs is limited to PCIe (its slowest pair: " +
                       best.bottleneck.text() + ")");
    std::string pairs;
    for (const std::string& p : switch_pairs) pairs += (pairs.empty() ? "" : ", ") + p;
    warnings.push_back(pairs.empty() ? "no two GPUs share a PCIe switch: every pair crosses a host bridge or the sockets"
                                     : "GPU pairs behind one PCIe switch: " + pairs +
                                           "; gres.conf's Links= counts NVLinks only, so Slurm will not prefer "
                                           "them: place the job with CUDA_VISIBLE_DEVICES");
  } else if (best.bottleneck.kind != PathKind::kNvlink) {
    warnings.push_back("a set of " + k + " GPUs must span NVLink domains: the best (" + best.cuda_visible_devices() +
                       ") has " + std::to_string(best.pairs_at_bottleneck) + " pair(s) over " + best.bottleneck.text() +
                       ", limited to PCIe or the socket interconnect there");
  }
  return warnings;
}

std::vector<std::string> layout_lines(const TopoMatrix& m, int nodes, int tp, int dp, int gpus_per_node) {
  std::vector<std::string> lines;
  const int on_node = static_cast<int>(m.gpu_indices().size());
  if (gpus_per_node < 1 || gpus_per_node > on_node)
    throw UsageError("--gpus " + std::to_string(gpus_per_node) + ": a node of this wiring has " + std::to_string(on_node) +
                     " GPUs");
  const int per_node = gpus_per_node;  // the job's GPUs on each node, not every GPU the node has
  const int world = tp * dp;
  if (nodes < 1 || tp < 1 || dp < 1) throw UsageError("--nodes, --tp and --dp must be at least 1");
  if (world > nodes * per_node)
    throw UsageError("TP " + std::to_string(tp) + " x DP " + std::to_string(dp) + " = " + std::to_string(world) +
                     " GPUs, but " + std::to_string(nodes) + " node(s) x " + std::to_string(per_node) + " have " +
                     std::to_string(nodes * per_node));
  lines.push_back("ranks: tp + " + std::to_string(tp) + " x dp (Megatron's order), " + std::to_string(per_node) +
                  " consecutive ranks per node (srun --distribution=block)");
  if (tp > per_node || per_node % tp != 0) {
    lines.push_back("warning: TP " + std::to_string(tp) + " does not fit whole in a node of " + std::to_string(per_node) +
                    " GPUs: tensor-parallel groups cross the network, and every one of their all_reduce with them "
                    "(wb-step --what-if shows the cost)");
    return lines;
  }
  for (int node = 0; node * per_node < world; ++node) {
    std::vector<std::size_t> free = m.gpu_indices();
    std::vector<int> order;  // the node's GPUs in local-rank order
    for (int local = 0; local < per_node && node * per_node + local < world; local += tp) {
      const GpuSet best = rank_among(m, free, tp).front();
      const int rank = node * per_node + local;
      lines.push_back("node " + std::to_string(node) + ": ranks " + std::to_string(rank) + "-" +
                      std::to_string(rank + tp - 1) + " (TP group of dp " + std::to_string(rank / tp) + ") on GPUs " +
                      best.cuda_visible_devices() + ", slowest pair " + best.bottleneck.text());
      for (int g : best.gpus) {
        order.push_back(g);
        free.erase(std::find(free.begin(), free.end(), device_of_gpu(m, g)));
      }
    }
    lines.push_back("node " + std::to_string(node) + ": CUDA_VISIBLE_DEVICES=" + join(order, ",") +
                    " (local rank i takes the i-th)");
  }
  if (dp > 1)
    lines.push_back("data-parallel groups (one rank of each TP group) " +
                    std::string(dp * tp > per_node ? "cross nodes: their gradient all_reduce goes over the NICs"
                                                   : "stay inside the node"));
  return lines;
}

}  // namespace wb
