#include "net/p2p_batches.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <thread>
#include <vector>

namespace wb {
namespace {

constexpr std::uint64_t kWindowBytes = 64ull << 20;
constexpr std::size_t kMaxWindow = 64;  // osu_bw's window_size
constexpr std::size_t kMaxP2pRounds = 100;
// Ping-pong batches hold at least 16 round trips up to 4 MiB, so that the one checked echo of a
// batch (into a second buffer) is one round trip in 16 or more, not one in 4 (2-3% of the figure,
// measured); beyond that they aim at the batch's bytes like the others (a 1 MiB batch over 1 Gbit/s:
// 0.28 s, so five samples fit the virtual cluster's time).
constexpr std::size_t kPingPongMinRounds = 16;
constexpr std::uint64_t kPingPongMinRoundsUpTo = 4ull << 20;

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

enum class Role { kInitiator, kResponder, kIdle };

class P2pBatch final : public TimedBatch {
 public:
  P2pBatch(Communicator& comm, std::unique_ptr<MessageBuffers> buffers, const P2pBatchConfig& config)
      : comm_(comm), buffers_(std::move(buffers)), config_(config) {
    for (const RankPair& pair : config.round) {
      if (comm.rank() == pair.initiator) {
        role_ = Role::kInitiator;
        peer_ = pair.responder;
      } else if (comm.rank() == pair.responder) {
        role_ = Role::kResponder;
        peer_ = pair.initiator;
      }
    }
    requests_.reserve(2 * config.shape.window);
  }

  std::uint64_t ops_per_batch() const override { return wb::ops_per_batch(config_.pattern, config_.shape); }

  bool checks_data() const override { return config_.check; }

  void prepare(std::uint64_t sample) override {
    if (role_ == Role::kIdle || !config_.check) return;
    buffers_->fill_send(sample);
    buffers_->poison_receive(sample);
  }

  double run() override {
    if (role_ == Role::kIdle) return 0.0;
    if (config_.crash && role_ == Role::kResponder) std::raise(SIGSEGV);
    const auto start = Clock::now();
    const double seconds = timed_pattern();
    if (!config_.slow || seconds <= 0) return seconds;
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    return seconds_since(start);
  }

  double timed_pattern() {
    switch (config_.pattern) {
      case P2pPattern::kPingPong: return ping_pong();
      case P2pPattern::kStreamBandwidth: return stream();
      case P2pPattern::kBidirectional: return bidirectional();
    }
    return 0.0;
  }

  std::uint64_t verify(std::uint64_t sample) override {
    if (!receives_data() || !config_.check) return 0;
    if (config_.corrupt_received && role_ == Role::kResponder) buffers_->corrupt_one_received_byte();
    return buffers_->count_wrong_received(sample);
  }

 private:
  // The buffer the w-th message of a window lands in: its own, or osu_bw's one buffer.
  std::size_t slot(std::size_t w) const { return w % config_.shape.receive_slots; }

  // In a stream only the responder receives data (the initiator gets the empty acknowledgement).
  bool receives_data() const {
    if (role_ == Role::kIdle) return false;
    return config_.pattern != P2pPattern::kStreamBandwidth || role_ == Role::kResponder;
  }

  // Each rank sends from its send buffer and receives into buffers of its own, as osu_latency does
  // (s_buf and r_buf): receiving into the buffer a rank sends from next took MPICH twice as long at
  // 256 KiB (54 against 25 us a trip here, bench/MEASUREMENTS.md). Every round but the batch's last
  // lands in a scratch slot; the last lands in the poisoned slot 0, so a receive that completed
  // without writing anything is caught on either rank.
  double ping_pong() {
    const std::uint64_t n = buffers_->bytes();
    const std::size_t rounds = config_.shape.rounds;
    void* const send = buffers_->send_buffer();
    void* const scratch = buffers_->receive_slot(config_.shape.receive_slots - 1);
    void* const checked = config_.unwritten_echo && role_ == Role::kInitiator ? scratch : buffers_->receive_slot(0);
    const auto start = Clock::now();
    for (std::size_t r = 0; r < rounds; ++r) {
      void* const into = r + 1 == rounds ? checked : scratch;
      if (role_ == Role::kInitiator) {
        comm_.send(send, n, peer_);
        comm_.recv(into, n, peer_);
      } else {
        comm_.recv(into, n, peer_);
        comm_.send(send, n, peer_);
      }
    }
    return role_ == Role::kInitiator ? seconds_since(start) : 0.0;
  }

