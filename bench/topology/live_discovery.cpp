#include "topology/live_discovery.h"

#include <hwloc.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <regex>

#include "topology/text_input.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

std::string first_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return trim(line);
}

std::optional<double> leading_number(const std::string& text) {
  try {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    return used > 0 ? std::optional(value) : std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<int> optional_int(const std::string& text) {
  const auto value = leading_number(text);
  return value ? std::optional(static_cast<int>(*value)) : std::nullopt;
}

bool looks_like_bdf(const std::string& name) {
  static const std::regex bdf(R"(^[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$)");
  return std::regex_match(name, bdf);
}

// The PCI device above this one (its upstream port or bridge): the directory above the device's
// real location, when that is a PCI device.
std::optional<fs::path> upstream_port(const fs::path& device_dir) {
  std::error_code ec;
  const fs::path real = fs::canonical(device_dir, ec);
  if (ec || !looks_like_bdf(real.parent_path().filename().string())) return std::nullopt;
  return real.parent_path();
}

// Device Control's MaxPayload and MaxReadReq of the device's PCI Express capability (ID 0x10), from
// sysfs `config`: the header's capability list (pointer at 0x34) walked to the capability, its Device
// Control register at +8 (PCI Express Base Specification: bits 7:5 MaxPayload, 14:12 MaxReadReq, each
// 128 << value bytes), as lspci -vvv decodes `DevCtl: MaxPayload 256 bytes, MaxReadReq 512 bytes`.
// A user other than root reads only the header's first 64 bytes: then both stay unset.
void read_payload_sizes(const fs::path& device_dir, PcieLinkState& link) {
  std::ifstream in(device_dir / "config", std::ios::binary);
  std::string config((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto byte = [&config](std::size_t at) { return static_cast<unsigned>(static_cast<unsigned char>(config[at])); };
  if (config.size() < 0x40 || (byte(0x06) & 0x10) == 0) return;  // Status: no capability list
  std::size_t at = byte(0x34) & 0xfc;
  for (int hops = 0; at >= 0x40 && at + 10 <= config.size() && hops < 48; ++hops) {
    if (byte(at) == 0x10) {
      const unsigned control = byte(at + 8) | (byte(at + 9) << 8);
      link.max_payload_bytes = 128 << ((control >> 5) & 7);
      link.max_read_request_bytes = 128 << ((control >> 12) & 7);
      return;
    }
    at = byte(at + 1) & 0xfc;
  }
}

std::string class_name(const std::string& class_code) {
  // PCI class codes: 0x0604xx bridge, 0x0300/0x0302 display (GPU), 0x0200 Ethernet, 0x0207 InfiniBand
  if (class_code.starts_with("0x0604")) return "bridge";
  if (class_code.starts_with("0x0300") || class_code.starts_with("0x0302")) return "gpu";
  if (class_code.starts_with("0x0207")) return "infiniband";
  if (class_code.starts_with("0x02")) return "network";
  if (class_code.starts_with("0x01")) return "storage";
  return "other";
}

// The PCI device a sysfs class entry belongs to: the last BDF in its resolved `device` path.
std::string pci_bdf_of(const fs::path& device_link) {
  std::error_code ec;
  const fs::path real = fs::canonical(device_link, ec);
  if (ec) return {};
  std::string bdf;
  for (const auto& part : real)
    if (looks_like_bdf(part.string())) bdf = part.string();
  return bdf;
}

std::optional<int> numa_of(const std::string& sysfs, const std::string& bdf) {
  if (bdf.empty()) return std::nullopt;
  const auto node = optional_int(first_line(fs::path(sysfs) / "bus/pci/devices" / bdf / "numa_node"));
  return node && *node >= 0 ? node : std::nullopt;
}

std::string run_command(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return {};
  std::string output;
  std::array<char, 4096> buffer;
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe.get())) output.append(buffer.data(), n);
  return output;
}

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::string all(path);
  std::size_t start = 0;
  while (start <= all.size()) {
    const std::size_t colon = std::min(all.find(':', start), all.size());
    if (access((all.substr(start, colon - start) + "/" + program).c_str(), X_OK) == 0) return true;
    start = colon + 1;
  }
  return false;
}

std::vector<NumaNode> discover_numa_hwloc() {
  std::vector<NumaNode> nodes;
  hwloc_topology_t topology;
  if (hwloc_topology_init(&topology) != 0) return nodes;
  if (hwloc_topology_load(topology) == 0) {
    const int count = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < count; ++i) {
      hwloc_obj_t obj = hwloc_get_obj_by_type(topology, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
      NumaNode node;
      node.id = static_cast<int>(obj->os_index);
      char* cpus = nullptr;
      if (obj->cpuset != nullptr && hwloc_bitmap_list_asprintf(&cpus, obj->cpuset) >= 0 && cpus != nullptr) {
        node.cpus = cpus;
        std::free(cpus);
      }
      node.memory_bytes = obj->attr != nullptr ? obj->attr->numanode.local_memory : 0;
      nodes.push_back(node);
    }
  }
  hwloc_topology_destroy(topology);
  return nodes;
}

}  // namespace

