#include "topology/nccl_log.h"

#include <gtest/gtest.h>

#include "harness/errors.h"

namespace wb {
namespace {

const std::string kRecorded = WB_TEST_DATA_DIR "/nccl/";  // recorded tool outputs, byte for byte, and variants

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

TEST(NcclLog, EverySpellingOfNcclsVersionsIsRead) {
  const NcclLog log = parse_nccl_log(
      "h:1:2 [0] NCCL INFO Ring 00 : 3[3] -> 2[2] via P2P/IPC\n"                          // before 2.8, old ids
      "h:1:2 [0] NCCL INFO Ring 01 : 0[1b000] -> 1[1c000] via direct shared memory\n"
      "h:1:2 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via P2P/IPC/read\n"                 // 2.8 to 2.11
      "h:1:2 [0] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via P2P/CUMEM/read\n"             // 2.19 on
      "h:1:2 [0] NCCL INFO Channel 01/0 : 2[2] -> 3[3] via SHM/direct/direct\n"
      "h:1:2 [0] NCCL INFO Channel 02/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA\n"
      "h:1:2 [0] NCCL INFO Channel 03/0 : 8[0] -> 0[0] [receive] via NET/IBext_v8/1/GDRDMA\n"  // the IB plugin
      "h:1:2 [0] NCCL INFO Channel 04/0 : 0[0] -> 8[0] [send] via NET/IBext/2\n"
      "h:1:2 [0] NCCL INFO NET/IBext_v8 : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB ; OOB ib0:10.0.0.1<0>\n"
      "h:1:2 [0] NCCL INFO NVLS multicast support is available on dev 0\n"
      "h:1:2 [0] NCCL INFO NVLS comm 0x55 headRank 0 nHeads 8 buffSize 4194304 memSize 2097152\n"
      "h:1:2 [0] NCCL INFO Connected NVLS tree\n"
      "h:1:2 [0] NCCL INFO 16 coll channels, 16 nvls channels, 16 p2p channels, 16 p2p channels per peer\n",
      "v.log");
  EXPECT_TRUE(log.problems.empty()) << log.problems.front();
  ASSERT_EQ(log.channels.size(), 8u);
  const std::vector<NcclTransport> want = {NcclTransport::kP2p,   NcclTransport::kShm,   NcclTransport::kP2p,
                                           NcclTransport::kP2p,   NcclTransport::kShm,   NcclTransport::kNetIb,
                                           NcclTransport::kNetIb, NcclTransport::kNetIb};
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(log.channels[i].transport, want[i]) << "channel line " << i;
  EXPECT_TRUE(log.channels[0].old_format && log.channels[1].old_format && !log.channels[3].old_format);
  EXPECT_EQ(log.channels[1].src_id, "1b000");
  EXPECT_TRUE(log.channels[5].gdrdma && log.channels[6].gdrdma && !log.channels[7].gdrdma);
  EXPECT_EQ(log.channels[6].net_device, 1);
  EXPECT_EQ(log.channels[7].net_device, 2);
  EXPECT_EQ(log.ib_devices.size(), 3u);
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
