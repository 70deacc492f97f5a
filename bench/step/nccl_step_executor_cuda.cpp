#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <thread>
#include <vector>

#include "comm/mpi_deadline_wait.h"
#include "compute_kernels.h"
#include "gpu/checked_cuda.h"
#include "gpu/checked_nccl.h"
#include "gpu/gemm_rate.h"
#include "gpu/gpu_runtime_info.h"
#include "gpu/local_device.h"
#include "gpu/stream_wait.h"
#include "harness/checked_mpi.h"
#include "harness/errors.h"
#include "step/nccl_step_executor.h"
#include "step/step_groups.h"

namespace wb::step {
namespace {

using Clock = std::chrono::steady_clock;

struct Group_ {
  MPI_Comm mpi = MPI_COMM_NULL;
  ncclComm_t nccl = nullptr;
  cudaStream_t stream = nullptr;
  int size = 1;
  void* send = nullptr;
  void* recv = nullptr;
  std::size_t capacity = 0;
};

class NcclStepExecutor final : public StepExecutor {
 public:
  NcclStepExecutor(MPI_Comm world, int shard_group, std::chrono::milliseconds timeout, double scale)
      : timeout_(timeout), scale_(scale) {
    select_local_device(world);
    const auto mpi = split_step_groups(world, shard_group);
    for (int g = 0; g < kGroups; ++g) groups_[g].mpi = mpi[static_cast<std::size_t>(g)];
    for (Group_& g : groups_) {
      int r = 0;
      WB_MPI_CHECK(MPI_Comm_rank(g.mpi, &r));
      WB_MPI_CHECK(MPI_Comm_size(g.mpi, &g.size));
      WB_CUDA_CHECK(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking));
      if (g.size == 1) continue;  // nothing to exchange in a group of one
      ncclUniqueId id{};
      if (r == 0) WB_NCCL_CHECK(ncclGetUniqueId(&id));
      MPI_Request request;
      WB_MPI_CHECK(MPI_Ibcast(&id, sizeof id, MPI_BYTE, 0, g.mpi, &request));
      wait_all_with_deadline({&request, 1}, timeout, [] { return std::string("broadcast of an NCCL unique id"); });
      WB_NCCL_CHECK(ncclCommInitRank(&g.nccl, g.size, id, r));
    }
    WB_CUDA_CHECK(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
  }

  ~NcclStepExecutor() override {
    for (Group_& g : groups_) {
      if (g.nccl != nullptr) (aborted_ ? ncclCommAbort(g.nccl) : ncclCommDestroy(g.nccl));
      if (g.stream != nullptr) cudaStreamDestroy(g.stream);
      cudaFree(g.send);
      cudaFree(g.recv);
      if (g.mpi != MPI_COMM_NULL) MPI_Comm_free(&g.mpi);
    }
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
    if (compute_ != nullptr) cudaStreamDestroy(compute_);
  }

  std::string backend() const override { return "nccl"; }
  int group_size(Group g) const override { return groups_[static_cast<int>(g)].size; }

  Timeline run(const Program& program, std::optional<double> scale_override) override {
    const double scale = scale_override.value_or(scale_);
    const std::size_t count = program.ops.size();
    ensure_events(2 * count + 1);
    cudaEvent_t origin = events_[2 * count];
    auto start_of = [&](std::size_t i) { return events_[2 * i]; };
    auto end_of = [&](std::size_t i) { return events_[2 * i + 1]; };
    auto stream_for = [&](const Op& op) {
      return op.kind == OpKind::kCompute ? compute_ : groups_[static_cast<int>(op.group)].stream;
    };

    WB_CUDA_CHECK(cudaEventRecord(origin, compute_));
    for (Group_& g : groups_) WB_CUDA_CHECK(cudaStreamWaitEvent(g.stream, origin, 0));
    for (std::size_t i = 0; i < count; ++i) {
      const Op& op = program.ops[i];
      if (op.kind == OpKind::kHostWait) {
        wait_event(end_of(static_cast<std::size_t>(op.waits_for)), program.ops[static_cast<std::size_t>(op.waits_for)].label);
        WB_CUDA_CHECK(cudaEventRecord(start_of(i), compute_));
        WB_CUDA_CHECK(cudaEventRecord(end_of(i), compute_));
        continue;
      }
      cudaStream_t stream = stream_for(op);
      for (int dep : op.after) WB_CUDA_CHECK(cudaStreamWaitEvent(stream, end_of(static_cast<std::size_t>(dep)), 0));
      WB_CUDA_CHECK(cudaEventRecord(start_of(i), stream));
      if (op.kind == OpKind::kCompute) {
        kernels::busy_for(static_cast<long long>(scaled_compute_us(op, scale) * 1000.0), stream);
      } else {
        launch_collective(program, op, scale);
      }
      WB_CUDA_CHECK(cudaEventRecord(end_of(i), stream));
    }
    for (Group_& g : groups_) wait_stream(g.stream, std::string("the ") + "step's NCCL stream");
    wait_stream(compute_, "the step's compute stream");

    std::vector<OpTiming> timing(count);
    for (std::size_t i = 0; i < count; ++i) {
      float begin_ms = 0, end_ms = 0;
      WB_CUDA_CHECK(cudaEventElapsedTime(&begin_ms, origin, start_of(i)));
      WB_CUDA_CHECK(cudaEventElapsedTime(&end_ms, origin, end_of(i)));
      timing[i] = {begin_ms * 1e3, end_ms * 1e3};
    }
    return timeline_of(program, std::move(timing));
  }

