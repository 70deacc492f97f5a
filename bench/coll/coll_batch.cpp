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

  std::uint64_t ops_per_batch() const override {
    return config_.iterations * config_.agg_iters * static_cast<std::size_t>(std::max(config_.graph_launches, 1));
  }
  void prepare(std::uint64_t) override {
    if (warmed_) return;
    for (std::size_t i = 0; i < config_.warmup_calls; ++i) call_and_wait();  // untimed, before the first batch
    warmed_ = true;
  }
  std::uint64_t verify(std::uint64_t) override { return 0; }
  bool checks_data() const override { return config_.checks > 0; }
  int check_runs() const override { return config_.checks; }

  double run() override {
    if (config_.graph_launches > 0 && !replay_) {
      // Captured outside the timing, once: what nccl-tests' -G measures is the launches.
      replay_ = comm_.capture([this] { launch_all(); });
      pending_.clear();  // captured, not running: the launches are waited for as the stream
      if (!replay_) throw UsageError("CUDA graph launch needs the nccl backend");
    }
    const auto start = Clock::now();
    auto launched = start;
    if (replay_) {
      for (int i = 0; i < config_.graph_launches; ++i) replay_();
      launched = Clock::now();
      comm_.wait_all({});
    } else if (!config_.blocking && comm_.queues_calls()) {
      launch_all();
      launched = Clock::now();
      comm_.wait_all(pending_);
      pending_.clear();
    } else {
      for (std::size_t i = 0; i < config_.iterations; ++i) call_and_wait();
      launched = Clock::now();
    }
    const auto end = config_.report_cputime ? launched : Clock::now();
    const double seconds = std::chrono::duration<double>(end - start).count();
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
    // In place, MPI leaves reduce_scatter's result in block 0, NCCL in this rank's block.
    const std::size_t offset = config_.in_place && config_.op == CollOp::kReduceScatter
                                   ? comm_.in_place_result_block(config_.op) * config_.shape.count
                                   : 0;
    if (config_.corrupt_result && comm_.rank() == 0 && receives_result(c, 0) && config_.shape.count > 0)
      buffers_->plant_wrong_value(c, 0, offset);  // a wrong element, as a bad link would leave
    return buffers_->count_wrong(c, comm_.rank(), offset);
  }

 private:
  // Every call of the batch started, none waited for (their requests in pending_).
  void launch_all() {
    for (std::size_t i = 0; i < config_.iterations; ++i) {
      if (config_.agg_iters > 1) comm_.begin_group();
      for (std::size_t j = 0; j < config_.agg_iters; ++j) pending_.push_back(comm_.start_collective(call_));
      if (config_.agg_iters > 1) comm_.end_group();
    }
  }

  // One call (or group of -m calls), completed before the next.
  void call_and_wait() {
    if (config_.agg_iters == 1 && config_.blocking) {
      comm_.collective(call_);
      return;
    }
    if (config_.agg_iters > 1) comm_.begin_group();
    for (std::size_t j = 0; j < config_.agg_iters; ++j) pending_.push_back(comm_.start_collective(call_));
    if (config_.agg_iters > 1) comm_.end_group();
    comm_.wait_all(pending_);
    pending_.clear();
  }

  CheckContext context(std::uint64_t seed) const {
    return CheckContext{config_.op, config_.dtype, config_.redop, comm_.size(), config_.root, seed, config_.shape.count};
  }

  // Fresh inputs where the call reads them, and zeros (never expected) where it writes.
  void load_inputs(const CheckContext& c) {
    const int rank = comm_.rank();
    const std::size_t send = check_send_elements(c);
    buffers_->poison_recv();
    if (!config_.in_place) {
      buffers_->fill_inputs(CollBuffers::Which::kSend, c, rank, 0, 0, send);
    } else if (config_.op == CollOp::kAllGather) {
      // This rank's block sits at its place in the receive buffer.
      buffers_->fill_inputs(CollBuffers::Which::kRecv, c, rank, static_cast<std::size_t>(rank) * config_.shape.count, 0,
                            config_.shape.count);
    } else if (config_.op == CollOp::kBroadcast && rank != config_.root) {
      // only the root's buffer holds data; the others must be written by the broadcast
    } else {
      // in place the receive buffer holds the whole input (reduce_scatter: all n blocks)
      buffers_->fill_inputs(CollBuffers::Which::kRecv, c, rank, 0, 0, send);
    }
  }

  Communicator& comm_;
  std::unique_ptr<CollBuffers> buffers_;
  std::vector<double> batch_seconds_;  // this rank's, every timed batch
  std::size_t runs_ = 0;
  bool warmed_ = false;  // the -w calls are made
  CollBatchConfig config_;
  CollectiveCall call_;
  std::function<void()> replay_;
  std::vector<Request> pending_;
};

}  // namespace

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
