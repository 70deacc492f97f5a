#include "net/host_message_buffers.h"

#include "data_pattern.h"

namespace wb {

// +1: a zero-byte message still needs a valid address.
HostMessageBuffers::HostMessageBuffers(std::size_t bytes, std::size_t slots)
    : bytes_(bytes), slots_(slots), send_(bytes + 1), receive_(bytes * slots + 1) {}

void HostMessageBuffers::fill_send(std::uint64_t sample) { pattern::fill(send_.data(), bytes_, sample); }

void HostMessageBuffers::poison_receive(std::uint64_t sample) {
  for (std::size_t s = 0; s < slots_; ++s) pattern::poison(receive_slot(s), bytes_, sample);
}

std::uint64_t HostMessageBuffers::count_wrong_received(std::uint64_t sample) {
  std::uint64_t wrong = 0;
  for (std::size_t s = 0; s < slots_; ++s) wrong += pattern::count_wrong_bytes(receive_slot(s), bytes_, sample);
  return wrong;
}

void HostMessageBuffers::corrupt_one_received_byte() {
  if (bytes_ > 0) receive_[bytes_ / 2] ^= 0x01;
}

}  // namespace wb
