#include "net/net_options.h"

#include <algorithm>

#include "harness/errors.h"
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

}  // namespace

NetOptions parse_net_options(CommandLine& args) {
  NetOptions options;
  options.sizes = parse_size_spec(args.take("sizes").value_or("0:4MiB"));
  for (const auto& test : split_list(args.take("tests").value_or("latency,bw,bibw")))
    options.patterns.push_back(parse_test(test));
  if (options.patterns.empty()) throw UsageError("--tests: no test named");
  options.pairs = parse_pair_mode(args.take("pairs").value_or("first"));
  for (const auto& backend : split_list(args.take("backend").value_or("mpi"))) {
    if (backend == "all") {
      options.backends = {"mpi", "mpi-cuda", "nccl"};
      break;
    }
    if (backend != "mpi" && backend != "mpi-cuda" && backend != "nccl")
      throw UsageError("--backend: '" + backend + "' is not mpi, mpi-cuda, nccl or all");
    options.backends.push_back(backend);
  }
  if (options.backends.empty()) throw UsageError("--backend: no backend named");
  if (auto link = args.take("link-class")) {
    if (std::find(std::begin(kLinkClasses), std::end(kLinkClasses), *link) == std::end(kLinkClasses))
      throw UsageError("--link-class: '" + *link + "' is not one of nvlink, pcie, c2c, ib, roce, eth, shm, host");
    options.link_class = *link;
  }
  if (auto check = args.take("check")) {
    if (*check != "0" && *check != "1") throw UsageError("--check: '" + *check + "' is not 0 or 1");
    options.check = *check == "1";
  }
  if (auto fault = args.take("inject-fault")) {
    if (*fault != "corrupt" && *fault != "unwritten" && *fault != "slow")
      throw UsageError("--inject-fault: '" + *fault + "' is not corrupt, unwritten or slow");
    options.slow_batches = *fault == "slow";
    if (!options.check && !options.slow_batches) throw UsageError("--inject-fault " + *fault + " needs the data check (--check 1)");
    options.corrupt_received = *fault == "corrupt";
    options.unwritten_echo = *fault == "unwritten";
    const bool only_latency = std::all_of(options.patterns.begin(), options.patterns.end(),
                                          [](P2pPattern p) { return p == P2pPattern::kPingPong; });
    if (options.unwritten_echo && !only_latency)
      throw UsageError("--inject-fault unwritten applies to ping-pong only (--tests latency)");
  }
  options.harness = take_harness_options(args);
  args.expect_all_taken();
  return options;
}

}  // namespace wb
