// The copy-leg engine on a real GPU; skipped where none is visible.
#include "gpu/copy_legs.h"

#include <gtest/gtest.h>

#include "gpu/gpu_runtime_info.h"
#include "host/numa_memory.h"

namespace wb {
namespace {

class CopyLegsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const GpuAvailability gpus = gpu_availability();
    if (gpus.unavailable_reason) GTEST_SKIP() << *gpus.unavailable_reason;
  }
  std::chrono::milliseconds timeout{30000};
};

TEST_F(CopyLegsTest, DeviceLocalCopiesByEnginesAndSmsAreCheckedAndTimed) {
  for (bool sm : {false, true}) {
    auto batch = make_copy_legs_batch({{0, device_buffer(0, 1u << 20, timeout), device_buffer(0, 1u << 20, timeout), sm}},
                                      3, timeout);
    batch->prepare(5);
    EXPECT_EQ(batch->verify(5), 1u << 20) << "poisoned before the copy";
    EXPECT_GT(batch->run(), 0.0);
    EXPECT_EQ(batch->verify(5), 0u) << (sm ? "sm" : "ce");
  }
}

TEST_F(CopyLegsTest, HostToDeviceAndBackWithPinnedAndPageableMemory) {
  NumaMemory numa;
  const int node = numa.nodes().front();
  for (bool pinned : {true, false}) {
    auto h2d = make_copy_legs_batch({{0, device_buffer(0, 4099, timeout), host_buffer(numa, node, 4099, pinned), false}}, 2,
                                    timeout);
    h2d->prepare(9);
    h2d->run();
    EXPECT_EQ(h2d->verify(9), 0u);
  }
}

TEST_F(CopyLegsTest, PointerChaseOverDeviceAndMappedHostMemory) {
  NumaMemory numa;
  auto device = make_gpu_chase_batch(0, device_buffer(0, 1u << 20, timeout), 1000, timeout);
  EXPECT_GT(device->run(), 0.0);
  auto host = make_gpu_chase_batch(0, host_buffer(numa, numa.nodes().front(), 1u << 20, true), 1000, timeout);
  EXPECT_GT(host->run(), 0.0);
}

}  // namespace
}  // namespace wb
