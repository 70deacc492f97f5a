// The NCCL diagnosis catalogue (docs/nccl-diagnosis.md): each entry named from a log that shows it,
// and nothing said of healthy logs of each network. The logs are written by the team in NCCL's
// format (host:pid:tid [dev] NCCL INFO|WARN ...), with launchers' prefixes and other output among them.
#include "topology/nccl_diagnosis.h"

#include <gtest/gtest.h>

#include "topology/nccl_warnings.h"
#include "topology/nvidia_smi_topo.h"

#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace wb {
namespace {

std::vector<NcclDiagnosis> diagnose(const std::string& text, const TopoMatrix* topology = nullptr) {
  return diagnose_nccl_log(parse_nccl_log(text, "job.log"), topology);
}

const std::string kRecorded = WB_TEST_DATA_DIR "/nccl/";
const TopoMatrix& h100() {  // 8 H100 on NVSwitches (NV18 every pair), a mlx5 NIC on each GPU's switch
  static const TopoMatrix matrix = read_nvidia_smi_topo(WB_TEST_DATA_DIR "/topo/h100-8gpu-8nic.txt");
  return matrix;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> ids(const std::vector<NcclDiagnosis>& found) {
  std::vector<std::string> out;
  for (const auto& d : found) out.push_back(d.id + ":" + d.verdict + "@" + std::to_string(d.line));
  return out;
}

const std::string kIbHealthy =
    "gpu-a:1001:1001 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
    "gpu-a:1001:1001 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.0.0.1<0>\n"
    "gpu-a:1001:1001 [0] NCCL INFO Using network IB\n"
    "gpu-b:2001:2001 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
    "gpu-a:1001:1010 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA\n";

TEST(NcclDiagnosis, HealthyLogsOfEachNetworkSayNothing) {
  EXPECT_TRUE(diagnose(kIbHealthy).empty());
  EXPECT_TRUE(diagnose("r1:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE ; OOB eth0:10.1.0.1<0>\n"
                       "r1:1:1 [0] NCCL INFO Using network IB\n")
                  .empty());
  EXPECT_TRUE(diagnose("ip-10-0-0-1:7:7 [0] NCCL INFO NET/OFI Selected provider is efa\n"
                       "ip-10-0-0-1:7:7 [0] NCCL INFO Using network AWS Libfabric\n")
                  .empty());
  // Ethernet only: no RDMA device anywhere, TCP sockets are the network
  EXPECT_TRUE(diagnose("e1:1:1 [0] NCCL INFO NET/IB : No device found.\n"
                       "e1:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.2.0.1<0>\n"
                       "e1:1:1 [0] NCCL INFO Using network Socket\n")
                  .empty());
}

TEST(NcclDiagnosis, TheNetworkIsNamedWhole) {
  EXPECT_EQ(parse_nccl_log("h:1:1 [0] NCCL INFO Using network AWS Libfabric\n", "x").network, "AWS Libfabric");
}

TEST(NcclDiagnosis, SocketsWhereRdmaIsThereAreAFailWithTheirEvidence) {
  const std::string log = "n1:1:1 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
                          "n1:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
                          "n1:1:1 [0] NCCL INFO Using network Socket\n";
  const auto found = diagnose(log);
  ASSERT_EQ(ids(found), std::vector<std::string>{"socket-fallback:FAIL@3"});
  EXPECT_NE(found[0].why.find("NCCL_IB_DISABLE is set (line 1)"), std::string::npos) << found[0].why;
  EXPECT_NE(found[0].source.find("NCCL_IB_DISABLE"), std::string::npos);
  // the same sockets with no evidence of RDMA, but the node's topology lists NICs
  EXPECT_EQ(ids(diagnose("n1:1:1 [0] NCCL INFO Using network Socket\n", &h100())),
            std::vector<std::string>{"socket-fallback:FAIL@1"});
  // a log of channel lines only (no "Using network"): a socket channel where the log lists IB devices
  const auto recorded = diagnose_nccl_log(read_nccl_log(kRecorded + "socket-on-ib-machine.log"), nullptr);
  EXPECT_EQ(ids(recorded), std::vector<std::string>{"socket-fallback:FAIL@2"});
}

TEST(NcclDiagnosis, AnIbListMixingRoceIsAWarn) {
  EXPECT_EQ(ids(diagnose("n:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [8]mlx5_bond_0:1/RoCE ; "
                         "OOB ib0:10.0.0.1<0>\n")),
            std::vector<std::string>{"mixed-link-layers:WARN@1"});
}

TEST(NcclDiagnosis, CompletionErrorsAreReadByTheirNumber) {
  const auto found = diagnose("some program output\n"
                              "gpu-a:1001:1020 [3] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<47019> with "
                              "error 12, opcode 0, len 0, vendor err 129 (Send)\n");
  ASSERT_EQ(ids(found), std::vector<std::string>{"ib-completion-error:FAIL@2"});
  EXPECT_NE(found[0].why.find("IBV_WC_RETRY_EXC_ERR"), std::string::npos);
  EXPECT_NE(found[0].what.find("gpu-a from 10.0.0.2<47019>: 12"), std::string::npos) << found[0].what;
  // the newer spelling
  EXPECT_EQ(ids(diagnose("g:1:1 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.3<1> with status=5 opcode=0\n")),
            std::vector<std::string>{"ib-completion-error:FAIL@1"});
}

TEST(NcclDiagnosis, LaunchersPrefixesDoNotHideNcclsLines) {
  const std::string tagged = "[1,0]<stdout>:n1:1:1 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
                             "[1,0]<stdout>:n1:1:1 [0] NCCL INFO Using network Socket\n";
  EXPECT_EQ(ids(diagnose(tagged)), std::vector<std::string>{"socket-fallback:FAIL@2"});
  const std::string srun = "0: n1:1:1 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
                           "0: n1:1:1 [0] NCCL INFO Using network Socket\n";
  EXPECT_EQ(ids(diagnose(srun)), std::vector<std::string>{"socket-fallback:FAIL@2"});
}

TEST(NcclDiagnosis, SharpWithoutResourceTurnsCollNetOff) {
  EXPECT_EQ(ids(diagnose(kIbHealthy + "gpu-a:1001:1001 [0] NCCL INFO CollNet: SHARP allocation failed: No resource\n")),
            std::vector<std::string>{"collnet-unavailable:WARN@6"});
}

TEST(NcclDiagnosis, FastSocketOnAnRdmaNodeIsAWarn) {
  const std::string log = "n:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>\n"
                          "n:1:1 [0] NCCL INFO Using network FastSocket\n";
  EXPECT_EQ(ids(diagnose(log)), std::vector<std::string>{"tcp-plugin-on-rdma:WARN@0"});
}

TEST(NcclDiagnosis, GdrdmaOffSaysNcclsReason) {
  const auto found = diagnose("n:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)\n");
  ASSERT_EQ(ids(found), std::vector<std::string>{"gdrdma-disabled:WARN@1"});
  EXPECT_NE(found[0].why.find("no module"), std::string::npos);
}

TEST(NcclDiagnosis, EnvironmentOverridesAndFailuresAreNamed) {
  EXPECT_EQ(ids(diagnose("n:1:1 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1.\n"
                         "n:1:1 [0] NCCL INFO NCCL_TOPO_FILE set by environment to /opt/topo.xml\n")),
            (std::vector<std::string>{"transport-disabled:WARN@1", "topology-file:WARN@2"}));
  EXPECT_EQ(ids(diagnose("n:1:1 [0] NCCL WARN Bootstrap : no socket interface found\n"
                         "n:1:9 [0] NCCL WARN Net : Connect to 10.0.0.9<43211> failed : Connection refused\n"
                         "n:1:1 [0] NCCL WARN Cuda failure 'out of memory'\n")),
            (std::vector<std::string>{"bootstrap-interface:FAIL@1", "connection-failed:FAIL@2", "out-of-memory:FAIL@3"}));
}

TEST(NcclDiagnosis, RanksOnDifferentVersionsFail) {
  const auto found = diagnose("a:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
                              "b:1:1 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\n");
  ASSERT_EQ(ids(found), std::vector<std::string>{"version-mismatch:FAIL@2"});
  EXPECT_NE(found[0].what.find("2.18.3+cuda12.2 on b, 2.21.5+cuda12.4 on a"), std::string::npos) << found[0].what;
}

// A healthy single-node NVLS log (NCCL 2.18: no nNodes on its init line) in a container with
// NCCL_IB_DISABLE=1: NCCL chose Socket, yet every channel is P2P on one host; a network finding
// there (socket-fallback was a FAIL) cries wolf. tests/data/nccl/ORIGINS.md says where it comes from.
TEST(NcclDiagnosis, NoNetworkFindingWhereTheLogProvesTheNetworkUnused) {
  const NcclLog log = read_nccl_log(kRecorded + "nvls-8gpu-one-node-socket.log");
  EXPECT_TRUE(network_unused(log));
  EXPECT_TRUE(diagnose_nccl_log(log, nullptr).empty());
  EXPECT_TRUE(diagnose_nccl_log(log, &h100()).empty());
  // the same lines with a second host's channel over the network: the finding stands
  std::string text = read_text(kRecorded + "nvls-8gpu-one-node-socket.log");
  text += "dgx-h100-08:5120:5180 [0] NCCL INFO Channel 00/0 : 7[7] -> 8[0] [send] via NET/Socket/0\n";
  const NcclLog two_nodes = parse_nccl_log(text, "two-nodes.log");
  EXPECT_FALSE(network_unused(two_nodes));
  EXPECT_EQ(ids(diagnose_nccl_log(two_nodes, &h100())).front(), "socket-fallback:FAIL@7");
}

// Every entry of suites/nccl-warnings.csv is named by a WARN line as posted in a public thread
// (tests/data/nccl/warn-lines-from-threads.log: `# id: ENTRY | THREAD` above each line).
TEST(NcclDiagnosis, EveryCatalogueEntryIsNamedByItsThreadsLine) {
  std::istringstream in(read_text(kRecorded + "warn-lines-from-threads.log"));
  std::string line, id;
  std::set<std::string> named;
  while (std::getline(in, line)) {
    if (line.rfind("# id: ", 0) == 0) {
      id = line.substr(6, line.find(' ', 6) - 6);
      continue;
    }
    const NcclLog log = parse_nccl_log(line + "\n", id + ".log");
    ASSERT_EQ(log.messages.size(), 1u) << "not read as an NCCL line: " << line;
    const auto found = diagnose_nccl_log(log, nullptr);
    ASSERT_FALSE(found.empty()) << id << ": nothing named in " << line;
    EXPECT_EQ(found.front().id, id) << line;
    EXPECT_FALSE(found.front().source.empty());
    named.insert(id);
  }
  for (const NcclWarningEntry& entry : nccl_warning_catalogue())
    EXPECT_TRUE(named.count(entry.id)) << entry.id << " has no line from a thread in warn-lines-from-threads.log";
  EXPECT_GE(nccl_warning_catalogue().size(), 15u);
}

// NVIDIA/nccl-tests#206: NCCL_SHM_DISABLE=1 set on purpose, then the registration failed on a low
// memlock limit. The failure is the cause and comes first; the setting is a WARN beside it.
TEST(NcclDiagnosis, TheMemlockFailureComesBeforeTheSettingBesideIt) {
  const NcclLog log = parse_nccl_log(
      "gpu-node-01:31002:31002 [0] NCCL INFO NCCL_SHM_DISABLE set by environment to 1.\n"
      "gpu-node-01:31002:31090 [0] misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot "
      "allocate memory\n",
      "single.log");
  const auto found = diagnose_nccl_log(log, nullptr);
  ASSERT_EQ(ids(found), (std::vector<std::string>{"memlock-too-low:FAIL@2", "transport-disabled:WARN@1"}));
  EXPECT_NE(found[0].fix.find("ulimit -l"), std::string::npos);
}

// The entries that need the node's wiring (a saved nvidia-smi topo -m) besides the log.

TEST(NcclDiagnosis, ShmWhereP2pShouldWorkIsAWarnWithItsReason) {
  const NcclLog log = read_nccl_log(kRecorded + "pcie-8gpu-p2p-shm.log");
  const auto by_neighbours = diagnose_nccl_log(log, nullptr);  // the node's other pairs use P2P
  ASSERT_EQ(ids(by_neighbours), std::vector<std::string>{"shm-instead-of-p2p:WARN@5"});
  EXPECT_NE(by_neighbours[0].what.find("rank 3 -> 4 on "), std::string::npos) << by_neighbours[0].what;
  EXPECT_NE(by_neighbours[0].what.find("other GPU pairs on"), std::string::npos);
  const auto by_topology = diagnose_nccl_log(log, &h100());  // the topology puts GPU3 and GPU4 on NVLink
  ASSERT_EQ(ids(by_topology), std::vector<std::string>{"shm-instead-of-p2p:WARN@5"});
  EXPECT_NE(by_topology[0].what.find("GPU3 and GPU4 are NV18"), std::string::npos) << by_topology[0].what;
}

TEST(NcclDiagnosis, NoGdrdmaBesideTheGpuIsAWarnOnlyWithTheTopology) {
  const NcclLog log = read_nccl_log(kRecorded + "multinode-net.log");
  // line 6: device 0 on NET/IB/0 = mlx5_0, PIX to GPU0, without GDRDMA; lines 5 and 7 have it
  const auto found = diagnose_nccl_log(log, &h100());
  ASSERT_EQ(ids(found), std::vector<std::string>{"gdrdma-unused:WARN@6"});
  EXPECT_NE(found[0].why.find("mlx5_0 is PIX to GPU0"), std::string::npos) << found[0].why;
  EXPECT_TRUE(diagnose_nccl_log(log, nullptr).empty());  // without a topology nobody knows
}

TEST(NcclDiagnosis, P2pRefusedOrForbiddenIsNamed) {
  EXPECT_EQ(ids(diagnose("n:1:1 [1] NCCL WARN P2P is disabled between connected GPUs 1 and 0. This should not be the "
                         "case given their connectivity, and is probably due to a hardware issue. If you still want "
                         "to proceed, you can set NCCL_IGNORE_DISABLED_P2P=1.\n")),
            std::vector<std::string>{"p2p-disabled-by-hardware:FAIL@1"});
  EXPECT_EQ(ids(diagnose("n:1:1 [0] NCCL INFO NCCL_P2P_LEVEL set by environment to LOC\n")),
            std::vector<std::string>{"p2p-level:WARN@1"});
  EXPECT_TRUE(diagnose("n:1:1 [0] NCCL INFO NCCL_P2P_LEVEL set by environment to NVL\n").empty());
}

TEST(NcclDiagnosis, NvlsMissingOnNvswitchGpusIsAWarn) {
  const std::string missing = "n:1:1 [0] NCCL INFO NVLS multicast support is not available on dev 0\n";
  EXPECT_EQ(ids(diagnose(missing, &h100())), std::vector<std::string>{"nvls-unavailable:WARN@1"});
  EXPECT_TRUE(diagnose(missing).empty());  // a PCIe node says the same, rightly
  EXPECT_EQ(ids(diagnose("n:1:1 [0] NCCL INFO NCCL_NVLS_ENABLE set by environment to 0.\n")),
            std::vector<std::string>{"nvls-unavailable:WARN@1"});
}

TEST(NcclDiagnosis, APluginForAnotherFabricAndLeftOutNicsAreWarns) {
  EXPECT_EQ(ids(diagnose("n:1:1 [0] NCCL INFO Using network AWS Libfabric\n", &h100())),
            std::vector<std::string>{"plugin-vs-nics:WARN@1"});
  const std::string two_of_eight = "n:1:1 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0,mlx5_1\n"
                                   "n:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.0.0.1<0>\n"
                                   "n:1:1 [0] NCCL INFO Using network IB\n";
  const auto found = diagnose(two_of_eight, &h100());
  ASSERT_EQ(ids(found), std::vector<std::string>{"ib-hca-excludes-ports:WARN@1"});
  EXPECT_NE(found[0].what.find("uses 2 of the node's 8 network devices"), std::string::npos) << found[0].what;
  EXPECT_TRUE(diagnose(two_of_eight).empty());  // without the node's NICs nothing says ports are missing
}

TEST(NcclDiagnosis, HealthyLogsSayNothingBesideTheirTopology) {
  EXPECT_TRUE(diagnose(kIbHealthy, &h100()).empty());
  EXPECT_TRUE(diagnose_nccl_log(read_nccl_log(kRecorded + "ib-network-select.log"), &h100()).empty());
}

}  // namespace
}  // namespace wb