PcieLinkState read_pcie_link(const std::string& device_dir) {
  const fs::path dir(device_dir);
  PcieLinkState link;
  link.current_gts = leading_number(first_line(dir / "current_link_speed"));  // "16.0 GT/s PCIe"
  link.max_gts = leading_number(first_line(dir / "max_link_speed"));
  link.current_width = optional_int(first_line(dir / "current_link_width"));
  link.max_width = optional_int(first_line(dir / "max_link_width"));
  if (link.current_width && *link.current_width <= 0) link.current_width.reset();  // "0" for a link down
  if (const auto port = upstream_port(dir)) {
    link.port_max_gts = leading_number(first_line(*port / "max_link_speed"));
    link.port_max_width = optional_int(first_line(*port / "max_link_width"));
  }
  read_payload_sizes(dir, link);
  return link;
}

std::vector<PcieDevice> discover_pcie(const std::string& sysfs) {
  std::vector<PcieDevice> devices;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(sysfs) / "bus/pci/devices", ec)) {
    PcieDevice device;
    device.bdf = entry.path().filename().string();
    device.class_name = class_name(first_line(entry.path() / "class"));
    device.numa_node = numa_of(sysfs, device.bdf);
    device.link = read_pcie_link(entry.path().string());
    if (const auto port = upstream_port(entry.path())) device.parent_bdf = port->filename().string();
    devices.push_back(device);
  }
  std::sort(devices.begin(), devices.end(), [](const auto& a, const auto& b) { return a.bdf < b.bdf; });
  return devices;
}

std::vector<NicPort> discover_nics(const std::string& sysfs) {
  std::vector<NicPort> nics;
  std::error_code ec;
  // InfiniBand and RoCE ports.
  std::vector<std::string> hca_devices;
  for (const auto& hca : fs::directory_iterator(fs::path(sysfs) / "class/infiniband", ec)) {
    const std::string bdf = pci_bdf_of(hca.path() / "device");
    hca_devices.push_back(bdf);
    for (const auto& port : fs::directory_iterator(hca.path() / "ports", ec)) {
      NicPort nic;
      nic.name = hca.path().filename().string();
      nic.port = optional_int(port.path().filename().string()).value_or(1);
      nic.link_layer = first_line(port.path() / "link_layer");
      nic.state = first_line(port.path() / "state");  // "4: ACTIVE"
      if (const auto colon = nic.state.find(": "); colon != std::string::npos) nic.state = nic.state.substr(colon + 2);
      nic.rate_text = first_line(port.path() / "rate");
      nic.rate_gbps = leading_number(nic.rate_text);
      nic.pci_bus_id = bdf;
      nic.numa_node = numa_of(sysfs, bdf);
      if (!bdf.empty()) nic.pcie = read_pcie_link((fs::path(sysfs) / "bus/pci/devices" / bdf).string());
      nics.push_back(nic);
    }
  }
  // Ethernet interfaces on a PCI device (virtual ones have no `device` and are left out), unless
  // the device is an HCA already listed above.
  for (const auto& interface : fs::directory_iterator(fs::path(sysfs) / "class/net", ec)) {
    if (!fs::exists(interface.path() / "device")) continue;
    const std::string bdf = pci_bdf_of(interface.path() / "device");
    if (bdf.empty() || std::find(hca_devices.begin(), hca_devices.end(), bdf) != hca_devices.end()) continue;
    NicPort nic;
    nic.name = interface.path().filename().string();
    nic.link_layer = "Ethernet";
    nic.state = first_line(interface.path() / "operstate");
    const auto mbps = leading_number(first_line(interface.path() / "speed"));
    if (mbps && *mbps > 0) nic.rate_gbps = *mbps / 1000.0;  // -1 or absent on virtual NICs
    nic.pci_bus_id = bdf;
    nic.numa_node = numa_of(sysfs, bdf);
    nic.pcie = read_pcie_link((fs::path(sysfs) / "bus/pci/devices" / bdf).string());
    nics.push_back(nic);
  }
  std::sort(nics.begin(), nics.end(), [](const auto& a, const auto& b) {
    return std::tie(a.name, a.port) < std::tie(b.name, b.port);
  });
  return nics;
}

