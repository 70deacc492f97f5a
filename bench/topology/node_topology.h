// What discovery knows about one node's wiring: GPUs, NICs, NUMA nodes, the PCIe tree, NVLink
// bundles, and (when it was read) nvidia-smi's distance matrix. Filled by live discovery or from
// saved text; links and their ceilings are derived from it (link_derivation.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "topology/nvidia_smi_p2p.h"
#include "topology/nvidia_smi_topo.h"

namespace wb {

// Trained versus possible state of a PCIe link, as sysfs reports it.
struct PcieLinkState {
  std::optional<double> current_gts, max_gts;  // GT/s per lane
  std::optional<int> current_width, max_width;
  // The upstream port's (the slot's) maxima: a link trains to the lesser of both ends.
  std::optional<double> port_max_gts;
  std::optional<int> port_max_width;
  // GPUs drop their link speed when idle (to Gen1 in their lowest power state), so a GPU's link is
  // read while it copies; false where that could not be done.
  bool read_under_load = false;
  // Device Control's MaxPayload and MaxReadReq in bytes (the PCIe capability in sysfs config, readable
  // by root): what each TLP carries, so what the link can carry (link_derivation.cpp); unset unread.
  std::optional<int> max_payload_bytes, max_read_request_bytes;
  bool known() const { return current_gts && current_width; }
  std::optional<double> capable_gts() const;  // the lesser of the device's and the port's maxima
  std::optional<int> capable_width() const;
  bool below_max() const;  // trained slower or narrower than device and port allow
};
std::optional<int> pcie_generation(double gts);  // 8 -> 3, 16 -> 4, 32 -> 5, 64 -> 6

struct GpuDevice {
  int index = 0;
  std::string name, uuid, pci_bus_id, compute_capability;
  std::optional<int> numa_node;
  std::uint64_t memory_bytes = 0;
  PcieLinkState pcie;
  std::optional<int> nvlinks_up, nvlinks_total;  // nvidia-smi nvlink --status, when read
  bool c2c_host = false;  // memory coherent with a Grace CPU over NVLink-C2C (the matrix's GPU NUMA ID)
};

struct NicPort {
  std::string name;             // mlx5_0, or a network interface (eth0) without an HCA
  int port = 1;
  std::string link_layer;       // InfiniBand, Ethernet
  std::string state;            // ACTIVE, DOWN, ...
  std::string rate_text;        // "400 Gb/sec (4X NDR)"
  std::optional<double> rate_gbps;
  std::string pci_bus_id;
  std::optional<int> numa_node;
  PcieLinkState pcie;
};

struct NumaNode {
  int id = 0;
  std::string cpus;             // "0-47,96-143"
  std::uint64_t memory_bytes = 0;
};

struct PcieDevice {
  std::string bdf;              // 0000:c7:00.0
  std::string parent_bdf;       // the bridge above it; empty below a root complex
  std::string class_name;       // bridge, gpu, network, infiniband, storage, other
  std::optional<int> numa_node;
  PcieLinkState link;
};

struct NvlinkBundle {
  int gpu_a = 0, gpu_b = 0;
  int links = 0;                // links up between the pair
  std::optional<int> links_possible;
};

// What the CUDA runtime says of a GPU pair (cudaDeviceCanAccessPeer, P2P attributes).
struct PeerAccess {
  int gpu_a = 0, gpu_b = 0;
  bool can_access = false;
  int performance_rank = 0;
  bool native_atomics = false;
};

struct NodeTopology {
  std::string hostname;
  std::vector<GpuDevice> gpus;
  std::vector<NicPort> nics;
  std::vector<NumaNode> numa_nodes;
  std::vector<PcieDevice> pcie_devices;
  std::vector<NvlinkBundle> nvlinks;
  std::vector<PeerAccess> peer_access;
  std::optional<TopoMatrix> matrix;  // nvidia-smi topo -m, live or saved
  std::optional<P2pMatrix> p2p;      // nvidia-smi topo -p2p, saved: whether peer access works per GPU pair
  std::vector<std::string> sources;  // what was read: "sysfs", "hwloc", "nvidia-smi topo -m (file)"
};

// GPUs and NICs as the matrix names them, for a node known only from saved text.
NodeTopology topology_from_matrix(const TopoMatrix& matrix, std::string hostname);

}  // namespace wb
