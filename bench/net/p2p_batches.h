// The three point-to-point patterns of wb-net, as timed batches (see harness/timed_batch.h):
//   PingPong          latency: a round trip counts as two operations, so time per operation is
//                     half the round trip (as NetPIPE and osu_latency report it)
//   StreamBandwidth   osu_bw: the initiator keeps a window of messages in flight, then waits for
//                     a zero-byte acknowledgement; time per operation is per message
//   Bidirectional     osu_bibw: both sides send a window to each other at once; an operation
//                     moves one message each way
// A batch runs one round of disjoint pairs (net/pair_plan.h) at once: each pair's two ranks move
// data, each initiator timing its own pair; every other rank runs the same batch doing nothing.
#pragma once

#include <memory>

#include "comm/communicator.h"
#include "harness/timed_batch.h"
#include "net/message_buffers.h"
#include "net/pair_plan.h"

namespace wb {

enum class P2pPattern { kPingPong, kStreamBandwidth, kBidirectional };

// How a pattern is named: in --tests and benchmark names, in the `case` column, its direction.
struct PatternNames {
  const char* test;       // latency, bw, bibw
  const char* case_name;  // pingpong, stream_bw, bidir_bw
  const char* direction;  // uni, bidir
};
PatternNames pattern_names(P2pPattern pattern);

// How a stream's window lands (--window). kOsu: osu_bw's and osu_bibw's own pattern (5.x to 7.x):
// 64 messages in flight, all received into one buffer; the check sees the window's last message.
// kSlots: up to 64 messages (at most 64 MiB in flight), each into a slot of its own, every byte of
// every message checked; a larger receive footprint, so it reads lower than osu_bw at large sizes.
enum class WindowMode { kOsu, kSlots };

struct BatchShape {
  std::size_t window = 1;         // messages in flight
  std::size_t rounds = 1;         // round trips or windows per batch
  std::size_t receive_slots = 1;  // buffers they are received into
};

// Sizes each batch so that small messages are timed in groups (timer and synchronisation cost
// vanish) and large ones do not take long (rounds aim at `batch_bytes` of traffic per batch, 16 MiB
// unless --batch-bytes says otherwise; a batch is at least one window or round trip).
constexpr std::uint64_t kDefaultBatchBytes = 16ull << 20;
BatchShape batch_shape(P2pPattern pattern, std::uint64_t bytes, WindowMode mode = WindowMode::kOsu,
                       std::uint64_t batch_bytes = kDefaultBatchBytes);

// Operations one batch of `shape` performs, and bytes one operation moves.
std::uint64_t ops_per_batch(P2pPattern pattern, const BatchShape& shape);
double bytes_per_op(P2pPattern pattern, std::uint64_t bytes);

struct P2pBatchConfig {
  P2pPattern pattern = P2pPattern::kPingPong;
  PairRound round{{0, 1}};
  BatchShape shape;
  // --check 0: no fill, poison or verify. Either way the ping-pong initiator receives its echoes
  // into the buffer it sends from (one buffer per rank, as NetPIPE and plain MPI loops do); with
  // the check on, the batch's last echo goes to the poisoned receive buffer instead.
  bool check = true;
  bool corrupt_received = false;  // --inject-fault corrupt: proves the data check works
  // --inject-fault unwritten: the checked echo lands in the send buffer, as if the transport
  // completed the receive without writing it; the data check must count every byte.
  bool unwritten_echo = false;
  // --inject-fault slow: each batch waits as long again inside its timing, as a link at half rate.
  bool slow = false;
  // --inject-fault crash: the responder dies of SIGSEGV in its first batch (the crash report's test).
  bool crash = false;
};

std::unique_ptr<TimedBatch> make_p2p_batch(Communicator& comm, std::unique_ptr<MessageBuffers> buffers,
                                           const P2pBatchConfig& config);

}  // namespace wb