 private:
  void ensure_events(std::size_t n) {
    while (events_.size() < n) {
      cudaEvent_t e;
      WB_CUDA_CHECK(cudaEventCreate(&e));
      events_.push_back(e);
    }
  }

  void launch_collective(const Program& program, const Op& op, double scale) {
    Group_& g = groups_[static_cast<int>(op.group)];
    if (g.size != program.group_sizes[static_cast<int>(op.group)])
      throw UsageError(std::string("the program's ") + group_name(op.group) + " group has " +
                       std::to_string(program.group_sizes[static_cast<int>(op.group)]) + " ranks, the communicator " +
                       std::to_string(g.size));
    if (g.size == 1) return;
    const std::uint64_t bytes = scaled_bytes(op, g.size, scale);
    if (g.capacity < bytes) {
      WB_CUDA_CHECK(cudaFree(g.send));
      WB_CUDA_CHECK(cudaFree(g.recv));
      WB_CUDA_CHECK(cudaMalloc(&g.send, bytes));
      WB_CUDA_CHECK(cudaMalloc(&g.recv, bytes));
      WB_CUDA_CHECK(cudaMemset(g.send, 1, bytes));
      g.capacity = bytes;
    }
    const ncclDataType_t type = op.element_bytes == 2 ? ncclBfloat16 : ncclFloat32;
    const std::size_t elements = bytes / static_cast<std::uint64_t>(op.element_bytes);
    const std::size_t per_rank = elements / static_cast<std::size_t>(g.size);
    switch (op.collective) {
      case CollOp::kAllReduce: WB_NCCL_CHECK(ncclAllReduce(g.send, g.recv, elements, type, ncclSum, g.nccl, g.stream)); break;
      case CollOp::kAllGather: WB_NCCL_CHECK(ncclAllGather(g.send, g.recv, per_rank, type, g.nccl, g.stream)); break;
      case CollOp::kReduceScatter:
        WB_NCCL_CHECK(ncclReduceScatter(g.send, g.recv, per_rank, type, ncclSum, g.nccl, g.stream));
        break;
      default: throw UsageError(std::string("a step program does not use ") + describe(op.collective).name);
    }
  }

  void abort_all() {
    aborted_ = true;
    for (Group_& g : groups_)
      if (g.nccl != nullptr) ncclCommAbort(g.nccl), g.nccl = nullptr;
  }

  void wait_stream(cudaStream_t stream, const std::string& what) {
    wait_stream_with_deadline(stream, timeout_, [&] { return what; }, [&] { abort_all(); });
    for (Group_& g : groups_) {
      if (g.nccl == nullptr) continue;
      ncclResult_t async_error = ncclSuccess;
      WB_NCCL_CHECK(ncclCommGetAsyncError(g.nccl, &async_error));
      WB_NCCL_CHECK(async_error);
    }
  }

  void wait_event(cudaEvent_t event, const std::string& label) {
    const auto deadline = Clock::now() + timeout_;
    for (;;) {
      const cudaError_t state = cudaEventQuery(event);
      if (state == cudaSuccess) return;
      if (state != cudaErrorNotReady) WB_CUDA_CHECK(state);
      if (Clock::now() > deadline) {
        abort_all();
        throw_timeout("the host waiting for '" + label + "'", timeout_, "a peer rank may have died, hung or be unreachable");
      }
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }

  std::chrono::milliseconds timeout_;
  double scale_;
  Group_ groups_[kGroups];
  cudaStream_t compute_ = nullptr;
  std::vector<cudaEvent_t> events_;
  bool aborted_ = false;
};

}  // namespace

double measure_step_tflops(int m, int n, int k, std::chrono::milliseconds timeout) {
  return measure_gemm_tflops(m, n, k, timeout);
}

std::optional<std::string> nccl_step_unavailable() { return gpu_availability().unavailable_reason; }

std::unique_ptr<StepExecutor> make_nccl_step_executor(MPI_Comm world, int shard_group, std::chrono::milliseconds timeout,
                                                      double scale) {
  return std::make_unique<NcclStepExecutor>(world, shard_group, timeout, scale);
}

}  // namespace wb::step
