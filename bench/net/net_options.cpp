#include "net/net_options.h"

#include <algorithm>

#include "harness/errors.h"
#include "harness/option_parser.h"
#include "harness/size_spec.h"

namespace wb {
namespace {

P2pPattern parse_test(const std::string& name) {
  if (name == "latency") return P2pPattern::kPingPong;
  if (name == "bw") return P2pPattern::kStreamBandwidth;
  if (name == "bibw") return P2pPattern::kBidirectional;
  throw UsageError("--tests: '" + name + "' is not latency, bw or bibw");
}

constexpr const char* kLinkClasses[] = {"nvlink", "pcie", "c2c", "ib", "roce", "eth", "shm", "host"};
constexpr const char* kProgram = "wb-net";
constexpr const char* kSynopsis =
    "wb-net: point-to-point latency and bandwidth between ranks (osu_latency, osu_bw, osu_bibw)\n"
    "usage: mpiexec -n N wb-net [options] [--benchmark_* options]";
constexpr const char* kFooter =
    "Google Benchmark's --benchmark_filter, --benchmark_repetitions, --benchmark_out and --benchmark_format work as\n"
    "usual; only rank 0 prints and writes.";

void declare_net_options(OptionParser& parser, NetOptions& options, std::string& fault) {
  parser.group("What to measure");
  parser.value("--sizes", "SPEC", std::string("message sizes: 8, 4K, 256MiB, ranges 8:4M[:F|:+STEP], lists (default 0:4MiB). ") +
                   kSizeUnitsHelp, [&](const std::string& v) {
                 options.sizes = parse_size_spec(v);
                 options.size_text = v;
               });
  parser.value("--tests", "LIST", "latency (ping-pong), bw (streaming, osu_bw), bibw (osu_bibw) (default all three)",
               [&](const std::string& v) {
                 options.patterns.clear();
                 for (const auto& test : split_list(v)) options.patterns.push_back(parse_test(test));
                 if (options.patterns.empty()) throw UsageError("--tests: no test named");
               });
  parser.value("--pairs", "MODE",
               "first (rank 0 and 1, the default) | ring (each rank and the next, one pair at a time) | all (every "
               "pair once, in n-1 rounds of disjoint pairs measured at the same time; streams both ways) | "
               "all-serial (every pair, one at a time: the figure without contention) | bisection (--matchings "
               "random perfect matchings, all pairs of one at once, and each matching's aggregate) | alltoall (every "
               "rank streaming to every other at once: a row per ordered pair, timed by when its data arrived, and "
               "the aggregate; streaming only, --tests is not used) | A-B,C-D,... (the rank pairs listed, disjoint, "
               "as one round at once, both ways: a round of a schedule chosen outside, as the runner's adaptive "
               "screen does)",
               [&](const std::string& v) {
                 options.pairs = parse_pair_mode(v);
                 if (options.pairs == PairMode::kListed) options.listed = parse_listed_pairs(v);
               });
  parser.value("--round", "N", "with --pairs A-B,...: the round's number in its schedule, as its rows say it (default 1)",
               [&](const std::string& v) { options.round_number = static_cast<std::size_t>(parse_whole_number("--round", v, 1)); });
  parser.value("--matchings", "K", "bisection: how many random matchings (default 3)", [&](const std::string& v) {
    options.matchings = static_cast<int>(parse_whole_number("--matchings", v, 1));
  });
  parser.value("--seed", "S", "bisection: the seed that picks the matchings (default 1; every rank draws the same)",
               [&](const std::string& v) { options.seed = static_cast<std::uint64_t>(parse_whole_number("--seed", v, 0)); });
  parser.value("--backend", "LIST", "mpi, mpi-cuda (CUDA-aware MPI on device buffers), nccl, or all (default mpi)",
               [&](const std::string& v) {
                 options.backends.clear();
                 for (const auto& backend : split_list(v)) {
                   if (backend == "all") {
                     options.backends = {"mpi", "mpi-cuda", "nccl"};
                     break;
                   }
                   if (backend != "mpi" && backend != "mpi-cuda" && backend != "nccl")
                     throw UsageError("--backend: '" + backend + "' is not mpi, mpi-cuda, nccl or all");
                   options.backends.push_back(backend);
                 }
                 if (options.backends.empty()) throw UsageError("--backend: no backend named");
               });
  parser.value("--link-class", "CLASS", "link class of pairs on different nodes (default: read from sysfs)",
               [&](const std::string& v) {
                 if (std::find(std::begin(kLinkClasses), std::end(kLinkClasses), v) == std::end(kLinkClasses))
                   throw UsageError("--link-class: '" + v + "' is not one of nvlink, pcie, c2c, ib, roce, eth, shm, host");
                 options.link_class = v;
               });
  parser.value("--window", "osu|slots",
               "bw and bibw: osu (default): osu_bw's window, 64 messages in flight into one receive buffer, the "
               "figure osu_bw users compare with; slots: up to 64 messages (64 MiB) in flight, each into its own "
               "buffer, every byte of every message checked (the row's window_buffers says which)",
               [&](const std::string& v) {
                 if (v == "osu") options.window = WindowMode::kOsu;
                 else if (v == "slots") options.window = WindowMode::kSlots;
                 else throw UsageError("--window: '" + v + "' is not osu or slots");
               });
  parser.value("--batch-bytes", "SIZE",
               "the traffic one timed batch aims at (default 16M; at least one window or round trip). Each sample is "
               "a batch: on a slow link a smaller batch shortens a run (16 MiB take 0.67 s at 200 Mbit/s)",
               [&](const std::string& v) {
                 options.batch_bytes = parse_size(v);
                 if (options.batch_bytes == 0) throw UsageError("--batch-bytes: '" + v + "' is not a size above 0");
               });
  parser.value("--check", "0|1",
               "verify received bytes (default 1: the received buffers of every window (--window slots: every "
               "message), and each ping-pong batch's last echo, which carries any earlier corruption on); 0 leaves "
               "errors empty",
               [&](const std::string& v) { options.check = parse_zero_or_one("--check", v); });
  parser.value("--inject-fault", "FAULT",
               "corrupt: flip one received byte per batch (tests the data check); unwritten: ping-pong only, the "
               "checked echo is never written (tests the check); slow: every batch takes twice its time, a link "
               "at half rate (tests the verdicts); crash: the responder segfaults in its first batch (tests the crash report)",
               [&](const std::string& v) { fault = v; });
  parser.group("Planning (no MPI: what a sweep of N nodes would cost)");
  parser.value("--plan", "N",
               "print the schedule of --pairs all, all-serial and bisection on N nodes (1 rank each) and an estimate of "
               "each sweep's wall time at --sizes and --tests under the sampling options, then exit",
               [&](const std::string& v) { options.plan_nodes = static_cast<int>(parse_whole_number("--plan", v, 2)); });
  parser.value("--rate", "GBIT", "with --plan: each port's rate in Gbit/s (default 400)",
               [&](const std::string& v) { options.plan_rate_gbit = parse_positive_number("--rate", v, "a positive rate in Gbit/s"); });
  parser.value("--latency", "US", "with --plan: one-way latency of a small message in microseconds (default 2)",
               [&](const std::string& v) { options.plan_latency_us = parse_positive_number("--latency", v, "a positive number of microseconds"); });
  declare_harness_options(parser, options.harness);
}

}  // namespace

NetOptions parse_net_options(CommandLine& args) {
  NetOptions options;
  options.sizes = parse_size_spec("0:4MiB");
  options.patterns = {P2pPattern::kPingPong, P2pPattern::kStreamBandwidth, P2pPattern::kBidirectional};
  options.backends = {"mpi"};
  std::string fault;
  OptionParser parser(kProgram, kSynopsis, kFooter);
  declare_net_options(parser, options, fault);
  parser.parse(args);
  if (!fault.empty()) {
    if (fault != "corrupt" && fault != "unwritten" && fault != "slow" && fault != "crash")
      throw UsageError("--inject-fault: '" + fault + "' is not corrupt, unwritten, slow or crash");
    options.slow_batches = fault == "slow";
    options.crash = fault == "crash";
    if (!options.check && !options.slow_batches && !options.crash) throw UsageError("--inject-fault " + fault + " needs the data check (--check 1)");
    options.corrupt_received = fault == "corrupt";
    options.unwritten_echo = fault == "unwritten";
    const bool only_latency = std::all_of(options.patterns.begin(), options.patterns.end(),
                                          [](P2pPattern p) { return p == P2pPattern::kPingPong; });
    if (options.unwritten_echo && !only_latency)
      throw UsageError("--inject-fault unwritten applies to ping-pong only (--tests latency)");
  }
  return options;
}

std::string net_help() {
  NetOptions options;
  std::string fault;
  OptionParser parser(kProgram, kSynopsis, kFooter);
  declare_net_options(parser, options, fault);
  return parser.help();
}

}  // namespace wb
