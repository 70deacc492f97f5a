// The data check pattern: every 8-byte word of a message depends on its position and on the
// sample (batch) number, so a word left from an earlier batch, a shifted copy or a flipped bit
// all read as wrong. Receivers poison their buffers with the pattern's complement before each
// batch, which differs from the expected data in every byte: an unwritten buffer counts every
// byte as an error. The formula is shared by the host functions and the CUDA kernels.
#pragma once

#include <cstddef>
#include <cstdint>

#include "host_device.h"

namespace wb::pattern {

// Odd multipliers: word(j, s) - word(j, s') = (s - s') * kSampleStep is never 0 mod 2^64 for
// s != s', and neighbouring words differ.
inline constexpr std::uint64_t kPositionStep = 0x9E3779B97F4A7C15ull;
inline constexpr std::uint64_t kSampleStep = 0xD1B54A32D192ED03ull;

WB_HOST_DEVICE inline std::uint64_t word(std::uint64_t index, std::uint64_t sample) {
  return index * kPositionStep + (sample + 1) * kSampleStep;
}

WB_HOST_DEVICE inline unsigned char byte_at(std::uint64_t offset, std::uint64_t sample) {
  return static_cast<unsigned char>(word(offset / 8, sample) >> (8 * (offset % 8)));
}

// Host counterparts of the kernels in data_pattern.cu.
void fill(void* buffer, std::size_t bytes, std::uint64_t sample);
void poison(void* buffer, std::size_t bytes, std::uint64_t sample);
std::uint64_t count_wrong_bytes(const void* buffer, std::size_t bytes, std::uint64_t sample);

}  // namespace wb::pattern
