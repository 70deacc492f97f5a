#include "step/mpi_step_executor.h"

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "harness/checked_mpi.h"
#include "harness/errors.h"

namespace wb::step {
namespace {

using Clock = std::chrono::steady_clock;

double since_us(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

DType dtype_of(int element_bytes) { return element_bytes == 2 ? DType::kBfloat16 : DType::kFloat32; }

// What the host and the stream threads share during one step.
struct StepState {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<int> queues[kStreams];
  std::vector<char> done;
  std::vector<OpTiming> timing;
  bool all_issued = false;
  std::exception_ptr failure;

  // Waits (lock held) until `ready` or a failure. No deadline here: every operation waited for
  // ends by itself (a sleep) or by its collective's deadline, which fails the step.
  template <typename Ready>
  void wait(std::unique_lock<std::mutex>& lock, Ready ready) {
    changed.wait(lock, [&] { return failure || ready(); });
  }
};

}  // namespace

MpiStepExecutor::MpiStepExecutor(MPI_Comm world, int shard_group, std::chrono::milliseconds timeout, double scale)
    : timeout_(timeout), scale_(scale) {
  int rank = 0, size = 1;
  WB_MPI_CHECK(MPI_Comm_rank(world, &rank));
  WB_MPI_CHECK(MPI_Comm_size(world, &size));
  if (shard_group < 1 || size % shard_group != 0)
    throw UsageError("--shard-group " + std::to_string(shard_group) + " does not divide " + std::to_string(size) + " ranks");
  comms_[static_cast<int>(Group::kWorld)] = std::make_unique<MpiCommunicator>(world, timeout);
  MPI_Comm shard = MPI_COMM_NULL, replicate = MPI_COMM_NULL;
  WB_MPI_CHECK(MPI_Comm_split(world, rank / shard_group, rank, &shard));
  WB_MPI_CHECK(MPI_Comm_split(world, rank % shard_group, rank, &replicate));
  comms_[static_cast<int>(Group::kShard)] = std::make_unique<MpiCommunicator>(shard, timeout);
  comms_[static_cast<int>(Group::kReplicate)] = std::make_unique<MpiCommunicator>(replicate, timeout);
  MPI_Comm_free(&shard);
  MPI_Comm_free(&replicate);
}

MpiStepExecutor::~MpiStepExecutor() = default;

int MpiStepExecutor::group_size(Group g) const { return comms_[static_cast<int>(g)]->size(); }

void MpiStepExecutor::execute_collective(const Program& program, const Op& op, double scale) {
  MpiCommunicator& comm = *comms_[static_cast<int>(op.group)];
  const int n = comm.size();
  if (n != program.group_sizes[static_cast<int>(op.group)])
    throw UsageError(std::string("the program's ") + group_name(op.group) + " group has " +
                     std::to_string(program.group_sizes[static_cast<int>(op.group)]) + " ranks, the communicator " +
                     std::to_string(n));
  if (n == 1) return;  // a group of one has nothing to exchange
  const std::uint64_t bytes = scaled_bytes(op, n, scale);
  Buffers& b = buffers_[static_cast<int>(op.group)];
  if (b.send.size() < bytes) b.send.resize(bytes, std::byte{1});
  if (b.recv.size() < bytes) b.recv.resize(bytes, std::byte{0});
  CollectiveCall call;
  call.op = op.collective;
  call.dtype = dtype_of(op.element_bytes);
  call.send = b.send.data();
  call.recv = b.recv.data();
  const std::size_t elements = bytes / static_cast<std::uint64_t>(op.element_bytes);
  call.count = describe(op.collective).sharded ? elements / static_cast<std::size_t>(n) : elements;
  Request request = comm.start_collective(call);
  comm.wait(request);
}

Timeline MpiStepExecutor::run(const Program& program, std::optional<double> scale_override) {
  const double scale = scale_override.value_or(scale_);
  StepState state;
  const std::size_t count = program.ops.size();
  state.done.assign(count, 0);
  state.timing.assign(count, {});
  const Clock::time_point start = Clock::now();

  auto stream_loop = [&](int stream) {
    try {
      for (;;) {
        int index = -1;
        {
          std::unique_lock lock(state.mutex);
          state.wait(lock, [&] { return !state.queues[stream].empty() || state.all_issued; });
          if (state.failure || state.queues[stream].empty()) return;
          index = state.queues[stream].front();
          state.queues[stream].pop_front();
          const Op& op = program.ops[static_cast<std::size_t>(index)];
          state.wait(lock, [&] {
            for (int dep : op.after)
              if (!state.done[static_cast<std::size_t>(dep)]) return false;
            return true;
          });
          if (state.failure) return;
        }
        const Op& op = program.ops[static_cast<std::size_t>(index)];
        const double began = since_us(start);
        if (op.kind == OpKind::kCompute)
          std::this_thread::sleep_for(std::chrono::duration<double, std::micro>(scaled_compute_us(op, scale)));
        else
          execute_collective(program, op, scale);
        const double ended = since_us(start);
        {
          std::lock_guard lock(state.mutex);
          state.timing[static_cast<std::size_t>(index)] = {began, ended};
          state.done[static_cast<std::size_t>(index)] = 1;
        }
        state.changed.notify_all();
      }
    } catch (...) {
      {
        std::lock_guard lock(state.mutex);
        if (!state.failure) state.failure = std::current_exception();
      }
      state.changed.notify_all();
    }
  };

  std::vector<std::thread> streams;
  for (int s = 0; s < kStreams; ++s) streams.emplace_back(stream_loop, s);
  try {
    for (std::size_t i = 0; i < count; ++i) {
      const Op& op = program.ops[i];
      std::unique_lock lock(state.mutex);
      if (state.failure) break;
      if (op.kind == OpKind::kHostWait) {
        state.wait(lock, [&] { return state.done[static_cast<std::size_t>(op.waits_for)] != 0; });
        const double now = since_us(start);
        state.timing[i] = {now, now};
        state.done[i] = 1;
        continue;
      }
      state.queues[stream_of(op)].push_back(static_cast<int>(i));
      lock.unlock();
      state.changed.notify_all();
    }
  } catch (...) {
    std::lock_guard lock(state.mutex);
    if (!state.failure) state.failure = std::current_exception();
  }
  {
    std::lock_guard lock(state.mutex);
    state.all_issued = true;
  }
  state.changed.notify_all();
  for (auto& t : streams) t.join();
  if (state.failure) std::rethrow_exception(state.failure);

  Timeline timeline;
  timeline.ops = std::move(state.timing);
  for (std::size_t i = 0; i < count; ++i) {
    timeline.step_us = std::max(timeline.step_us, timeline.ops[i].end_us);
    if (program.ops[i].kind == OpKind::kCompute) timeline.compute_us += timeline.ops[i].end_us - timeline.ops[i].start_us;
  }
  return timeline;
}

}  // namespace wb::step
