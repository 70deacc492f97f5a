#include "net/all_to_all_batch.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace wb {
namespace {

constexpr std::size_t kMessagesInFlight = 64;
constexpr std::uint64_t kBatchBytes = 16ull << 20;
constexpr std::size_t kMaxAllToAllRounds = 100;

using Clock = std::chrono::steady_clock;

class AllToAllBatch final : public TimedBatch {
 public:
  AllToAllBatch(Communicator& comm, std::unique_ptr<MessageBuffers> buffers, const AllToAllConfig& config)
      : comm_(comm), buffers_(std::move(buffers)), config_(config) {
    for (int r = 0; r < comm.size(); ++r)
      if (r != comm.rank()) peers_.push_back(r);
    peer_seconds_.assign(peers_.size(), 0.0);
    arrived_.assign(peers_.size(), 0.0);
    requests_.reserve(2 * peers_.size() * config.shape.window);
  }

  std::uint64_t ops_per_batch() const override { return config_.shape.window * config_.shape.rounds; }
  bool checks_data() const override { return config_.check; }

  void prepare(std::uint64_t sample) override {
    if (!config_.check) return;
    buffers_->fill_send(sample);
    buffers_->poison_receive(sample);
  }

  double run() override {
    std::fill(peer_seconds_.begin(), peer_seconds_.end(), 0.0);
    const std::uint64_t n = buffers_->bytes();
    const std::size_t window = config_.shape.window;
    const auto start = Clock::now();
    for (std::size_t round = 0; round < config_.shape.rounds; ++round) {
      requests_.clear();
      const auto round_start = Clock::now();
      comm_.begin_group();
      for (std::size_t w = 0; w < window; ++w)
        for (std::size_t p = 0; p < peers_.size(); ++p) requests_.push_back(comm_.irecv(buffers_->receive_slot(p), n, peers_[p]));
      // Each rank starts with the peer after itself, so no one rank is everyone's first target.
      for (std::size_t w = 0; w < window; ++w)
        for (std::size_t k = 0; k < peers_.size(); ++k) {
          const std::size_t p = (first_after_me() + k) % peers_.size();
          requests_.push_back(comm_.isend(buffers_->send_buffer(), n, peers_[p]));
        }
      comm_.end_group();
      std::vector<double>& arrived = arrived_;
      std::fill(arrived.begin(), arrived.end(), 0.0);
      const std::size_t receives = window * peers_.size();
      comm_.wait_each(requests_, [&](std::size_t i) {
        if (i >= receives) return;  // a send: its completion says nothing about the peer's receipt
        const std::size_t p = i % peers_.size();
        arrived[p] = std::max(arrived[p], std::chrono::duration<double>(Clock::now() - round_start).count());
      });
      for (std::size_t p = 0; p < peers_.size(); ++p) peer_seconds_[p] += arrived[p];
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (config_.slow) {  // as a link at half rate: everything takes twice as long
      std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
      for (double& s : peer_seconds_) s *= 2;
      return 2 * seconds;
    }
    return seconds;
  }

  std::vector<double> flow_seconds() const override { return peer_seconds_; }

  std::uint64_t verify(std::uint64_t sample) override {
    if (!config_.check) return 0;
    if (config_.corrupt_received) buffers_->corrupt_one_received_byte();
    return buffers_->count_wrong_received(sample);
  }

 private:
  std::size_t first_after_me() const {
    const auto after = std::upper_bound(peers_.begin(), peers_.end(), comm_.rank());
    return after == peers_.end() ? 0 : static_cast<std::size_t>(after - peers_.begin());
  }

  Communicator& comm_;
  std::unique_ptr<MessageBuffers> buffers_;
  AllToAllConfig config_;
  std::vector<int> peers_;
  std::vector<double> peer_seconds_;
  std::vector<double> arrived_;  // this round's arrival of each peer's last message
  std::vector<Request> requests_;
};

}  // namespace

AllToAllShape all_to_all_shape(std::uint64_t bytes, int ranks) {
  const std::size_t peers = static_cast<std::size_t>(std::max(ranks - 1, 1));
  AllToAllShape shape;
  shape.window = std::max<std::size_t>(1, kMessagesInFlight / peers);
  const std::uint64_t per_round = std::max<std::uint64_t>(bytes, 1) * shape.window * peers;
  shape.rounds = static_cast<std::size_t>(std::clamp<std::uint64_t>(kBatchBytes / per_round, 1, kMaxAllToAllRounds));
  return shape;
}

std::unique_ptr<TimedBatch> make_all_to_all_batch(Communicator& comm, std::unique_ptr<MessageBuffers> buffers,
                                                  const AllToAllConfig& config) {
  return std::make_unique<AllToAllBatch>(comm, std::move(buffers), config);
}

}  // namespace wb
