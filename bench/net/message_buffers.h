// The memory a point-to-point benchmark sends from and receives into: one send buffer and
// `slots` receive buffers (one per message in flight, so concurrent receives never share
// memory). Host and device implementations differ only in where the bytes live and how the data
// check's pattern is written and verified.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wb {

class MessageBuffers {
 public:
  virtual ~MessageBuffers() = default;
  virtual void* send_buffer() = 0;
  virtual void* receive_slot(std::size_t slot) = 0;
  virtual std::size_t slots() const = 0;
  virtual std::size_t bytes() const = 0;

  virtual void fill_send(std::uint64_t sample) = 0;      // expected data of `sample`
  virtual void poison_receive(std::uint64_t sample) = 0; // every byte differs from expected
  virtual std::uint64_t count_wrong_received(std::uint64_t sample) = 0;  // over all slots
  // Test hook for the data check: flips one received byte, as a corrupting link would.
  virtual void corrupt_one_received_byte() = 0;
};

}  // namespace wb