std::vector<NumaNode> discover_numa_sysfs(const std::string& sysfs) {
  std::vector<NumaNode> nodes;
  std::error_code ec;
  static const std::regex node_dir(R"(^node(\d+)$)");
  for (const auto& entry : fs::directory_iterator(fs::path(sysfs) / "devices/system/node", ec)) {
    std::smatch m;
    const std::string name = entry.path().filename().string();
    if (!std::regex_match(name, m, node_dir)) continue;
    NumaNode node;
    node.id = std::stoi(m[1]);
    node.cpus = first_line(entry.path() / "cpulist");
    nodes.push_back(node);
  }
  std::sort(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return nodes;
}

std::vector<NvlinkStatus> parse_nvlink_status(const std::string& text) {
  // GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)
  //          Link 0: 26.562 GB/s
  //          Link 1: <inactive>
  static const std::regex gpu(R"(^GPU (\d+):)");
  static const std::regex link(R"(^\s+Link \d+: (.*)$)");
  std::vector<NvlinkStatus> status;
  for (const auto& line : split_lines(text)) {
    std::smatch m;
    if (std::regex_search(line, m, gpu)) {
      status.push_back({std::stoi(m[1]), 0, 0});
    } else if (!status.empty() && std::regex_match(line, m, link)) {
      ++status.back().links_total;
      if (m[1].str().find("inactive") == std::string::npos) ++status.back().links_up;
    }
  }
  return status;
}

NodeTopology discover_node(const DiscoveryRoots& roots) {
  NodeTopology node;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  node.hostname = host;
  node.pcie_devices = discover_pcie(roots.sysfs);
  node.nics = discover_nics(roots.sysfs);
  node.sources.push_back("sysfs (" + roots.sysfs + ")");
  if (roots.use_hwloc) {
    node.numa_nodes = discover_numa_hwloc();
    if (!node.numa_nodes.empty()) node.sources.push_back("hwloc " HWLOC_VERSION);
  }
  if (node.numa_nodes.empty()) node.numa_nodes = discover_numa_sysfs(roots.sysfs);

  if (roots.use_cuda) {
    node.gpus = discover_cuda_gpus();
    if (!node.gpus.empty()) node.sources.push_back("CUDA runtime");
    node.peer_access = discover_cuda_peer_access(static_cast<int>(node.gpus.size()));
    read_gpu_links_under_load(node.gpus, roots.sysfs);
    for (auto& gpu : node.gpus)
      if (!gpu.numa_node) gpu.numa_node = numa_of(roots.sysfs, gpu.pci_bus_id);
  }
  if (roots.use_nvidia_smi && on_path("nvidia-smi")) {
    const std::string matrix_text = run_command("nvidia-smi topo -m 2>/dev/null");
    try {
      node.matrix = parse_nvidia_smi_topo(matrix_text, "nvidia-smi topo -m");
      node.sources.push_back("nvidia-smi topo -m");
    } catch (const std::exception&) {
      node.sources.push_back("nvidia-smi topo -m (output not understood; ignored)");
    }
    const auto status = parse_nvlink_status(run_command("nvidia-smi nvlink --status 2>/dev/null"));
    for (const auto& s : status)
      for (auto& gpu : node.gpus)
        if (gpu.index == s.gpu) {
          gpu.nvlinks_up = s.links_up;
          gpu.nvlinks_total = s.links_total;
        }
    if (!status.empty()) node.sources.push_back("nvidia-smi nvlink --status");
  }
  return node;
}

}  // namespace wb
