#include "topology/link_derivation.h"

#include <gtest/gtest.h>

#include "harness/errors.h"
#include "../test_files.h"

namespace wb {
namespace {

const CeilingsDb& project_ceilings() {
  static const CeilingsDb db = CeilingsDb::read(WB_SOURCE_SUITES_DIR "/ceilings.csv");
  return db;
}

PcieLinkState pcie(double gts, int width, double max_gts, int max_width) {
  PcieLinkState link;
  link.current_gts = gts;
  link.max_gts = max_gts;
  link.current_width = width;
  link.max_width = max_width;
  return link;
}

// By value: a caller may pass a temporary list (line 130 did, a dangling reference GCC 13 caught).
DerivedLink find_link(const std::vector<DerivedLink>& links, const std::string& a, const std::string& b) {
  for (const auto& l : links)
    if (l.a == a && l.b == b) return l;
  throw std::runtime_error("no link " + a + " - " + b);
}

TEST(Ceilings, EveryRowHasASourceAndTheSeedValues) {
  const CeilingsDb& db = project_ceilings();
  for (const auto& e : db.entries()) EXPECT_FALSE(e.source.empty()) << e.link_class << " " << e.generation;
  EXPECT_DOUBLE_EQ(*db.find("nvlink", "4")->rate_GBps_per_unit, 25.0);
  EXPECT_DOUBLE_EQ(*db.find("nvlink", "5")->rate_GBps_per_unit, 50.0);
  EXPECT_DOUBLE_EQ(*db.find("ib", "ndr")->rate_GBps_per_unit, 50.0);
  EXPECT_EQ(db.find("nvlink", "9"), nullptr);
}

TEST(Ceilings, BadRowsNameTheirLine) {
  testing::TempDir dir;
  const std::string path = dir.file("ceilings.csv");
  testing::write_text(path, "link_class,generation,unit,rate_GBps_per_unit,latency_us,healthy_fraction,source\n"
                            "nvlink,4,link,25,,0.8,a test source\n"
                            "pcie,gen4,lane,fast,,0.8,a test source\n");
  try {
    CeilingsDb::read(path);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("ceilings.csv:3: column rate_GBps_per_unit: 'fast'"), std::string::npos)
        << e.what();
  }
  testing::write_text(path, "link_class,generation,unit,rate_GBps_per_unit,latency_us,healthy_fraction,source\n"
                            "nvlink,4,link,25,,0.8,\n");
  EXPECT_THROW(CeilingsDb::read(path), InputError);  // a ceiling without its source
}

TEST(Derivation, H100Nv18PairIs450PerDirection) {
  NodeTopology node = topology_from_matrix(read_nvidia_smi_topo(WB_TEST_DATA_DIR "/topo/h100-8gpu-8nic.txt"), "n");
  for (auto& gpu : node.gpus) gpu.name = "NVIDIA H100 80GB HBM3";
  const auto links = derive_links(node, project_ceilings());
  const DerivedLink& pair = find_link(links, "gpu0", "gpu7");
  EXPECT_EQ(pair.link_class, "nvlink");
  EXPECT_DOUBLE_EQ(*pair.ceiling_GBps, 450.0);
  EXPECT_EQ(pair.reason, "NV18 x 25 GB/s (NVLink 4)");
  EXPECT_DOUBLE_EQ(*pair.healthy_fraction, 0.80);
  // B200 has the same NV18 but twice the rate per link.
  for (auto& gpu : node.gpus) gpu.name = "NVIDIA B200";
  EXPECT_DOUBLE_EQ(*find_link(derive_links(node, project_ceilings()), "gpu0", "gpu7").ceiling_GBps, 900.0);
}

TEST(Derivation, UnnamedNv18IsAssumedNvlink4AndSaysSo) {
  const NodeTopology node = topology_from_matrix(read_nvidia_smi_topo(WB_TEST_DATA_DIR "/topo/h100-8gpu-8nic.txt"), "n");
  const auto links = derive_links(node, project_ceilings());
  const DerivedLink& pair = find_link(links, "gpu2", "gpu5");
  EXPECT_DOUBLE_EQ(*pair.ceiling_GBps, 450.0);
  EXPECT_NE(pair.reason.find("assumed"), std::string::npos);
  DerivationOptions five;
  five.nvlink_generation = "5";
  EXPECT_DOUBLE_EQ(*find_link(derive_links(node, project_ceilings(), five), "gpu2", "gpu5").ceiling_GBps, 900.0);
  // GPU-NIC paths keep nvidia-smi's distance.
  EXPECT_EQ(find_link(links, "gpu0", "mlx5_0").distance, "PIX");
  EXPECT_EQ(find_link(links, "gpu0", "mlx5_4").distance, "SYS");
}

TEST(Derivation, Gb200FromSavedTextIsNvlink5WithC2cToTheHost) {
  // A GPU NUMA ID under each GPU: memory coherent with a Grace CPU over NVLink-C2C.
  const NodeTopology node = topology_from_matrix(read_nvidia_smi_topo(WB_TEST_DATA_DIR "/topo/gb200-4gpu-c2c.txt"), "n");
  ASSERT_EQ(node.gpus.size(), 4u);
  EXPECT_TRUE(node.gpus[0].c2c_host);
  const auto links = derive_links(node, project_ceilings());
  const DerivedLink& pair = find_link(links, "gpu0", "gpu3");
  EXPECT_DOUBLE_EQ(*pair.ceiling_GBps, 900.0);  // NVLink 5, not NVLink 4's 450
  EXPECT_NE(pair.reason.find("Grace"), std::string::npos) << pair.reason;
  const DerivedLink& host = find_link(links, "gpu2", "host");
  EXPECT_EQ(host.link_class, "c2c");
  EXPECT_DOUBLE_EQ(*host.ceiling_GBps, 450.0);
  EXPECT_NE(host.reason.find("NVLink-C2C"), std::string::npos) << host.reason;
  // GH200 NVL32 has NV18 at NVLink 4: the option settles it.
  DerivationOptions four;
  four.nvlink_generation = "4";
  EXPECT_DOUBLE_EQ(*find_link(derive_links(node, project_ceilings(), four), "gpu0", "gpu3").ceiling_GBps, 450.0);
  // An x86 node's GPUs (GPU NUMA ID N/A) reach the host over PCIe.
  const NodeTopology h100 = topology_from_matrix(read_nvidia_smi_topo(WB_TEST_DATA_DIR "/topo/h100-8gpu-8nic.txt"), "n");
  EXPECT_EQ(find_link(derive_links(h100, project_ceilings()), "gpu0", "host").link_class, "pcie");
}

TEST(Derivation, PairsWithoutPeerAccessAreCopiesThroughHostMemory) {
  // nvidia-smi topo -p2p r: GPU0 and GPU1 disabled by the driver's regkey, every other pair OK.
  NodeTopology node = topology_from_matrix(read_nvidia_smi_topo(WB_TEST_DATA_DIR "/topo/h100-8gpu-8nic.txt"), "n");
  node.p2p = read_nvidia_smi_p2p(WB_TEST_DATA_DIR "/topo/h100-p2p-read-dr.txt");
  const auto links = derive_links(node, project_ceilings());
  const DerivedLink& off = find_link(links, "gpu0", "gpu1");
  EXPECT_EQ(off.link_class, "pcie");
  ASSERT_EQ(off.degraded.size(), 1u);
  EXPECT_NE(off.degraded[0].find("DR"), std::string::npos) << off.degraded[0];
  EXPECT_NE(off.degraded[0].find("NV18 bundle goes unused"), std::string::npos) << off.degraded[0];
  EXPECT_NE(off.reason.find("through host memory"), std::string::npos) << off.reason;
  EXPECT_EQ(find_link(links, "gpu1", "gpu2").link_class, "nvlink");
  EXPECT_DOUBLE_EQ(*find_link(links, "gpu1", "gpu2").ceiling_GBps, 450.0);
}

TEST(Derivation, AProductWithoutPeerAccessIsSaidNotFlagged) {
  // Two PCIe cards whose product has peer access off (GNS): said in the reason, not a fault to fix.
  const char* matrix = "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
                       "GPU0\t X \tPHB\t0-63\t0\t\tN/A\n"
                       "GPU1\tPHB\t X \t0-63\t0\t\tN/A\n";
  NodeTopology node = topology_from_matrix(parse_nvidia_smi_topo(matrix, "m.txt"), "n");
  node.p2p = parse_nvidia_smi_p2p(" \tGPU0\tGPU1\t\n GPU0\tX\tGNS\t\n GPU1\tGNS\tX\t\n", "p.txt");
  const DerivedLink& pair = find_link(derive_links(node, project_ceilings()), "gpu0", "gpu1");
  EXPECT_TRUE(pair.degraded.empty());
  EXPECT_NE(pair.reason.find("GNS"), std::string::npos) << pair.reason;
  EXPECT_EQ(p2p_meaning(P2pStatus::kGpuNotSupported).substr(0, 3), "GNS");
  EXPECT_FALSE(p2p_fixable_by_site(P2pStatus::kGpuNotSupported));
  EXPECT_TRUE(p2p_fixable_by_site(P2pStatus::kTopologyNotSupported));
}

TEST(Derivation, BadPeerAccessMatricesNameTheLine) {
  const auto message = [](const char* text) {
    try {
      parse_nvidia_smi_p2p(text, "p.txt");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message(" GPU0\tGPU1\n GPU0\tX\tYES\n GPU1\tOK\tX\n").find("p.txt:2"), std::string::npos);
  EXPECT_NE(message(" GPU0\tGPU1\n GPU0\tX\tYES\n GPU1\tOK\tX\n").find("'YES'"), std::string::npos);
  EXPECT_NE(message(" GPU0\tGPU1\n GPU0\tX\tOK\n").find("truncated"), std::string::npos);
  EXPECT_NE(message("nothing here\n").find("not `nvidia-smi topo -p2p` output"), std::string::npos);
}

TEST(Derivation, PcieCeilingsFromTrainedGenerationAndWidth) {
  NodeTopology node;
  node.gpus.push_back({0, "NVIDIA A100", "", "", "", {}, 0, pcie(16.0, 16, 16.0, 16), {}, {}});
  node.gpus.push_back({1, "NVIDIA H100 PCIe", "", "", "", {}, 0, pcie(32.0, 8, 32.0, 8), {}, {}});
  node.gpus.push_back({2, "RTX", "", "", "", {}, 0, pcie(8.0, 16, 16.0, 16), {}, {}});
  const auto links = derive_links(node, project_ceilings());
  // what the lanes carry in TLPs of 256 bytes (ceilings_test.cpp: the protocol's share)
  const double carried = 256.0 / 284.0;
  EXPECT_DOUBLE_EQ(*find_link(links, "gpu0", "host").ceiling_GBps, 31.5 * carried);  // Gen4 x16
  EXPECT_DOUBLE_EQ(*find_link(links, "gpu1", "host").ceiling_GBps, 31.5 * carried);  // Gen5 x8
  EXPECT_EQ(find_link(links, "gpu0", "host").reason.rfind("PCIe Gen4 x16 = 16 x 1.96875 GB/s on the wire, 90.1%", 0), 0u);
  const DerivedLink& slow = find_link(links, "gpu2", "host");
  EXPECT_DOUBLE_EQ(*slow.ceiling_GBps, 15.75 * carried);  // trained Gen3 x16: the ceiling is what it trained at
  ASSERT_EQ(slow.degraded.size(), 1u);
  EXPECT_EQ(slow.degraded[0], "gpu2 PCIe trained at Gen3 x16, capable of Gen4 x16");
  EXPECT_TRUE(find_link(links, "gpu0", "host").degraded.empty());
  // A GPU pair without NVLink goes over PCIe at the slower GPU's rate.
  EXPECT_DOUBLE_EQ(*find_link(links, "gpu0", "gpu2").ceiling_GBps, 15.75 * carried);
  EXPECT_EQ(find_link(links, "gpu0", "gpu2").link_class, "pcie");
}

TEST(Derivation, InfinibandPortsAndTheirDegradation) {
  NodeTopology node;
  NicPort ndr;
  ndr.name = "mlx5_0";
  ndr.link_layer = "InfiniBand";
  ndr.state = "ACTIVE";
  ndr.rate_text = "400 Gb/sec (4X NDR)";
  NicPort half = ndr;
  half.name = "mlx5_1";
  half.rate_text = "200 Gb/sec (2X NDR)";
  NicPort down = ndr;
  down.name = "mlx5_2";
  down.state = "DOWN";
  NicPort roce = ndr;
  roce.name = "mlx5_3";
  roce.link_layer = "Ethernet";
  roce.rate_text = "400 Gb/sec (4X)";
  node.nics = {ndr, half, down, roce};
  const auto links = derive_links(node, project_ceilings());
  const DerivedLink& port = find_link(links, "mlx5_0", "network");
  EXPECT_EQ(port.link_class, "ib");
  EXPECT_DOUBLE_EQ(*port.ceiling_GBps, 50.0);  // NDR port
  EXPECT_TRUE(port.degraded.empty());
  EXPECT_DOUBLE_EQ(*find_link(links, "mlx5_1", "network").ceiling_GBps, 25.0);
  EXPECT_NE(find_link(links, "mlx5_1", "network").degraded.at(0).find("runs 2X, not 4X"), std::string::npos);
  EXPECT_NE(find_link(links, "mlx5_2", "network").inactive.at(0).find("is DOWN, not ACTIVE"), std::string::npos);
  EXPECT_TRUE(find_link(links, "mlx5_2", "network").degraded.empty());  // unused or cut: not known here
  EXPECT_EQ(find_link(links, "mlx5_3", "network").link_class, "roce");
  EXPECT_DOUBLE_EQ(*find_link(links, "mlx5_3", "network").ceiling_GBps, 50.0);
}

TEST(Derivation, NvlinksDownAreFlagged) {
  NodeTopology node = topology_from_matrix(read_nvidia_smi_topo(WB_TEST_DATA_DIR "/topo/h100-8gpu-8nic.txt"), "n");
  node.gpus[3].name = "NVIDIA H100";
  node.gpus[3].nvlinks_up = 16;
  node.gpus[3].nvlinks_total = 18;
  const auto links = derive_links(node, project_ceilings());
  ASSERT_EQ(find_link(links, "gpu0", "gpu3").degraded.size(), 1u);
  EXPECT_EQ(find_link(links, "gpu0", "gpu3").degraded[0], "gpu3 has 2 of 18 NVLinks inactive");
  EXPECT_TRUE(find_link(links, "gpu0", "gpu1").degraded.empty());
}

TEST(Derivation, PortRateText) {
  const auto ndr = parse_port_rate("400 Gb/sec (4X NDR)");
  ASSERT_TRUE(ndr);
  EXPECT_DOUBLE_EQ(ndr->gbps, 400);
  EXPECT_EQ(ndr->width, 4);
  EXPECT_EQ(ndr->generation, "ndr");
  EXPECT_EQ(parse_port_rate("100 Gb/sec (4X EDR)")->generation, "edr");
  EXPECT_EQ(parse_port_rate("25 Gb/sec (1X EDR)")->width, 1);
  EXPECT_FALSE(parse_port_rate("fast"));
  EXPECT_EQ(nvlink_generation_of("NVIDIA A100-SXM4-80GB"), "3");
  EXPECT_EQ(nvlink_generation_of("NVIDIA GeForce RTX 5090"), std::nullopt);
}

}  // namespace
}  // namespace wb
