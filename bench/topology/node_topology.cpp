#include "topology/node_topology.h"

#include <algorithm>
#include <cmath>

namespace wb {

std::optional<double> PcieLinkState::capable_gts() const {
  if (max_gts && port_max_gts) return std::min(*max_gts, *port_max_gts);
  return max_gts;
}

std::optional<int> PcieLinkState::capable_width() const {
  if (max_width && port_max_width) return std::min(*max_width, *port_max_width);
  return max_width;
}

bool PcieLinkState::below_max() const {
  const auto gts = capable_gts();
  const auto width = capable_width();
  const bool slower = current_gts && gts && *current_gts + 1e-9 < *gts;
  const bool narrower = current_width && width && *current_width < *width;
  return slower || narrower;
}

std::optional<int> pcie_generation(double gts) {
  static constexpr struct { double gts; int generation; } kGenerations[] = {
      {2.5, 1}, {5.0, 2}, {8.0, 3}, {16.0, 4}, {32.0, 5}, {64.0, 6}};
  for (const auto& g : kGenerations)
    if (std::fabs(gts - g.gts) < 0.01) return g.generation;
  return std::nullopt;
}

NodeTopology topology_from_matrix(const TopoMatrix& matrix, std::string hostname) {
  NodeTopology node;
  node.hostname = std::move(hostname);
  for (std::size_t i : matrix.gpu_indices()) {
    GpuDevice gpu;
    gpu.index = matrix.devices[i].index;
    gpu.c2c_host = matrix.devices[i].on_c2c();
    if (!matrix.devices[i].numa_affinity.empty() && matrix.devices[i].numa_affinity != "N/A") {
      try {
        gpu.numa_node = std::stoi(matrix.devices[i].numa_affinity);
      } catch (const std::exception&) {
        // a range or list of NUMA nodes: no single node to name
      }
    }
    node.gpus.push_back(gpu);
    // The GPU rows also tell which CPUs belong to its NUMA node.
    if (gpu.numa_node && std::none_of(node.numa_nodes.begin(), node.numa_nodes.end(),
                                      [&](const NumaNode& n) { return n.id == *gpu.numa_node; }))
      node.numa_nodes.push_back({*gpu.numa_node, matrix.devices[i].cpu_affinity, 0});
  }
  for (std::size_t i : matrix.nic_indices()) {
    NicPort nic;
    nic.name = matrix.devices[i].name;
    node.nics.push_back(nic);
  }
  node.matrix = matrix;
  return node;
}

}  // namespace wb
