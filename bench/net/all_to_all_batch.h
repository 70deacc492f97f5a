// wb-net --pairs alltoall: every rank streams to every other rank at once, the fabric's heaviest
// pattern. Each round posts a window of messages to every peer and a window of receives from every
// peer (each peer's messages land in that peer's receive buffer, as osu_bw's window does), then
// waits; each rank notes, per peer, when the last message of the round from that peer arrived.
// A pair's time is the sum of those arrival times over the batch's rounds, so its figure is the
// bytes that pair moved over the time they took while everyone else was moving theirs: a slow
// sender, receiver or path shows as the pairs that arrive late.
#pragma once

#include <memory>
#include <vector>

#include "comm/communicator.h"
#include "harness/timed_batch.h"
#include "net/message_buffers.h"

namespace wb {

struct AllToAllShape {
  std::size_t window = 1;  // messages to each peer per round
  std::size_t rounds = 1;  // rounds per batch
};

// At most 64 messages in flight per rank in all (osu_bw's window shared among the peers) and
// batches of about 16 MiB received per rank.
AllToAllShape all_to_all_shape(std::uint64_t bytes, int ranks);

struct AllToAllConfig {
  AllToAllShape shape;
  bool check = true;
  bool corrupt_received = false;  // --inject-fault corrupt
  bool slow = false;              // --inject-fault slow: every batch takes twice its time
};

// `buffers` has one receive slot per peer (ranks - 1). flow_seconds() holds, per peer in rank
// order (this rank left out), the seconds that peer's messages took.
std::unique_ptr<TimedBatch> make_all_to_all_batch(Communicator& comm, std::unique_ptr<MessageBuffers> buffers,
                                                  const AllToAllConfig& config);

}  // namespace wb
