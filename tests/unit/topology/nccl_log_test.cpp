#include "topology/nccl_log.h"

#include <gtest/gtest.h>

#include "harness/errors.h"

namespace wb {
namespace {

const std::string kRecorded = WB_TEST_DATA_DIR "/nccl/";  // recorded tool outputs, byte for byte, and variants

bool contains(const std::vector<std::string>& texts, const std::string& part) {
  for (const auto& t : texts)
    if (t.find(part) != std::string::npos) return true;
  return false;
}

TEST(NcclLog, NetworkAndHcasFromTheFixture) {
  const NcclLog log = read_nccl_log(kRecorded + "ib-network-select.log");
  EXPECT_EQ(log.network, "IB");
  EXPECT_EQ(log.ib_devices, (std::vector<std::string>{"mlx5_0:1/IB", "mlx5_2:1/IB"}));
  EXPECT_TRUE(log.channels.empty());
}

TEST(NcclLog, EveryChannelLineOfThePcieFixtureGetsItsTransport) {
  const NcclLog log = read_nccl_log(kRecorded + "pcie-8gpu-p2p-shm.log");
  ASSERT_EQ(log.channels.size(), 2u);
  EXPECT_EQ(log.channels[0].transport, NcclTransport::kP2p);
  EXPECT_EQ(log.channels[0].via, "P2P/direct pointer/read");
  EXPECT_EQ(log.channels[0].src_rank, 2);
  EXPECT_EQ(log.channels[0].dst_rank, 3);
  EXPECT_EQ(log.channels[0].line, 4);
  EXPECT_EQ(log.channels[1].transport, NcclTransport::kShm);
  EXPECT_EQ(log.channels[1].device, 3);
  ASSERT_EQ(log.rings.size(), 2u);
  EXPECT_EQ(log.rings[0], (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(log.trees, (std::vector<std::string>{"1/-1/-1->0->-1", "1/-1/-1->0->-1"}));
  EXPECT_TRUE(log.problems.empty());
}

TEST(NcclLog, OldFormatWithBusIds) {
  const NcclLog log = read_nccl_log(kRecorded + "old-format-bus-ids.log");
  ASSERT_EQ(log.channels.size(), 4u);
  for (const auto& c : log.channels) EXPECT_TRUE(c.old_format);
  EXPECT_EQ(log.channels[0].transport, NcclTransport::kP2p);
  EXPECT_EQ(log.channels[2].src_id, "c7000");
  EXPECT_EQ(log.channels[2].dst_id, "87000");
  EXPECT_EQ(log.channels[2].channel, 1);
  EXPECT_EQ(log.channels[3].transport, NcclTransport::kShm);  // "via direct shared memory"
}

TEST(NcclLog, NetworkTransportsWithAndWithoutGdrdma) {
  const NcclLog log = read_nccl_log(kRecorded + "multinode-net.log");
  ASSERT_EQ(log.channels.size(), 5u);
  EXPECT_EQ(log.channels[0].transport, NcclTransport::kNetIb);
  EXPECT_TRUE(log.channels[0].gdrdma);
  EXPECT_EQ(log.channels[0].net_device, 0);
  EXPECT_FALSE(log.channels[1].gdrdma);
  EXPECT_EQ(log.channels[2].net_device, 1);
  EXPECT_EQ(log.channels[3].transport, NcclTransport::kP2p);
  EXPECT_EQ(log.channels[3].host, "gpu-b");
  EXPECT_EQ(log.ib_devices.size(), 3u);
  EXPECT_EQ(log.rings[0], (std::vector<int>{0, 1, 2, 3}));
}

TEST(NcclLog, SocketWhereInfinibandExistsIsFlagged) {
  const NcclLog log = read_nccl_log(kRecorded + "socket-on-ib-machine.log");
  EXPECT_EQ(log.channels.at(0).transport, NcclTransport::kNetSocket);
  const auto found = nccl_misconfigurations(log, nullptr, "s.log");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("s.log:3: rank 1 -> 2 uses NET/Socket although InfiniBand devices exist"), std::string::npos)
      << found[0];
}

TEST(NcclLog, MissingGdrdmaNextToTheGpuIsFlaggedWithTheTopology) {
  const TopoMatrix topo = read_nvidia_smi_topo(WB_TEST_DATA_DIR "/topo/h100-8gpu-8nic.txt");
  const NcclLog log = read_nccl_log(kRecorded + "multinode-net.log");
  const auto found = nccl_misconfigurations(log, &topo, "m.log");
  // Line 6: device 0 on NET/IB/0 = mlx5_0, PIX to GPU0, without GDRDMA. Lines 5 and 7 have it.
  ASSERT_TRUE(contains(found, "m.log:6: GPU0 uses mlx5_0 without GDRDMA although it is PIX")) << found.size();
  EXPECT_FALSE(contains(found, "m.log:5:"));
  EXPECT_FALSE(contains(found, "m.log:7:"));
  EXPECT_TRUE(nccl_misconfigurations(log, nullptr, "m.log").empty());  // without a topology nobody knows
}

TEST(NcclLog, ShmWhereP2pShouldWorkIsFlagged) {
  const NcclLog log = read_nccl_log(kRecorded + "pcie-8gpu-p2p-shm.log");
  const auto by_neighbours = nccl_misconfigurations(log, nullptr, "p.log");
  ASSERT_EQ(by_neighbours.size(), 1u);
  EXPECT_NE(by_neighbours[0].find("p.log:5: rank 3 -> 4 goes through SHM although other GPU pairs"), std::string::npos);
  // With a topology that puts GPU3 and GPU4 on NVLink, the reason is the topology's.
  const TopoMatrix topo = read_nvidia_smi_topo(WB_TEST_DATA_DIR "/topo/h100-8gpu-8nic.txt");
  const auto by_topology = nccl_misconfigurations(log, &topo, "p.log");
  ASSERT_EQ(by_topology.size(), 1u);
  EXPECT_NE(by_topology[0].find("although GPU3 and GPU4 are NV18"), std::string::npos) << by_topology[0];
}

TEST(NcclLog, UnderstoodOrSaidSo) {
  const NcclLog log = parse_nccl_log(
      "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
      "h:1:2 [0] NCCL INFO Channel 00/0 : zero -> one via P2P/IPC\n"
      "h:1:2 [0] NCCL INFO Bootstrap : Using eth0\n"
      "unrelated line\n",
      "x.log");
  EXPECT_EQ(log.channels.size(), 1u);
  ASSERT_EQ(log.problems.size(), 1u);
  EXPECT_NE(log.problems[0].find("x.log:2: channel line not understood"), std::string::npos);
  EXPECT_THROW(parse_nccl_log(std::string("a\0b", 3), "bin.log"), InputError);
}

}  // namespace
}  // namespace wb