  double stream() {
    const std::uint64_t n = buffers_->bytes();
    const auto start = Clock::now();
    for (std::size_t r = 0; r < config_.shape.rounds; ++r) {
      requests_.clear();
      comm_.begin_group();
      for (std::size_t w = 0; w < config_.shape.window; ++w)
        requests_.push_back(role_ == Role::kInitiator ? comm_.isend(buffers_->send_buffer(), n, peer_)
                                                      : comm_.irecv(buffers_->receive_slot(slot(w)), n, peer_));
      comm_.end_group();
      comm_.wait_all(requests_);
      if (role_ == Role::kInitiator) comm_.recv(&ack_, 0, peer_);
      else comm_.send(&ack_, 0, peer_);
    }
    return role_ == Role::kInitiator ? seconds_since(start) : 0.0;
  }

  double bidirectional() {
    const std::uint64_t n = buffers_->bytes();
    const auto start = Clock::now();
    for (std::size_t r = 0; r < config_.shape.rounds; ++r) {
      requests_.clear();
      comm_.begin_group();
      for (std::size_t w = 0; w < config_.shape.window; ++w)
        requests_.push_back(comm_.irecv(buffers_->receive_slot(slot(w)), n, peer_));
      for (std::size_t w = 0; w < config_.shape.window; ++w)
        requests_.push_back(comm_.isend(buffers_->send_buffer(), n, peer_));
      comm_.end_group();
      comm_.wait_all(requests_);
    }
    return seconds_since(start);  // both sides time; the harness keeps the slower
  }

  Communicator& comm_;
  std::unique_ptr<MessageBuffers> buffers_;
  P2pBatchConfig config_;
  Role role_ = Role::kIdle;
  int peer_ = -1;
  std::vector<Request> requests_;
  char ack_ = 0;
};

}  // namespace

PatternNames pattern_names(P2pPattern pattern) {
  switch (pattern) {
    case P2pPattern::kPingPong: return {"latency", "pingpong", "uni"};
    case P2pPattern::kStreamBandwidth: return {"bw", "stream_bw", "uni"};
    case P2pPattern::kBidirectional: return {"bibw", "bidir_bw", "bidir"};
  }
  return {"?", "?", "?"};
}

BatchShape batch_shape(P2pPattern pattern, std::uint64_t bytes, WindowMode mode, std::uint64_t batch_bytes) {
  const std::uint64_t message = std::max<std::uint64_t>(bytes, 1);
  BatchShape shape;
  if (pattern != P2pPattern::kPingPong) {
    shape.window = mode == WindowMode::kOsu
                       ? kMaxWindow
                       : static_cast<std::size_t>(std::clamp<std::uint64_t>(kWindowBytes / message, 1, kMaxWindow));
    shape.receive_slots = mode == WindowMode::kOsu ? 1 : shape.window;
  }
  const std::uint64_t per_round = message * shape.window;
  const std::uint64_t fewest =
      pattern == P2pPattern::kPingPong && message <= kPingPongMinRoundsUpTo ? kPingPongMinRounds : 1;
  shape.rounds = static_cast<std::size_t>(std::clamp<std::uint64_t>(batch_bytes / per_round, fewest, kMaxP2pRounds));
  // Ping-pong: the checked slot 0 for the batch's last round, a scratch slot for the others.
  if (pattern == P2pPattern::kPingPong && shape.rounds > 1) shape.receive_slots = 2;
  return shape;
}

std::uint64_t ops_per_batch(P2pPattern pattern, const BatchShape& shape) {
  const std::uint64_t per_round = pattern == P2pPattern::kPingPong ? 2 : shape.window;
  return per_round * shape.rounds;
}

double bytes_per_op(P2pPattern pattern, std::uint64_t bytes) {
  return pattern == P2pPattern::kBidirectional ? 2.0 * static_cast<double>(bytes) : static_cast<double>(bytes);
}

std::unique_ptr<TimedBatch> make_p2p_batch(Communicator& comm, std::unique_ptr<MessageBuffers> buffers,
                                           const P2pBatchConfig& config) {
  return std::make_unique<P2pBatch>(comm, std::move(buffers), config);
}

}  // namespace wb
