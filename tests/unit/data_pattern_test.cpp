#include "data_pattern.h"

#include <gtest/gtest.h>

#include <vector>

#include "net/host_message_buffers.h"

namespace wb {
namespace {

TEST(DataPattern, FilledBufferVerifiesClean) {
  for (std::size_t bytes : {0, 1, 7, 8, 9, 4096, 65537}) {
    std::vector<unsigned char> buffer(bytes + 1);
    pattern::fill(buffer.data(), bytes, 42);
    EXPECT_EQ(pattern::count_wrong_bytes(buffer.data(), bytes, 42), 0u) << bytes;
  }
}

TEST(DataPattern, UnwrittenBufferCountsEveryByte) {
  for (std::size_t bytes : {1, 7, 8, 4096, 4099}) {
    std::vector<unsigned char> buffer(bytes);
    pattern::poison(buffer.data(), bytes, 5);  // what a receiver does before the batch
    EXPECT_EQ(pattern::count_wrong_bytes(buffer.data(), bytes, 5), bytes) << bytes;
  }
}

TEST(DataPattern, OneCorruptedByteCountsOnce) {
  std::vector<unsigned char> buffer(1000);
  pattern::fill(buffer.data(), buffer.size(), 9);
  buffer[123] ^= 0x10;
  EXPECT_EQ(pattern::count_wrong_bytes(buffer.data(), buffer.size(), 9), 1u);
  buffer[999] ^= 0x80;  // the tail after the last whole word
  EXPECT_EQ(pattern::count_wrong_bytes(buffer.data(), buffer.size(), 9), 2u);
}

TEST(DataPattern, DataOfAnotherSampleIsWrongEverywhere) {
  // A buffer still holding the previous batch's message must not pass as this batch's.
  std::vector<unsigned char> buffer(4096);
  pattern::fill(buffer.data(), buffer.size(), 10);
  EXPECT_GT(pattern::count_wrong_bytes(buffer.data(), buffer.size(), 11), buffer.size() / 2);
  // Words within one message differ, so a message shifted by a word is caught too.
  EXPECT_NE(pattern::word(0, 3), pattern::word(1, 3));
}

TEST(HostMessageBuffers, PoisonFillAndCorruptionAcrossSlots) {
  HostMessageBuffers buffers(100, 3);
  buffers.poison_receive(1);
  EXPECT_EQ(buffers.count_wrong_received(1), 300u);  // nothing arrived: every byte wrong
  for (std::size_t s = 0; s < buffers.slots(); ++s) pattern::fill(buffers.receive_slot(s), 100, 1);
  EXPECT_EQ(buffers.count_wrong_received(1), 0u);
  buffers.corrupt_one_received_byte();
  EXPECT_EQ(buffers.count_wrong_received(1), 1u);
  buffers.fill_send(2);
  EXPECT_EQ(pattern::count_wrong_bytes(buffers.send_buffer(), 100, 2), 0u);
}

}  // namespace
}  // namespace wb
