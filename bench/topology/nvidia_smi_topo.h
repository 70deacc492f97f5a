// Reader for the saved output of `nvidia-smi topo -m`, in every variant docs/topology-inputs.md lists: tabs
// or spaces, NICk columns with a "NIC Legend" or HCA names (mlx5_0) in the header, SOC for SYS,
// ANSI underlined headers, empty affinity cells. Bad input is an InputError naming the line.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wb {

// How two devices connect, as nvidia-smi prints it (nearest first).
enum class PathKind { kSelf, kNvlink, kPix, kPxb, kPhb, kNode, kSys };
std::string_view to_string(PathKind kind);  // X, NV, PIX, PXB, PHB, NODE, SYS

struct TopoCell {
  PathKind kind = PathKind::kSys;
  int nvlinks = 0;  // k of NV<k>
  std::string text() const;  // as nvidia-smi prints it: NV18, PIX, X
};

struct TopoDevice {
  std::string label;  // column label: GPU3, NIC1, mlx5_0
  bool is_gpu = false;
  int index = 0;      // 3 for GPU3; position among NICs for NICs
  std::string name;   // NICs: the HCA name (from the legend or the header); GPUs: the label
  std::string cpu_affinity, numa_affinity, gpu_numa_id;  // empty when not printed
  // A GPU whose memory is a NUMA node of its own (a number under "GPU NUMA ID", not N/A): coherent
  // with a Grace CPU over NVLink-C2C (GH200, GB200), not a PCIe device.
  bool on_c2c() const;
};

struct TopoMatrix {
  std::vector<TopoDevice> devices;           // in column order
  std::vector<std::vector<TopoCell>> cells;  // cells[row][column]
  const TopoCell& at(std::size_t a, std::size_t b) const { return cells[a][b]; }
  std::vector<std::size_t> gpu_indices() const;
  std::vector<std::size_t> nic_indices() const;
};

// `source` names the input in error messages ("topo.txt:7: ...").
TopoMatrix parse_nvidia_smi_topo(std::string_view text, const std::string& source);
TopoMatrix read_nvidia_smi_topo(const std::string& path);

}  // namespace wb
