// Live discovery on a real GPU: each GPU's PCIe link is read while it copies (an idle GPU runs its
// link at a lower speed); skipped where no GPU is visible.
#include <gtest/gtest.h>

#include "gpu/gpu_runtime_info.h"
#include "topology/live_discovery.h"

namespace wb {
namespace {

TEST(GpuTopologyTest, EveryGpuLinkIsReadUnderLoad) {
  const GpuAvailability gpus = gpu_availability();
  if (gpus.unavailable_reason) GTEST_SKIP() << *gpus.unavailable_reason;
  DiscoveryRoots roots;
  roots.use_nvidia_smi = false;
  const NodeTopology node = discover_node(roots);
  ASSERT_FALSE(node.gpus.empty());
  for (const auto& gpu : node.gpus) {
    if (!gpu.pcie.known()) continue;  // an SXM board behind a bridge sysfs does not describe
    EXPECT_TRUE(gpu.pcie.read_under_load) << gpu.pci_bus_id;
    // Under load a GPU's link leaves Gen1 (2.5 GT/s), whatever its generation.
    EXPECT_GT(*gpu.pcie.current_gts, 2.5) << gpu.pci_bus_id << " read under load at 2.5 GT/s";
  }
}

}  // namespace
}  // namespace wb
