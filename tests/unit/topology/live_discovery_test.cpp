#include "topology/live_discovery.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "../test_files.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

// A small sysfs: a root port 0000:00:01.0 with a GPU below it trained at Gen4 x8 of Gen4 x16, and
// an HCA with two ports, one ACTIVE NDR, one DOWN; two NUMA nodes.
class FakeSysfs : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.file("sys");
    const fs::path devices = fs::path(root_) / "devices/pci0000:00";
    make_device(devices / "0000:00:01.0", "0x060400", "16.0 GT/s PCIe", "16", "16.0 GT/s PCIe", "16", "0");
    make_device(devices / "0000:00:01.0/0000:01:00.0", "0x030200", "16.0 GT/s PCIe", "8", "16.0 GT/s PCIe", "16", "0");
    make_device(devices / "0000:00:02.0", "0x020700", "32.0 GT/s PCIe", "16", "32.0 GT/s PCIe", "16", "1");
    const fs::path hca = fs::path(root_) / "class/infiniband/mlx5_0";
    fs::create_directories(hca / "ports/1");
    fs::create_directories(hca / "ports/2");
    fs::create_directory_symlink(devices / "0000:00:02.0", hca / "device");
    write(hca / "ports/1/state", "4: ACTIVE");
    write(hca / "ports/1/link_layer", "InfiniBand");
    write(hca / "ports/1/rate", "400 Gb/sec (4X NDR)");
    write(hca / "ports/2/state", "1: DOWN");
    write(hca / "ports/2/link_layer", "InfiniBand");
    write(hca / "ports/2/rate", "10 Gb/sec (4X SDR)");
    for (int node = 0; node < 2; ++node) {
      const fs::path n = fs::path(root_) / ("devices/system/node/node" + std::to_string(node));
      fs::create_directories(n);
      write(n / "cpulist", node == 0 ? "0-7" : "8-15");
    }
  }

  void make_device(const fs::path& dir, const std::string& cls, const std::string& speed, const std::string& width,
                   const std::string& max_speed, const std::string& max_width, const std::string& numa) {
    fs::create_directories(dir);
    write(dir / "class", cls);
    write(dir / "current_link_speed", speed);
    write(dir / "current_link_width", width);
    write(dir / "max_link_speed", max_speed);
    write(dir / "max_link_width", max_width);
    write(dir / "numa_node", numa);
    fs::create_directories(fs::path(root_) / "bus/pci/devices");
    fs::create_directory_symlink(dir, fs::path(root_) / "bus/pci/devices" / dir.filename());
  }
  static void write(const fs::path& file, const std::string& text) { testing::write_text(file.string(), text + "\n"); }

  testing::TempDir dir_;
  std::string root_;
};

TEST_F(FakeSysfs, PcieTreeWithTrainedStateAndParents) {
  const auto devices = discover_pcie(root_);
  ASSERT_EQ(devices.size(), 3u);
  EXPECT_EQ(devices[0].class_name, "bridge");
  EXPECT_EQ(devices[1].bdf, "0000:00:02.0");
  EXPECT_EQ(devices[1].class_name, "infiniband");
  EXPECT_EQ(devices[2].bdf, "0000:01:00.0");
  EXPECT_EQ(devices[2].class_name, "gpu");
  EXPECT_EQ(devices[2].parent_bdf, "0000:00:01.0");
  EXPECT_EQ(*devices[2].link.current_width, 8);
  EXPECT_DOUBLE_EQ(*devices[2].link.current_gts, 16.0);
  EXPECT_TRUE(devices[2].link.below_max());
  EXPECT_FALSE(devices[0].link.below_max());
  EXPECT_EQ(*devices[1].numa_node, 1);
}

TEST_F(FakeSysfs, ALinkTrainsToTheLesserOfDeviceAndPort) {
  // A Gen5 card in a Gen4 slot runs at Gen4: not degraded. Below a Gen4 x16 port, x8 is.
  const fs::path port = fs::path(root_) / "devices/pci0000:00/0000:00:03.0";
  make_device(port, "0x060400", "16.0 GT/s PCIe", "16", "16.0 GT/s PCIe", "16", "0");
  make_device(port / "0000:02:00.0", "0x030200", "16.0 GT/s PCIe", "16", "32.0 GT/s PCIe", "16", "0");
  const PcieLinkState slot_bound = read_pcie_link((fs::path(root_) / "bus/pci/devices/0000:02:00.0").string());
  EXPECT_DOUBLE_EQ(*slot_bound.port_max_gts, 16.0);
  EXPECT_DOUBLE_EQ(*slot_bound.capable_gts(), 16.0);
  EXPECT_FALSE(slot_bound.below_max());
  const PcieLinkState narrow = read_pcie_link((fs::path(root_) / "bus/pci/devices/0000:01:00.0").string());
  EXPECT_EQ(*narrow.port_max_width, 16);
  EXPECT_TRUE(narrow.below_max());
  // a device with no PCI device above it (a root complex integrated one): its own maxima
  const PcieLinkState top = read_pcie_link((fs::path(root_) / "bus/pci/devices/0000:00:02.0").string());
  EXPECT_FALSE(top.port_max_gts.has_value());
  EXPECT_DOUBLE_EQ(*top.capable_gts(), 32.0);
}

