// The collective data check on a GPU: inputs written by the kernel are the host reference's bytes,
// and the kernel counts exactly the wrong elements the host check counts. Skipped without a GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

#include "coll/coll_buffers.h"
#include "gpu/gpu_runtime_info.h"

namespace wb {
namespace {

class CollectiveCheckDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    const GpuAvailability gpus = gpu_availability();
    if (gpus.unavailable_reason) GTEST_SKIP() << *gpus.unavailable_reason;
  }
};

TEST_F(CollectiveCheckDevice, KernelsAgreeWithTheHostCheckOnEveryTypeAndCollective) {
  for (CollOp op : all_collectives())
    for (DType dtype : all_dtypes())
      for (RedOp redop : {RedOp::kSum, RedOp::kProd, RedOp::kMax, RedOp::kMin, RedOp::kAvg}) {
        const CheckContext c{op, dtype, redop, 4, 1, 11, 1000};
        const std::size_t size = info(dtype).size;
        const std::size_t send = check_send_elements(c), recv = check_recv_elements(c);
        auto device = make_device_coll_buffers(send * size, recv * size, std::chrono::seconds(30));
        device->fill_inputs(CollBuffers::Which::kSend, c, 2, 0, 0, send);
        std::vector<unsigned char> got(send * size), want(send * size);
        ASSERT_EQ(cudaMemcpy(got.data(), device->send(), got.size(), cudaMemcpyDeviceToHost), cudaSuccess);
        fill_send(c, 2, want.data());
        ASSERT_EQ(got, want) << describe(op).name << " " << info(dtype).name;
        // a result with every seventh element wrong, checked on the device and on the host
        std::vector<unsigned char> result(recv * size);
        for (std::size_t i = 0; i < recv; ++i)
          store_element(dtype, result.data() + i * size, expected_value(c, 1, i) + (i % 7 == 0 ? 1 : 0));
        ASSERT_EQ(cudaMemcpy(device->recv(), result.data(), result.size(), cudaMemcpyHostToDevice), cudaSuccess);
        ASSERT_EQ(device->count_wrong(c, 1, 0), count_wrong(c, 1, result.data()));
        device->poison_recv();
        ASSERT_EQ(device->count_wrong(c, 1, 0), receives_result(c, 1) ? recv : 0u);  // an unwritten buffer
      }
}

}  // namespace
}  // namespace wb
