// wb-net: point-to-point latency and bandwidth between MPI ranks, pair by pair, on host buffers
// (MPI) and device buffers (CUDA-aware MPI, NCCL). See net_options.h for the command line.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>
#include <string_view>

#include "harness/console_view.h"
#include "harness/endpoint_name.h"
#include "harness/extra_items.h"
#include "harness/judging.h"
#include "runner/benchmark_main.h"
#include "comm/mpi_communicator.h"
#include "comm/mpi_control.h"
#include "gpu/gpu_runtime_info.h"
#include "harness/checked_mpi.h"
#include "harness/errors.h"
#include "harness/link_class.h"
#include "runner/mpi_program.h"
#include "harness/size_spec.h"
#include "net/all_to_all_batch.h"
#include "net/device_transport.h"
#include "net/host_message_buffers.h"
#include "net/net_options.h"
#include "net/sweep_estimate.h"

namespace wb {
namespace {

struct Placement {
  std::vector<std::string> hosts;  // per rank
  int nodes = 1;
  std::string network_class;
};

ResultRow describe_pair(const std::string& backend, P2pPattern pattern, const RankPair& pair, const Placement& where) {
  const PatternNames names = pattern_names(pattern);
  ResultRow row;
  row.bench = "net";
  row.case_name = names.case_name;
  row.backend = backend;
  row.link_class = pair_link_class(where.hosts[pair.initiator], where.hosts[pair.responder], where.network_class);
  row.src = endpoint_name(where.hosts[pair.initiator], EndpointKind::kRank, pair.initiator);
  row.dst = endpoint_name(where.hosts[pair.responder], EndpointKind::kRank, pair.responder);
  row.direction = names.direction;
  row.op = "send_recv";
  row.dtype = "uint8";
  row.ranks = static_cast<int>(where.hosts.size());
  row.nodes = where.nodes;
  return row;
}

// How the reporter judges a measured row (harness/judging.h) and the command that measures it again:
// a pair alone under 2 ranks; an aggregate (src "all") its whole pattern. A pair of an all-to-all is
// compared with the others measured with it (the culprit finder), its aggregate with the ceiling.
void declare_judging(ResultRow& row, P2pPattern pattern, const std::string& pairs) {
  const double moved = bytes_per_op(pattern, row.bytes);
  const bool aggregate = row.src == "all";
  std::vector<Judgement> judgements;
  if (moved > 0)
    judgements.push_back(pairs == "alltoall" && !aggregate
                             ? Judgement{"algbw_GBps", JudgedAt::kLargest, JudgedAgainst::kCulprits}
                             : bandwidth_against_ceiling());
  if (pattern == P2pPattern::kPingPong && row.bytes <= kSmallMessageBytes) judgements.push_back(latency_against_typical());
  if (judgements.empty()) judgements.push_back(time_against_siblings());
  row.judged = judged_text(judgements);
  const std::string tests = pattern_names(pattern).test;
  row.rerun = aggregate ? "mpiexec -n " + std::to_string(row.ranks) + " wb-net --tests " + tests + " --sizes " +
                              std::to_string(row.bytes) + " --backend " + row.backend + " --pairs " + pairs
                        : "mpiexec -n 2 wb-net --tests " + tests + " --sizes " + std::to_string(row.bytes) +
                              " --backend " + row.backend;
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
    const auto rounds = plan_rounds(options_.plan_request(program_.size()));
    for (const auto& backend : options_.backends) add_backend(backend, rounds);
    const int code = harness_.run(args_, program_.run_metadata(where_.hosts, args_, gpu_library_versions()));
    if (control_.is_root())
      std::fprintf(stderr, "wb-net: results in %s/results.csv%s\n", options_.harness.run_dir.c_str(),
                   code == kExitFailed ? " (DATA ERRORS FOUND)" : "");
    return code;
  }

  MultiRankBenchmarks& harness() { return harness_; }