// sysfs `config` as root reads it: the header's capability list (a power-management capability at
// 0x60, then PCI Express at 0x78) whose Device Control says MaxPayload 256, MaxReadReq 512 (with
// relaxed ordering and extended tags set beside them, as lspci shows `RlxdOrd+ ExtTag+`).
std::string config_space(unsigned device_control, std::size_t size = 256) {
  std::string config(size, '\0');
  config[0x06] = 0x10;  // Status: capability list
  config[0x34] = 0x60;
  config[0x60] = 0x01, config[0x61] = 0x78;  // power management, next at 0x78
  config[0x78] = 0x10, config[0x79] = 0x00;  // PCI Express, last
  config[0x80] = static_cast<char>(device_control & 0xff), config[0x81] = static_cast<char>(device_control >> 8);
  return config;
}

TEST_F(FakeSysfs, MaxPayloadAndMaxReadRequestFromTheDeviceControlRegister) {
  const fs::path gpu = fs::path(root_) / "bus/pci/devices/0000:01:00.0";
  testing::write_text((gpu / "config").string(), config_space(0x2130));  // MPS 001, MRRS 010, RlxdOrd, ExtTag
  const PcieLinkState link = read_pcie_link(gpu.string());
  EXPECT_EQ(link.max_payload_bytes.value_or(0), 256);
  EXPECT_EQ(link.max_read_request_bytes.value_or(0), 512);
  testing::write_text((gpu / "config").string(), config_space(0x5040));  // MPS 010 = 512, MRRS 101 = 4096
  EXPECT_EQ(read_pcie_link(gpu.string()).max_payload_bytes.value_or(0), 512);
  EXPECT_EQ(read_pcie_link(gpu.string()).max_read_request_bytes.value_or(0), 4096);
  // a user other than root reads the first 64 bytes only; a device without config: both unread
  testing::write_text((gpu / "config").string(), config_space(0x2130).substr(0, 64));
  EXPECT_FALSE(read_pcie_link(gpu.string()).max_payload_bytes.has_value());
  EXPECT_FALSE(read_pcie_link((fs::path(root_) / "bus/pci/devices/0000:00:02.0").string()).max_read_request_bytes.has_value());
}

TEST_F(FakeSysfs, AGpuLinkIsReadUnderLoadOnlyWhereTheGpuCanCopy) {
  std::vector<GpuDevice> gpus(1);
  gpus[0].pci_bus_id = "0000:01:00.0";
  read_gpu_links_under_load(gpus, root_);
  EXPECT_DOUBLE_EQ(*gpus[0].pcie.current_gts, 16.0);  // what sysfs says, either way
  EXPECT_EQ(*gpus[0].pcie.current_width, 8);
  if (!fs::exists("/dev/nvidia0")) {
    EXPECT_FALSE(gpus[0].pcie.read_under_load);  // no GPU to copy with
  }
}

TEST_F(FakeSysfs, InfinibandPortsWithStateRateAndPciDevice) {
  const auto nics = discover_nics(root_);
  ASSERT_EQ(nics.size(), 2u);
  EXPECT_EQ(nics[0].name, "mlx5_0");
  EXPECT_EQ(nics[0].port, 1);
  EXPECT_EQ(nics[0].state, "ACTIVE");
  EXPECT_EQ(nics[0].link_layer, "InfiniBand");
  EXPECT_DOUBLE_EQ(*nics[0].rate_gbps, 400);
  EXPECT_EQ(nics[0].pci_bus_id, "0000:00:02.0");
  EXPECT_EQ(*nics[0].numa_node, 1);
  EXPECT_EQ(nics[1].state, "DOWN");
}

TEST_F(FakeSysfs, NumaNodesFromSysfs) {
  const auto nodes = discover_numa_sysfs(root_);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[1].id, 1);
  EXPECT_EQ(nodes[1].cpus, "8-15");
}

TEST(LiveDiscovery, ThisMachineWithoutInventingGpus) {
  const NodeTopology node = discover_node();
  EXPECT_FALSE(node.hostname.empty());
  ASSERT_FALSE(node.numa_nodes.empty());
  for (const auto& n : node.numa_nodes) EXPECT_FALSE(n.cpus.empty());
  if (!fs::exists("/dev/nvidia0")) {
    EXPECT_TRUE(node.gpus.empty());
    EXPECT_FALSE(node.matrix.has_value());
  }
  // Every network interface on a PCI device is found, whatever this machine has.
  std::size_t pci_interfaces = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/sys/class/net", ec))
    pci_interfaces += fs::exists(entry.path() / "device") && !fs::exists("/sys/class/infiniband");
  if (!fs::exists("/sys/class/infiniband")) EXPECT_EQ(node.nics.size(), pci_interfaces);
  else EXPECT_FALSE(node.nics.empty());
  EXPECT_FALSE(node.pcie_devices.empty());
}

TEST(NvlinkStatus, CountsInactiveLinks) {
  const auto status = parse_nvlink_status(
      "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)\n"
      "\t Link 0: 26.562 GB/s\n"
      "\t Link 1: <inactive>\n"
      "\t Link 2: 26.562 GB/s\n"
      "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-2)\n"
      "\t Link 0: 26.562 GB/s\n");
  ASSERT_EQ(status.size(), 2u);
  EXPECT_EQ(status[0].links_total, 3);
  EXPECT_EQ(status[0].links_up, 2);
  EXPECT_EQ(status[1].links_up, 1);
}

}  // namespace
}  // namespace wb
