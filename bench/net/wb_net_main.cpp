// wb-net: point-to-point latency and bandwidth between MPI ranks, pair by pair, on host buffers
// (MPI) and device buffers (CUDA-aware MPI, NCCL). See net_options.h for the command line.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "harness/console_view.h"
#include "harness/extra_items.h"
#include "harness/benchmark_main.h"
#include "comm/mpi_communicator.h"
#include "comm/mpi_control.h"
#include "gpu/gpu_runtime_info.h"
#include "harness/checked_mpi.h"
#include "harness/errors.h"
#include "harness/mpi_program.h"
#include "harness/size_spec.h"
#include "net/device_transport.h"
#include "net/host_message_buffers.h"
#include "net/link_class.h"
#include "net/net_options.h"

namespace wb {
namespace {

struct PatternNames {
  const char* test;       // in the benchmark name, as on the command line
  const char* case_name;  // the `case` column
  const char* direction;
};

PatternNames names_of(P2pPattern pattern) {
  switch (pattern) {
    case P2pPattern::kPingPong: return {"latency", "pingpong", "uni"};
    case P2pPattern::kStreamBandwidth: return {"bw", "stream_bw", "uni"};
    case P2pPattern::kBidirectional: return {"bibw", "bidir_bw", "bidir"};
  }
  return {"?", "?", "?"};
}

struct Placement {
  std::vector<std::string> hosts;  // per rank
  int nodes = 1;
  std::string network_class;
};

ResultRow describe_pair(const std::string& backend, P2pPattern pattern, const RankPair& pair, const Placement& where) {
  const PatternNames names = names_of(pattern);
  ResultRow row;
  row.bench = "net";
  row.case_name = names.case_name;
  row.backend = backend;
  row.link_class = pair_link_class(where.hosts[pair.initiator], where.hosts[pair.responder], where.network_class);
  row.src = where.hosts[pair.initiator] + "/rank" + std::to_string(pair.initiator);
  row.dst = where.hosts[pair.responder] + "/rank" + std::to_string(pair.responder);
  row.direction = names.direction;
  row.op = "send_recv";
  row.dtype = "uint8";
  row.ranks = static_cast<int>(where.hosts.size());
  row.nodes = where.nodes;
  return row;
}

class NetRun {
 public:
  NetRun(MpiProgram& program, const NetOptions& options, const CommandLine& args)
      : program_(program), options_(options), args_(args),
        control_(MPI_COMM_WORLD, options.harness.timeout), harness_(control_, options.harness) {
    const std::string note = decimal_units_note(options.size_text);
    if (!note.empty()) harness_.set_console(make_plain_console(stdout, "sizes: " + note));
  }

  int run() {
    where_.hosts = control_.all_gather(program_.host());
    where_.nodes = static_cast<int>(std::set<std::string>(where_.hosts.begin(), where_.hosts.end()).size());
    where_.network_class = options_.link_class.value_or(detect_network_link_class());
    const auto pairs = plan_pairs(options_.pairs, program_.size());
    for (const auto& backend : options_.backends) add_backend(backend, pairs);
    const int code = harness_.run(args_, program_.run_metadata(where_.hosts, args_, gpu_library_versions()));
    if (control_.is_root())
      std::fprintf(stderr, "wb-net: results in %s/results.csv%s\n", options_.harness.run_dir.c_str(),
                   code == kExitFailed ? " (DATA ERRORS FOUND)" : "");
    return code;
  }

  MultiRankBenchmarks& harness() { return harness_; }

 private:
  void add_backend(const std::string& backend, const std::vector<RankPair>& pairs) {
    // Every rank must register the same benchmarks: a backend runs only where all ranks can.
    const auto mine = backend == "mpi" ? std::nullopt : device_transport_unavailable(backend);
    if (auto reason = control_.first_reason(mine)) {
      for (P2pPattern pattern : options_.patterns)
        for (const RankPair& pair : pairs) {
          ResultRow row = describe_pair(backend, pattern, pair, where_);
          row.status = RowStatus::kSkip;
          row.reason = *reason;
          harness_.add_unmeasured(row);
        }
      return;
    }
    Communicator* comm = nullptr;
    std::function<std::unique_ptr<MessageBuffers>(std::size_t, std::size_t)> make_buffers;
    if (backend == "mpi") {
      communicators_.push_back(std::make_unique<MpiCommunicator>(MPI_COMM_WORLD, options_.harness.timeout));
      make_buffers = [](std::size_t bytes, std::size_t slots) -> std::unique_ptr<MessageBuffers> {
        return std::make_unique<HostMessageBuffers>(bytes, slots);
      };
    } else {
      DeviceTransport transport = open_device_transport(backend, MPI_COMM_WORLD, options_.harness.timeout);
      communicators_.push_back(std::move(transport.comm));
      make_buffers = std::move(transport.make_buffers);
    }
    comm = communicators_.back().get();

    for (P2pPattern pattern : options_.patterns)
      for (const RankPair& pair : pairs)
        for (std::uint64_t bytes : options_.sizes) {
          if (bytes == 0 && pattern != P2pPattern::kPingPong) continue;  // no bandwidth in 0 bytes
          add_case(*comm, make_buffers, backend, pattern, pair, bytes);
        }
  }

  void add_case(Communicator& comm,
                const std::function<std::unique_ptr<MessageBuffers>(std::size_t, std::size_t)>& make_buffers,
                const std::string& backend, P2pPattern pattern, const RankPair& pair, std::uint64_t bytes) {
    P2pBatchConfig config;
    config.pattern = pattern;
    config.pair = pair;
    config.shape = batch_shape(pattern, bytes, options_.window);
    config.check = options_.check;
    config.corrupt_received = options_.corrupt_received;
    config.slow = options_.slow_batches;
    config.crash = options_.crash;
    config.unwritten_echo = options_.unwritten_echo;

    CaseInfo info;
    info.row = describe_pair(backend, pattern, pair, where_);
    info.row.bytes = bytes;
    ExtraItems extra;
    extra.set("window", config.shape.window).set("rounds", config.shape.rounds);
    if (pattern != P2pPattern::kPingPong) extra.set("window_buffers", options_.window == WindowMode::kOsu ? "one" : "per_message");
    if (!config.check) extra.set("check", "off");
    info.row.extra = extra.text();
    info.bytes_per_op = bytes_per_op(pattern, bytes);
    info.busbw_factor = 1.0;  // point-to-point: bus bandwidth is the link's own
    info.name = std::string("net/") + names_of(pattern).test + "/" + backend + "/rank" + std::to_string(pair.initiator) +
                (pattern == P2pPattern::kBidirectional ? "<->rank" : "->rank") + std::to_string(pair.responder) +
                "/" + format_size(bytes);
    harness_.add(std::move(info), [&comm, make_buffers, config, bytes] {
      return make_p2p_batch(comm, make_buffers(bytes, config.shape.receive_slots), config);
    });
  }

  MpiProgram& program_;
  const NetOptions& options_;
  const CommandLine& args_;
  MpiControl control_;
  MultiRankBenchmarks harness_;
  Placement where_;
  std::vector<std::unique_ptr<Communicator>> communicators_;
};

}  // namespace
}  // namespace wb

int main(int argc, char** argv) {
  return wb::benchmark_main<wb::NetRun, wb::NetOptions>(
      argc, argv, wb::net_help, [](wb::CommandLine& args, const wb::MpiProgram& program) {
        wb::NetOptions options = wb::parse_net_options(args);
        wb::plan_pairs(options.pairs, program.size());  // fewer than 2 ranks is a usage error
        return options;
      });
}
