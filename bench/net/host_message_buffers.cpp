#include "net/host_message_buffers.h"

#include "data_pattern.h"

namespace wb {

// Slots of small messages stay packed (a page each would spread a window of 8-byte messages
// over 64 pages); from a page up each slot starts on one, as the single receive buffer does.
HostMessageBuffers::HostMessageBuffers(std::size_t bytes, std::size_t slots)
    : bytes_(bytes),
      slots_(slots),
      stride_(bytes >= page_bytes() ? round_up_to_pages(bytes) : bytes),
      send_(bytes),
      receive_(stride_ * slots) {}

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
  if (bytes_ > 0) receive_.data()[bytes_ / 2] ^= 0x01;
}

}  // namespace wb
