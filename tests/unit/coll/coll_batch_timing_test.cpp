// The timing paths of a collective batch (nccl-tests' -z, -m, -G), on a fake stream that counts
// launches and synchronisations: the rules are about how many of each a batch makes.
#include "coll/coll_batch.h"

#include <gtest/gtest.h>

namespace wb {
namespace {

class FakeStream final : public Communicator {
 public:
  explicit FakeStream(bool queues) : Communicator(std::chrono::milliseconds(1000)), queues_(queues) {}

  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string backend() const override { return queues_ ? "nccl" : "mpi"; }
  Request isend(const void*, std::uint64_t, int) override { return {}; }
  Request irecv(void*, std::uint64_t, int) override { return {}; }
  void wait_all(std::span<Request> requests) override {
    ++synchronisations;
    waited += requests.size();
  }
  bool supports(CollOp, bool) const override { return true; }
  std::size_t in_place_result_block(CollOp) const override { return 0; }
  Request start_collective(const CollectiveCall&) override {
    ++launches;
    return Request{0, Request::Kind::kCollective, -1, 0, "all_reduce"};
  }
  bool queues_calls() const override { return queues_; }
  std::function<void()> capture(const std::function<void()>& enqueue) override {
    if (!queues_) return {};
    enqueue();
    captured = launches;
    launches = 0;
    return [this] { ++graph_launches; };
  }
  void begin_group() override { ++groups; }

  int launches = 0, synchronisations = 0, groups = 0, graph_launches = 0, captured = 0;
  std::size_t waited = 0;

 private:
  bool queues_;
};

CollBatchConfig config(std::size_t iterations, bool blocking) {
  CollBatchConfig c;
  c.op = CollOp::kAllReduce;
  c.shape = shape_of(CollOp::kAllReduce, 64, DType::kFloat32, 1);
  c.iterations = iterations;
  c.blocking = blocking;
  c.checks = 0;
  return c;
}

std::unique_ptr<TimedBatch> batch(FakeStream& stream, const CollBatchConfig& c) {
  const auto [send, recv] = buffer_bytes(c);
  return make_coll_batch(stream, make_host_coll_buffers(send, recv), c);
}

TEST(CollBatchTiming, NonBlockingOnAStreamLaunchesEveryCallAndSynchronisesOnce) {
  FakeStream stream(true);
  auto b = batch(stream, config(20, false));
  b->run();
  EXPECT_EQ(stream.launches, 20);
  EXPECT_EQ(stream.synchronisations, 1);  // nccl-tests' -z 0: n launches, one synchronisation
  EXPECT_EQ(stream.waited, 20u);
  EXPECT_EQ(b->ops_per_batch(), 20u);
}

TEST(CollBatchTiming, BlockingWaitsForEachCall) {
  FakeStream stream(true);
  auto b = batch(stream, config(20, true));
  b->run();
  EXPECT_EQ(stream.launches, 20);
  EXPECT_EQ(stream.synchronisations, 20);  // -z 1
}

TEST(CollBatchTiming, MpiWaitsForEachCallWhatever_z_Says) {
  FakeStream mpi(false);
  auto b = batch(mpi, config(20, false));
  b->run();
  EXPECT_EQ(mpi.launches, 20);
  EXPECT_EQ(mpi.synchronisations, 20);
}

TEST(CollBatchTiming, AggregatedCallsGoInOneGroupAndCountAsOperations) {
  FakeStream stream(true);
  CollBatchConfig c = config(5, false);
  c.agg_iters = 4;
  auto b = batch(stream, c);
  b->run();
  EXPECT_EQ(stream.launches, 20);
  EXPECT_EQ(stream.groups, 5);
  EXPECT_EQ(stream.synchronisations, 1);
  EXPECT_EQ(b->ops_per_batch(), 20u);
}

TEST(CollBatchTiming, AGraphIsCapturedOnceAndLaunchedGTimes) {
  FakeStream stream(true);
  CollBatchConfig c = config(10, false);
  c.graph_launches = 3;
  auto b = batch(stream, c);
  b->run();
  b->run();
  EXPECT_EQ(stream.captured, 10);        // the batch's calls, captured once
  EXPECT_EQ(stream.launches, 0);         // none launched outside the graph
  EXPECT_EQ(stream.graph_launches, 6);   // -G 3, two batches
  EXPECT_EQ(stream.synchronisations, 2);  // one per batch
  EXPECT_EQ(b->ops_per_batch(), 30u);
}

}  // namespace
}  // namespace wb
