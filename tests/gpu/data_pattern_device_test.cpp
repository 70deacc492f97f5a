// Device side of the data check; skipped where no GPU is visible.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "data_pattern.h"
#include "gpu/gpu_runtime_info.h"
#include "net/device_message_buffers.h"

namespace wb {
namespace {

class DeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const GpuAvailability gpus = gpu_availability();
    if (gpus.unavailable_reason) GTEST_SKIP() << *gpus.unavailable_reason;
  }
};

TEST_F(DeviceTest, PoisonedBuffersCountEveryByteUntilWritten) {
  DeviceMessageBuffers buffers(4099, 2, std::chrono::seconds(30));
  buffers.poison_receive(3);
  EXPECT_EQ(buffers.count_wrong_received(3), 2u * 4099u);
  buffers.fill_send(3);
  for (std::size_t s = 0; s < buffers.slots(); ++s)
    ASSERT_EQ(cudaMemcpy(buffers.receive_slot(s), buffers.send_buffer(), 4099, cudaMemcpyDeviceToDevice), cudaSuccess);
  EXPECT_EQ(buffers.count_wrong_received(3), 0u);
  buffers.corrupt_one_received_byte();
  EXPECT_EQ(buffers.count_wrong_received(3), 1u);
}

TEST_F(DeviceTest, DeviceAndHostPatternsAgree) {
  DeviceMessageBuffers buffers(1001, 1, std::chrono::seconds(30));
  buffers.fill_send(77);
  std::vector<unsigned char> host(1001);
  ASSERT_EQ(cudaMemcpy(host.data(), buffers.send_buffer(), host.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(pattern::count_wrong_bytes(host.data(), host.size(), 77), 0u);
}

}  // namespace
}  // namespace wb
