#include "coll/coll_batch.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "harness/errors.h"

namespace wb {
namespace {

using Clock = std::chrono::steady_clock;

class CollBatch final : public TimedBatch {
 public:
  CollBatch(Communicator& comm, std::unique_ptr<CollBuffers> buffers, const CollBatchConfig& config)
      : comm_(comm), buffers_(std::move(buffers)), config_(config) {
    call_.op = config.op;
    call_.dtype = config.dtype;
    call_.redop = config.redop;
    call_.root = config.root;
    call_.send = buffers_->send();
    call_.recv = buffers_->recv();
    call_.count = config.shape.count;
    call_.in_place = config.in_place;
    // Timed calls work on valid numbers (not garbage that may be NaN or denormal): fill once.
    load_inputs(context(0));
  }

  std::uint64_t ops_per_batch() const override { return config_.iterations; }
  void prepare(std::uint64_t) override {}
  std::uint64_t verify(std::uint64_t) override { return 0; }
  bool checks_data() const override { return config_.checks > 0; }
  int check_runs() const override { return config_.checks; }

  double run() override {
    if (config_.graph && !replay_) {
      // Captured outside the timing, once: what nccl-tests' -G measures is the replay.
      replay_ = comm_.capture([this] {
        for (std::size_t i = 0; i < config_.iterations; ++i) comm_.start_collective(call_);
      });
      if (!replay_) throw UsageError("CUDA graph launch needs the nccl backend");
    }
    const auto start = Clock::now();
    if (replay_) {
      replay_();
      comm_.wait_all({});
    } else if (config_.blocking) {
      for (std::size_t i = 0; i < config_.iterations; ++i) comm_.collective(call_);
    } else {
      for (std::size_t i = 0; i < config_.iterations; ++i) {
        Request request = comm_.start_collective(call_);
        comm_.wait(request);
      }
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (runs_++ >= config_.warmup_batches) batch_seconds_.push_back(seconds);
    return seconds;
  }

  std::string extra_after_run() override {
    return config_.per_communicator_extra ? config_.per_communicator_extra(batch_seconds_) : std::string();
  }

  std::uint64_t check(std::uint64_t sample) override {
    const CheckContext c = context(sample);
    load_inputs(c);
    if (config_.blocking) {
      comm_.collective(call_);
    } else {
      Request request = comm_.start_collective(call_);
      comm_.wait(request);
    }
    std::vector<unsigned char> result = buffers_->read_recv();
    const std::size_t element = info(config_.dtype).size;
    unsigned char* out = result.data();
    if (config_.in_place && config_.op == CollOp::kReduceScatter)
      out += comm_.in_place_result_block(config_.op) * config_.shape.count * element;
    if (config_.corrupt_result && comm_.rank() == 0 && receives_result(c, 0) && config_.shape.count > 0)
      store_element(config_.dtype, out, expected_value(c, 0, 0) + 1);  // a wrong element, as a bad link would
    return count_wrong(c, comm_.rank(), out);
  }

 private:
  CheckContext context(std::uint64_t seed) const {
    return CheckContext{config_.op, config_.dtype, config_.redop, comm_.size(), config_.root, seed, config_.shape.count};
  }

  // Fresh inputs where the call reads them, and zeros (never expected) where it writes.
  void load_inputs(const CheckContext& c) {
    const std::size_t element = info(config_.dtype).size;
    const auto [send_bytes, recv_bytes] = buffer_bytes(config_);
    std::vector<unsigned char> input(std::max<std::size_t>(send_bytes, 1));
    fill_send(c, comm_.rank(), input.data());
    std::vector<unsigned char> output(std::max<std::size_t>(recv_bytes, 1), 0);
    if (!config_.in_place) {
      buffers_->write_send(input);
    } else if (config_.op == CollOp::kAllGather) {
      // This rank's block sits at its place in the receive buffer.
      std::copy(input.begin(), input.begin() + static_cast<long>(config_.shape.count * element),
                output.begin() + static_cast<long>(static_cast<std::size_t>(comm_.rank()) * config_.shape.count * element));
    } else if (config_.op == CollOp::kBroadcast && comm_.rank() != config_.root) {
      // only the root's buffer holds data; the others must be written by the broadcast
    } else {
      std::copy(input.begin(), input.begin() + static_cast<long>(std::min(send_bytes, recv_bytes)), output.begin());
    }
    buffers_->write_recv(output);
  }

  Communicator& comm_;
  std::unique_ptr<CollBuffers> buffers_;
  std::vector<double> batch_seconds_;  // this rank's, every timed batch
  std::size_t runs_ = 0;
  CollBatchConfig config_;
  CollectiveCall call_;
  std::function<void()> replay_;
};

}  // namespace

std::size_t iterations_per_batch(std::uint64_t bytes) {
  constexpr std::uint64_t kBatchBytes = 64ull << 20;
  return static_cast<std::size_t>(std::clamp<std::uint64_t>(kBatchBytes / std::max<std::uint64_t>(bytes, 1), 1, 100));
}

std::pair<std::size_t, std::size_t> buffer_bytes(const CollBatchConfig& config) {
  const std::size_t element = info(config.dtype).size;
  const std::size_t send = config.shape.send_elements * element;
  const std::size_t recv = config.shape.recv_elements * element;
  // In place everything lives in the receive buffer, which must hold the larger of the two.
  if (config.in_place) return {send, std::max(send, recv)};
  return {send, recv};
}

std::unique_ptr<TimedBatch> make_coll_batch(Communicator& comm, std::unique_ptr<CollBuffers> buffers,
                                            const CollBatchConfig& config) {
  return std::make_unique<CollBatch>(comm, std::move(buffers), config);
}

}  // namespace wb
