#include "step/mpi_step_executor.h"


#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "comm/mpi_deadline_wait.h"
#include "harness/checked_mpi.h"
#include "harness/errors.h"
#include "step/step_groups.h"

namespace wb::step {
namespace {

using Clock = std::chrono::steady_clock;

double since_us(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

DType dtype_of(int element_bytes) { return element_bytes == 2 ? DType::kBfloat16 : DType::kFloat32; }

// What the main thread and the compute thread share during one step.
struct StepState {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<int> compute_queue;
  std::vector<char> done;
  std::vector<OpTiming> timing;
  bool all_issued = false;
  bool stop = false;  // the main thread failed: the compute thread leaves
  std::exception_ptr compute_failure;

  bool deps_done(const Op& op) const {
    for (int dep : op.after)
      if (!done[static_cast<std::size_t>(dep)]) return false;
    return true;
  }
};

// The compute stream: takes computations in issue order, waits for what each depends on, sleeps.
// Each sleep runs to a deadline on the stream's own schedule (the later of the previous
// computation's planned end and its inputs' ends, plus its duration), so a thread waking late
// does not push every later computation back: a thousand 10 us sleeps would otherwise each add
// the scheduler's wake-up delay (ZeRO-3 of a 70B model at scale 1e-4: 132 ms of compute for 13).
void compute_stream(const Program& program, StepState& state, double scale, Clock::time_point start) {
  Clock::time_point planned_end = start;
  try {
    for (;;) {
      int index = -1;
      Clock::time_point inputs_end = start;
      {
        std::unique_lock lock(state.mutex);
        state.changed.wait(lock, [&] { return state.stop || !state.compute_queue.empty() || state.all_issued; });
        if (state.stop || state.compute_queue.empty()) return;
        index = state.compute_queue.front();
        state.compute_queue.pop_front();
        const Op& op = program.ops[static_cast<std::size_t>(index)];
        state.changed.wait(lock, [&] { return state.stop || state.deps_done(op); });
        if (state.stop) return;
        for (int dep : op.after)
          inputs_end = std::max(inputs_end, start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::micro>(
                                                        state.timing[static_cast<std::size_t>(dep)].end_us)));
      }
      const Op& op = program.ops[static_cast<std::size_t>(index)];
      const double began = since_us(start);
      planned_end = std::max(planned_end, inputs_end) +
                    std::chrono::duration_cast<Clock::duration>(
                        std::chrono::duration<double, std::micro>(scaled_compute_us(op, scale)));
      std::this_thread::sleep_until(planned_end);
      const double ended = since_us(start);
      {
        std::lock_guard lock(state.mutex);
        state.timing[static_cast<std::size_t>(index)] = {began, ended};
        state.done[static_cast<std::size_t>(index)] = 1;
      }
      state.changed.notify_all();
    }
  } catch (...) {
    std::lock_guard lock(state.mutex);
    state.compute_failure = std::current_exception();
  }
}

// One communication stream on the main thread: its queue and the collective in flight.
struct CommStream {
  std::deque<int> queue;
  int active = -1;
  Request request;
  Clock::time_point started;
};

}  // namespace

MpiStepExecutor::MpiStepExecutor(MPI_Comm world, int shard_group, std::chrono::milliseconds timeout, double scale)
    : timeout_(timeout), scale_(scale) {
  auto groups = split_step_groups(world, shard_group);
  for (int g = 0; g < kGroups; ++g) {
    comms_[g] = std::make_unique<MpiCommunicator>(groups[static_cast<std::size_t>(g)], timeout);  // its own duplicate
    MPI_Comm_free(&groups[static_cast<std::size_t>(g)]);
  }
}

MpiStepExecutor::~MpiStepExecutor() = default;

int MpiStepExecutor::group_size(Group g) const { return comms_[static_cast<int>(g)]->size(); }

Request MpiStepExecutor::start_collective(const Program& program, const Op& op, double scale) {
  MpiCommunicator& comm = *comms_[static_cast<int>(op.group)];
  const int n = comm.size();
  if (n != program.group_sizes[static_cast<int>(op.group)])
    throw UsageError(std::string("the program's ") + group_name(op.group) + " group has " +
                     std::to_string(program.group_sizes[static_cast<int>(op.group)]) + " ranks, the communicator " +
                     std::to_string(n));
  const std::uint64_t bytes = scaled_bytes(op, n, scale);
  Buffers& b = buffers_[static_cast<int>(op.group)];
  b.send.grow_to(bytes, 1);
  b.recv.grow_to(bytes, 0);
  CollectiveCall call;
  call.op = op.collective;
  call.dtype = dtype_of(op.element_bytes);
  call.send = b.send.data();
  call.recv = b.recv.data();
  const std::size_t elements = bytes / static_cast<std::uint64_t>(op.element_bytes);
  call.count = describe(op.collective).sharded ? elements / static_cast<std::size_t>(n) : elements;
  return comm.start_collective(call);
}

Timeline MpiStepExecutor::run(const Program& program, std::optional<double> scale_override) {
  const double scale = scale_override.value_or(scale_);
  StepState state;
  const std::size_t count = program.ops.size();
  state.done.assign(count, 0);
  state.timing.assign(count, {});
  CommStream comm[kGroups];
  const Clock::time_point start = Clock::now();
  std::thread compute([&] { compute_stream(program, state, scale, start); });

  auto finish = [&](int index, double began, double ended) {
    {
      std::lock_guard lock(state.mutex);
      state.timing[static_cast<std::size_t>(index)] = {began, ended};
      state.done[static_cast<std::size_t>(index)] = 1;
    }
    state.changed.notify_all();
  };

  try {
    std::size_t next = 0;  // the next operation the host issues
    std::size_t finished = 0;
    unsigned idle_polls = 0;
    while (finished < count) {
      bool progressed = false;
      // The host issues what it can; a host wait holds it until its operation has ended.
      while (next < count) {
        const Op& op = program.ops[next];
        const int index = static_cast<int>(next);
        if (op.kind == OpKind::kHostWait) {
          std::lock_guard lock(state.mutex);
          if (!state.done[static_cast<std::size_t>(op.waits_for)]) break;
          const double now = since_us(start);
          state.timing[next] = {now, now};
          state.done[next] = 1;
        } else if (op.kind == OpKind::kCompute) {
          {
            std::lock_guard lock(state.mutex);
            state.compute_queue.push_back(index);
          }
          state.changed.notify_all();
        } else {
          comm[static_cast<int>(op.group)].queue.push_back(index);
        }
        ++next;
        progressed = true;
      }
      if (next == count) {
        {
          std::lock_guard lock(state.mutex);
          state.all_issued = true;
        }
        state.changed.notify_all();
      }
      // Each communication stream: finish what is in flight, start the next when it may.
      for (CommStream& s : comm) {
        if (s.active >= 0) {
          const Op& op = program.ops[static_cast<std::size_t>(s.active)];
          const int n = comms_[static_cast<int>(op.group)]->size();
          if (n == 1 || comms_[static_cast<int>(op.group)]->test(s.request)) {
            finish(s.active, std::chrono::duration<double, std::micro>(s.started - start).count(), since_us(start));
            s.active = -1;
            progressed = true;
          } else if (Clock::now() - s.started > timeout_) {
            throw_timeout("MPI " + std::string(describe(op.collective).name) + " '" + op.label + "' of the step",
                          timeout_, "a peer rank may have died, hung or be unreachable");
          }
        }
        if (s.active < 0 && !s.queue.empty()) {
          const Op& op = program.ops[static_cast<std::size_t>(s.queue.front())];
          bool ready = false;
          {
            std::lock_guard lock(state.mutex);
            ready = state.deps_done(op);
          }
          if (ready) {
            s.active = s.queue.front();
            s.queue.pop_front();
            s.started = Clock::now();
            if (comms_[static_cast<int>(op.group)]->size() > 1) s.request = start_collective(program, op, scale);
            progressed = true;
          }
        }
      }
      {
        std::unique_lock lock(state.mutex);
        if (state.compute_failure) std::rethrow_exception(state.compute_failure);
        finished = 0;
        for (char d : state.done) finished += d ? 1 : 0;
        bool communicating = false;
        for (const CommStream& s : comm) communicating = communicating || s.active >= 0;
        // Only computations to wait for: sleep until one ends rather than spin beside them.
        if (!progressed && !communicating && finished < count)
          state.changed.wait_for(lock, std::chrono::milliseconds(1));
      }
      // Poll hard for a moment, then in short naps: with more ranks than cores, ranks spinning on
      // MPI_Test kept the very peers they waited for off the CPU (an 9 ms all_reduce took 60-150).
      if (progressed) idle_polls = 0;
      else if (++idle_polls > 64) std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  } catch (...) {
    {
      std::lock_guard lock(state.mutex);
      state.stop = true;
    }
    state.changed.notify_all();
    compute.join();
    throw;
  }
  {
    std::lock_guard lock(state.mutex);
    state.all_issued = true;
  }
  state.changed.notify_all();
  compute.join();

  return timeline_of(program, std::move(state.timing));
}

}  // namespace wb::step
