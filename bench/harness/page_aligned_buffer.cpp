#include "harness/page_aligned_buffer.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <new>

namespace wb {

std::size_t page_bytes() {
  static const std::size_t page = [] {
    const long size = sysconf(_SC_PAGESIZE);
    return size > 0 ? static_cast<std::size_t>(size) : std::size_t{4096};
  }();
  return page;
}

std::size_t round_up_to_pages(std::size_t bytes) {
  const std::size_t page = page_bytes();
  return (bytes + page - 1) / page * page;
}

PageAlignedBuffer::PageAlignedBuffer(std::size_t bytes, unsigned char fill) : size_(bytes) {
  // aligned_alloc wants a size that is a multiple of the alignment.
  const std::size_t allocated = round_up_to_pages(bytes > 0 ? bytes : 1);
  data_.reset(static_cast<unsigned char*>(std::aligned_alloc(page_bytes(), allocated)));
  if (!data_) throw std::bad_alloc();
  std::memset(data_.get(), fill, allocated);
}

void PageAlignedBuffer::grow_to(std::size_t bytes, unsigned char fill) {
  if (bytes > size_ || !data_) *this = PageAlignedBuffer(bytes, fill);
}

void PageAlignedBuffer::Free::operator()(unsigned char* p) const { std::free(p); }

}  // namespace wb