 private:
  void add_backend(const std::string& backend, const std::vector<PairRound>& rounds) {
    // Every rank must register the same benchmarks: a backend runs only where all ranks can.
    const auto mine = backend == "mpi" ? std::nullopt : device_transport_unavailable(backend);
    if (auto reason = control_.first_reason(mine)) {
      for (P2pPattern pattern : options_.patterns)
        for (const PairRound& round : rounds)
          for (const RankPair& pair : round) {
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

    if (options_.pairs == PairMode::kAllToAll) {
      for (std::uint64_t bytes : options_.sizes)
        if (bytes > 0) add_all_to_all(*comm, make_buffers, backend, bytes);
      return;
    }
    for (P2pPattern pattern : options_.patterns)
      for (std::size_t r = 0; r < rounds.size(); ++r)
        for (bool reverse : passes(pattern))
          for (std::uint64_t bytes : options_.sizes) {
            if (bytes == 0 && pattern != P2pPattern::kPingPong) continue;  // no bandwidth in 0 bytes
            add_case(*comm, make_buffers, backend, pattern, {round_number(r), reverse ? reversed(rounds[r]) : rounds[r]}, bytes);
          }
  }

  // Rounds of several pairs (--pairs all, bisection) stream both ways, in a second pass with the
  // roles swapped; ping-pong and bidirectional rows hold both directions already.
  std::vector<bool> passes(P2pPattern pattern) const {
    if (pattern == P2pPattern::kStreamBandwidth && at_once()) return {false, true};
    return {false};
  }

  bool at_once() const {
    return options_.pairs == PairMode::kAll || options_.pairs == PairMode::kBisection || options_.pairs == PairMode::kListed;
  }

  // From 1; a listed round carries the number its schedule gave it (--round).
  std::size_t round_number(std::size_t index) const {
    return options_.pairs == PairMode::kListed ? options_.round_number : index + 1;
  }

  static PairRound reversed(const PairRound& round) {
    PairRound out;
    for (const RankPair& pair : round) out.push_back({pair.responder, pair.initiator});
    return out;
  }

  struct NumberedRound {
    std::size_t number;  // from 1, as the rows' `round` item says it
    PairRound pairs;
  };

  void add_case(Communicator& comm,
                const std::function<std::unique_ptr<MessageBuffers>(std::size_t, std::size_t)>& make_buffers,
                const std::string& backend, P2pPattern pattern, const NumberedRound& round, std::uint64_t bytes) {
    P2pBatchConfig config;
    config.pattern = pattern;
    config.round = round.pairs;
    config.shape = batch_shape(pattern, bytes, options_.window, options_.batch_bytes);
    config.check = options_.check;
    config.corrupt_received = options_.corrupt_received;
    config.slow = options_.slow_batches;
    config.crash = options_.crash;
    config.unwritten_echo = options_.unwritten_echo;

    ExtraItems extra;
    if (options_.pairs == PairMode::kAllSerial || at_once()) extra.set("pairs", pair_mode_name(options_.pairs));
    if (at_once()) extra.set("round", round.number).set("at_once", round.pairs.size());
    extra.set("window", config.shape.window).set("rounds", config.shape.rounds);
    if (pattern != P2pPattern::kPingPong) extra.set("window_buffers", options_.window == WindowMode::kOsu ? "one" : "per_message");
    if (!config.check) extra.set("check", "off");

    const RankPair& first = round.pairs.front();
    CaseInfo info;
    info.row = describe_pair(backend, pattern, first, where_);
    info.row.bytes = bytes;
    info.row.extra = extra.text();
    const std::string pairs = pair_mode_name(options_.pairs);
    declare_judging(info.row, pattern, pairs);
    info.bytes_per_op = bytes_per_op(pattern, bytes);
    info.busbw_factor = 1.0;  // point-to-point: bus bandwidth is the link's own
    const char* arrow = pattern == P2pPattern::kBidirectional ? "<->rank" : "->rank";
    if (at_once()) {
      // One row per pair, each timed by its initiator (both ranks of a bidirectional pair); with
      // --pairs bisection also the matching's aggregate ("all" to "all"): what the fabric carried.
      for (const RankPair& pair : round.pairs) {
        FlowInfo flow;
        flow.row = describe_pair(backend, pattern, pair, where_);
        flow.row.bytes = bytes;
        flow.row.extra = extra.text();
        declare_judging(flow.row, pattern, pairs);
        flow.ranks = {pair.initiator, pair.responder};
        flow.clock_ranks = {pair.initiator};
        if (pattern == P2pPattern::kBidirectional) flow.clock_ranks.push_back(pair.responder);
        info.flows.push_back(std::move(flow));
      }
      info.aggregate_row = options_.pairs == PairMode::kBisection;
      info.row.src = info.row.dst = "all";
      info.row.case_name = std::string("bisection_") + pattern_names(pattern).case_name;
      info.row.link_class = common_link_class(info.flows);
      declare_judging(info.row, pattern, pairs);
      const bool reverse = first.initiator > first.responder;
      info.name = std::string("net/") + pattern_names(pattern).test + "/" + backend + "/" +
                  (options_.pairs == PairMode::kBisection ? "matching" : "round") + std::to_string(round.number) +
                  (reverse ? "/reverse" : "") + "/" + format_size(bytes);
    } else {
      info.name = std::string("net/") + pattern_names(pattern).test + "/" + backend + "/rank" + std::to_string(first.initiator) +
                  arrow + std::to_string(first.responder) + "/" + format_size(bytes);
    }
    harness_.add(std::move(info), [&comm, make_buffers, config, bytes] {
      return make_p2p_batch(comm, make_buffers(bytes, config.shape.receive_slots), config);
    });
  }

  // Every rank streaming to every other at once: a flow per ordered pair, timed by the receiver
  // (when the sender's data arrived: net/all_to_all_batch.h), and the aggregate row.
  void add_all_to_all(Communicator& comm,
                      const std::function<std::unique_ptr<MessageBuffers>(std::size_t, std::size_t)>& make_buffers,
                      const std::string& backend, std::uint64_t bytes) {
    const int ranks = program_.size();
    AllToAllConfig config;
    config.shape = all_to_all_shape(bytes, ranks);
    config.check = options_.check;
    config.corrupt_received = options_.corrupt_received;
    config.slow = options_.slow_batches;

    ExtraItems extra;
    extra.set("pairs", "alltoall").set("at_once", static_cast<std::uint64_t>(ranks));
    extra.set("window", config.shape.window).set("rounds", config.shape.rounds).set("window_buffers", "one");
    if (!config.check) extra.set("check", "off");

    CaseInfo info;
    info.row = describe_pair(backend, P2pPattern::kStreamBandwidth, {0, 1}, where_);
    info.row.case_name = "alltoall_stream_bw";
    info.row.src = info.row.dst = "all";
    info.row.bytes = bytes;
    info.row.extra = extra.text();
    declare_judging(info.row, P2pPattern::kStreamBandwidth, "alltoall");
    info.bytes_per_op = static_cast<double>(bytes);
    for (int dst = 0; dst < ranks; ++dst)
      for (int src = 0; src < ranks; ++src) {
        if (src == dst) continue;
        FlowInfo flow;
        flow.row = describe_pair(backend, P2pPattern::kStreamBandwidth, {src, dst}, where_);
        flow.row.bytes = bytes;
        flow.row.extra = extra.text();
        declare_judging(flow.row, P2pPattern::kStreamBandwidth, "alltoall");
        flow.ranks = {src, dst};
        flow.clock_ranks = {dst};
        flow.clock_slot = src < dst ? src : src - 1;  // the receiver's peers in rank order, itself left out
        info.flows.push_back(std::move(flow));
      }
    info.row.link_class = common_link_class(info.flows);
    info.aggregate_row = true;
    info.name = "net/alltoall/" + backend + "/" + format_size(bytes);
    harness_.add(std::move(info), [&comm, make_buffers, config, bytes, ranks] {
      return make_all_to_all_batch(comm, make_buffers(bytes, static_cast<std::size_t>(ranks - 1)), config);
    });
  }

  // The flows' link class when they share one (the aggregate's), else "mixed".
  static std::string common_link_class(const std::vector<FlowInfo>& flows) {
    std::set<std::string> classes;
    for (const FlowInfo& flow : flows) classes.insert(flow.row.link_class);
    return classes.size() == 1 ? *classes.begin() : "mixed";
  }

  MpiProgram& program_;
  const NetOptions& options_;
  const CommandLine& args_;
  MpiControl control_;
  MultiRankBenchmarks harness_;
  Placement where_;
  std::vector<std::unique_ptr<Communicator>> communicators_;
};

// --plan N: the schedule and its cost, printed without MPI (a laptop can plan the cluster's run).
std::optional<int> answer_plan(int argc, char** argv) {
  const bool asked = std::any_of(argv + 1, argv + argc, [](const char* a) {
    return std::string_view(a) == "--plan" || std::string_view(a).starts_with("--plan=");
  });
  if (!asked) return std::nullopt;
  try {
    CommandLine args(argc, argv);
    const NetOptions options = parse_net_options(args);
    SweepShape shape;
    shape.nodes = *options.plan_nodes;
    shape.patterns = options.patterns;
    shape.sizes = options.sizes;
    shape.window = options.window;
    shape.batch_bytes = options.batch_bytes;
    shape.sampling = options.harness.sampling;
    shape.warmup_batches = options.harness.warmup_batches;
    shape.matchings = options.matchings;
    shape.seed = options.seed;
    std::fputs(sweep_plan_text(shape, {options.plan_rate_gbit, options.plan_latency_us}).c_str(), stdout);
    return kExitOk;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "error: %s (exit code %d)\n", e.what(), kExitUsage);
    return kExitUsage;
  }
}

}  // namespace
}  // namespace wb

int main(int argc, char** argv) {
  if (const auto planned = wb::answer_plan(argc, argv)) return *planned;
  return wb::benchmark_main<wb::NetRun, wb::NetOptions>(
      argc, argv, wb::net_help, [](wb::CommandLine& args, const wb::MpiProgram& program) {
        wb::NetOptions options = wb::parse_net_options(args);
        wb::plan_rounds(options.plan_request(program.size()));  // fewer than 2 ranks is a usage error
        return options;
      });
}
