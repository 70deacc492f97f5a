#include <cstring>

#include "data_pattern.h"

namespace wb::pattern {
namespace {

// Little-endian byte order of the words, the same on every supported host and on the GPU.
inline void store_word(unsigned char* out, std::uint64_t value) { std::memcpy(out, &value, 8); }
inline std::uint64_t load_word(const unsigned char* in) {
  std::uint64_t value;
  std::memcpy(&value, in, 8);
  return value;
}

void write(void* buffer, std::size_t bytes, std::uint64_t sample, std::uint64_t flip) {
  auto* out = static_cast<unsigned char*>(buffer);
  const std::size_t words = bytes / 8;
  for (std::size_t j = 0; j < words; ++j) store_word(out + 8 * j, word(j, sample) ^ flip);
  for (std::size_t i = words * 8; i < bytes; ++i)
    out[i] = static_cast<unsigned char>(byte_at(i, sample) ^ static_cast<unsigned char>(flip));
}

}  // namespace

void fill(void* buffer, std::size_t bytes, std::uint64_t sample) { write(buffer, bytes, sample, 0); }

void poison(void* buffer, std::size_t bytes, std::uint64_t sample) { write(buffer, bytes, sample, ~0ull); }

std::uint64_t count_wrong_bytes(const void* buffer, std::size_t bytes, std::uint64_t sample) {
  const auto* in = static_cast<const unsigned char*>(buffer);
  const std::size_t words = bytes / 8;
  std::uint64_t wrong = 0;
  for (std::size_t j = 0; j < words; ++j) {
    const std::uint64_t diff = load_word(in + 8 * j) ^ word(j, sample);
    if (diff != 0)
      for (int b = 0; b < 8; ++b) wrong += ((diff >> (8 * b)) & 0xff) != 0;
  }
  for (std::size_t i = words * 8; i < bytes; ++i) wrong += in[i] != byte_at(i, sample);
  return wrong;
}

}  // namespace wb::pattern
