#include <cstring>

#include "coll/coll_buffers.h"
#include "harness/page_aligned_buffer.h"

namespace wb {
namespace {

class HostCollBuffers final : public CollBuffers {
 public:
  // On page boundaries, as osu_allreduce's and IMB's buffers (harness/page_aligned_buffer.h).
  HostCollBuffers(std::size_t send_bytes, std::size_t recv_bytes) : send_(send_bytes), recv_(recv_bytes) {}
  void* send() override { return send_.data(); }
  void* recv() override { return recv_.data(); }

  void fill_inputs(Which which, const CheckContext& c, int rank, std::size_t offset, std::size_t first_index,
                   std::size_t elements) override {
    const std::size_t size = info(c.dtype).size;
    unsigned char* base = (which == Which::kSend ? send_ : recv_).data() + offset * size;
    for (std::size_t i = 0; i < elements; ++i) store_element(c.dtype, base + i * size, input_value(c, rank, first_index + i));
  }
  void poison_recv() override { std::memset(recv_.data(), 0, recv_.size()); }
  void plant_wrong_value(const CheckContext& c, int rank, std::size_t offset) override {
    store_element(c.dtype, recv_.data() + offset * info(c.dtype).size, expected_value(c, rank, 0) + 1);
  }
  std::uint64_t count_wrong(const CheckContext& c, int rank, std::size_t offset) override {
    return wb::count_wrong(c, rank, recv_.data() + offset * info(c.dtype).size);
  }

 private:
  PageAlignedBuffer send_, recv_;
};

}  // namespace

std::unique_ptr<CollBuffers> make_host_coll_buffers(std::size_t send_bytes, std::size_t recv_bytes) {
  return std::make_unique<HostCollBuffers>(send_bytes, recv_bytes);
}

}  // namespace wb
