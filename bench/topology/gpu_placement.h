// Which GPUs of a node to give a job of K GPUs (wirebench place): every K-GPU set ranked by its
// bottleneck link (the slowest pair: NVLink bundles first, the more links the better, then the
// same PCIe switch, several switches, one host bridge, one socket, across sockets), then by how many
// of its GPUs have a NIC on their own PCIe switch, then by how few NUMA nodes it spans.
// Pure logic on a parsed `nvidia-smi topo -m` matrix (topology/nvidia_smi_topo.h).
#pragma once

#include <string>
#include <vector>

#include "topology/nvidia_smi_topo.h"

namespace wb {

struct GpuSet {
  std::vector<int> gpus;   // GPU numbers (GPU3 -> 3), ascending
  TopoCell bottleneck;     // the slowest pair's path (kSelf for a single GPU)
  int pairs_at_bottleneck = 0;
  int gpus_near_a_nic = 0; // a NIC at PIX or PXB
  int numa_nodes = 0;      // distinct NUMA affinities
  std::string cuda_visible_devices() const;  // "0,1,2,3"
};

// Nearer first: NV18 before NV12 before PIX ... before SYS.
bool nearer(const TopoCell& a, const TopoCell& b);

// Every K-set, best first. Throws UsageError when K is not between 1 and the GPU count.
std::vector<GpuSet> rank_gpu_sets(const TopoMatrix& matrix, int k);

// Slurm gres.conf lines, one per GPU: Name=gpu File=/dev/nvidiaN Links=... (NVLinks to each GPU in
// order, -1 for itself, 0 for none), the CPU affinity as a comment.
std::vector<std::string> gres_conf_lines(const TopoMatrix& matrix);

// What a user must know about the best set: it spans NVLink islands, or there is no NVLink at
// all (PCIe only, and which pairs share a switch). Empty when the best set is NVLink throughout.
std::vector<std::string> placement_warnings(const TopoMatrix& matrix, const std::vector<GpuSet>& ranked);

// Tensor x data parallel over nodes of this wiring: ranks tp + T * dp (Megatron's order), T
// consecutive ranks per tensor-parallel group, gpus_per_node ranks per node (the job's GPUs on each
// node, at most the node's). Per node, its groups on disjoint GPU sets chosen best first. Lines to
// print; a warning when T does not fit in (or divide) the job's GPUs of a node.
std::vector<std::string> layout_lines(const TopoMatrix& matrix, int nodes, int tp, int dp, int gpus_per_node);

}  // namespace wb
