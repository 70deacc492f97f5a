// Host memory for messages, starting on a page boundary, as OSU's and IMB's buffers do. A
// std::vector or malloc of a large size starts 16 bytes past a page (glibc serves it from mmap
// behind a chunk header), and MPICH moves such a buffer at well under half the rate of an aligned
// one: all_reduce of 1 MiB took 2.2-2.4x osu_allreduce's time that way (bench/MEASUREMENTS.md,
// issue 27). Every benchmark's host message buffers are these.
#pragma once

#include <cstddef>
#include <memory>

namespace wb {

std::size_t page_bytes();

// `bytes` rounded up to whole pages (0 stays 0).
std::size_t round_up_to_pages(std::size_t bytes);

class PageAlignedBuffer {
 public:
  PageAlignedBuffer() = default;
  // Every byte set to `fill` (first touch now, not in a timed batch). A zero-byte buffer still has
  // an address: one page.
  explicit PageAlignedBuffer(std::size_t bytes, unsigned char fill = 0);

  unsigned char* data() { return data_.get(); }
  const unsigned char* data() const { return data_.get(); }
  std::size_t size() const { return size_; }

  // At least `bytes` long: a new buffer, every byte `fill`, when this one is shorter.
  void grow_to(std::size_t bytes, unsigned char fill);

 private:
  struct Free {
    void operator()(unsigned char* p) const;
  };
  std::unique_ptr<unsigned char[], Free> data_;
  std::size_t size_ = 0;
};

}  // namespace wb
