#include "topology/nvidia_smi_topo.h"

#include <gtest/gtest.h>

#include "harness/errors.h"

namespace wb {
namespace {

const std::string kRecorded = WB_TEST_DATA_DIR "/topo/";  // recorded tool outputs, byte for byte, and variants
const std::string kBad = WB_TEST_DATA_DIR "/topo-bad/";

std::string error_of(const std::string& path) {
  try {
    read_nvidia_smi_topo(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(NvidiaSmiTopo, H100EightGpusEightNicsWithLegend) {
  const TopoMatrix m = read_nvidia_smi_topo(kRecorded + "h100-8gpu-8nic.txt");
  ASSERT_EQ(m.gpu_indices().size(), 8u);
  ASSERT_EQ(m.nic_indices().size(), 8u);
  for (std::size_t a : m.gpu_indices())
    for (std::size_t b : m.gpu_indices()) {
      if (a == b) continue;
      EXPECT_EQ(m.at(a, b).kind, PathKind::kNvlink);
      EXPECT_EQ(m.at(a, b).nvlinks, 18);
    }
  for (int n = 0; n < 8; ++n) EXPECT_EQ(m.devices[8 + n].name, "mlx5_" + std::to_string(n));
  EXPECT_EQ(m.at(0, 8).text(), "PIX");   // GPU0 - NIC0
  EXPECT_EQ(m.at(0, 9).text(), "NODE");  // GPU0 - NIC1
  EXPECT_EQ(m.at(0, 12).text(), "SYS");  // GPU0 - NIC4
  EXPECT_EQ(m.at(13, 5).text(), "PIX");  // NIC5 - GPU5
  EXPECT_EQ(m.devices[0].cpu_affinity, "0-47,96-143");
  EXPECT_EQ(m.devices[4].numa_affinity, "1");
  EXPECT_EQ(m.devices[7].gpu_numa_id, "N/A");
  EXPECT_TRUE(m.devices[8].cpu_affinity.empty());  // NIC rows have no affinity
}

TEST(NvidiaSmiTopo, TabsAndSpacesReadTheSame) {
  const TopoMatrix tabs = read_nvidia_smi_topo(kRecorded + "rtx5090-2gpu-tabs.txt");
  const TopoMatrix spaces = read_nvidia_smi_topo(kRecorded + "rtx5090-2gpu-spaces.txt");
  for (const TopoMatrix* m : {&tabs, &spaces}) {
    ASSERT_EQ(m->devices.size(), 2u);
    EXPECT_EQ(m->at(0, 1).kind, PathKind::kPhb);
    EXPECT_EQ(m->at(1, 0).kind, PathKind::kPhb);
    EXPECT_EQ(m->devices[1].cpu_affinity, "0-63");
    EXPECT_EQ(m->devices[1].numa_affinity, "0");  // the empty tab field before N/A is not a value
    EXPECT_EQ(m->devices[1].gpu_numa_id, "N/A");
  }
}

TEST(NvidiaSmiTopo, HcaNamesInTheHeaderAreTheNicNames) {
  const TopoMatrix m = read_nvidia_smi_topo(kRecorded + "hca-names-in-header.txt");
  ASSERT_EQ(m.nic_indices().size(), 2u);
  EXPECT_EQ(m.devices[2].name, "mlx5_0");
  EXPECT_EQ(m.devices[3].name, "mlx5_1");
  EXPECT_EQ(m.at(0, 2).kind, PathKind::kPxb);
  EXPECT_EQ(m.at(0, 1).nvlinks, 12);
  EXPECT_EQ(m.devices[1].cpu_affinity, "32-63");
}

TEST(NvidiaSmiTopo, OldDriversSocIsSys) {
  const TopoMatrix m = read_nvidia_smi_topo(kRecorded + "soc-old-driver.txt");
  ASSERT_EQ(m.devices.size(), 4u);
  EXPECT_EQ(m.at(0, 2).kind, PathKind::kSys);
  EXPECT_EQ(m.at(2, 3).kind, PathKind::kPix);
  EXPECT_EQ(m.devices[3].cpu_affinity, "8-15");
}

TEST(NvidiaSmiTopo, AnsiUnderlinedHeaderAndBondedNicLegend) {
  const TopoMatrix m = read_nvidia_smi_topo(kRecorded + "ansi-underline-bonded-nic.txt");
  ASSERT_EQ(m.devices.size(), 3u);
  EXPECT_EQ(m.devices[0].label, "GPU0");
  EXPECT_EQ(m.devices[2].name, "mlx5_bond_0");
  EXPECT_EQ(m.at(0, 1).text(), "NV4");
  EXPECT_EQ(m.at(2, 0).kind, PathKind::kNode);
}

TEST(NvidiaSmiTopo, BadInputIsAClearErrorWithTheLine) {
  EXPECT_NE(error_of(kBad + "truncated-matrix.txt").find("truncated-matrix.txt:4: matrix ends after 2 rows, but the header names 4"),
            std::string::npos) << error_of(kBad + "truncated-matrix.txt");
  EXPECT_NE(error_of(kBad + "unknown-cell.txt").find("unknown-cell.txt:2: unknown cell 'NVX' in row GPU0, column GPU1"),
            std::string::npos) << error_of(kBad + "unknown-cell.txt");
  EXPECT_NE(error_of(kBad + "ragged-row.txt").find("ragged-row.txt:3: row GPU1 has 2 cells, but the header names 3"),
            std::string::npos) << error_of(kBad + "ragged-row.txt");
  EXPECT_NE(error_of(kBad + "empty.txt").find("empty.txt: file is empty"), std::string::npos);
  EXPECT_NE(error_of(kBad + "binary-garbage.bin").find("binary-garbage.bin:1: not text: byte 0x00"), std::string::npos)
      << error_of(kBad + "binary-garbage.bin");
  EXPECT_NE(error_of(kBad + "asymmetric.txt").find("row GPU0, column GPU1 is NV18 but row GPU1, column GPU0 is PHB"),
            std::string::npos) << error_of(kBad + "asymmetric.txt");
  EXPECT_NE(error_of(kBad + "no-such-file.txt").find("no-such-file.txt: no such file or directory"), std::string::npos)
      << error_of(kBad + "no-such-file.txt");
  // Issue 54: a directory read as "file is empty"
  EXPECT_NE(error_of(kBad).find(": is a directory"), std::string::npos) << error_of(kBad);
  EXPECT_THROW(parse_nvidia_smi_topo("hello world\n", "text"), InputError);  // no GPU0 header
}

}  // namespace
}  // namespace wb
