#include "step/forced_algorithm.h"

#include <cstdlib>
#include <optional>

#include "comm/collective.h"
#include "harness/errors.h"

namespace wb::step {
namespace {

constexpr CollOp kCollectives[] = {CollOp::kAllReduce, CollOp::kAllGather, CollOp::kReduceScatter,
                                   CollOp::kBroadcast, CollOp::kReduce,    CollOp::kAllToAll};

// The option's value from argv ("--name V" or "--name=V"), if given.
std::optional<std::string> argv_value(int argc, char** argv, const std::string& name) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == name && i + 1 < argc) return std::string(argv[i + 1]);
    if (arg.starts_with(name + "=")) return arg.substr(name.size() + 1);
  }
  return std::nullopt;
}

}  // namespace

std::vector<ForcedSetting> forced_algorithm_settings(Algorithm a, const std::string& backend) {
  if (backend == "nccl") {
    if (a == Algorithm::kRing) return {{"NCCL_ALGO", "Ring"}};
    if (a == Algorithm::kTree) return {{"NCCL_ALGO", "Tree"}};
    throw UsageError(std::string("--algorithm ") + algorithm_name(a) +
                     (is_nccl_algorithm(a)
                          ? ": a measured run forces ring or tree on NCCL (NCCL_ALGO), whose formulas the calibration "
                            "fits; NCCL's other algorithms are for --what-if"
                          : ": NCCL runs ring or tree (NCCL_ALGO); this formula is an MPI library's algorithm"));
  }
  if (is_nccl_algorithm(a) && a != Algorithm::kRing && a != Algorithm::kTree)
    throw UsageError(std::string("--algorithm ") + algorithm_name(a) +
                     ": NCCL's own algorithm, which an MPI library does not have; on MPI give ring, "
                     "recursive_doubling, rabenseifner or binomial");
  std::vector<ForcedSetting> settings;
  for (CollOp op : kCollectives)
    if (const auto s = mpich_nonblocking_forcing(op, a)) settings.push_back(*s);
  if (settings.empty())
    throw UsageError(std::string("--algorithm ") + algorithm_name(a) +
                     ": MPICH has no algorithm that follows this formula (its tree all_reduce is a k-nomial "
                     "tree of whole messages); on MPI give ring, recursive_doubling, rabenseifner or binomial");
  return settings;
}

void force_algorithm_early(int argc, char** argv) {
  if (argv_value(argc, argv, "--what-if")) return;  // a what-if's --algorithm only picks formulas
  const auto name = argv_value(argc, argv, "--algorithm");
  if (!name) return;
  try {
    const Algorithm a = parse_algorithm(*name);
    for (const ForcedSetting& s : forced_algorithm_settings(a, argv_value(argc, argv, "--backend").value_or("mpi")))
      setenv(s.variable.c_str(), s.value.c_str(), 1);
  } catch (const UsageError&) {
    // The full parse says what is wrong, with the exit code of bad usage.
  }
}

std::string forced_algorithm_note(Algorithm a, const std::string& backend) {
  std::string note = std::string("algorithm: ") + algorithm_name(a) + " forced";
  if (backend == "nccl") return note + " (NCCL_ALGO=" + forced_algorithm_settings(a, backend).front().value +
                                ": every collective that has it; the others run ring)";
  note += "; the calibration measured it:";
  for (CollOp op : kCollectives) {
    const auto forcing = mpich_nonblocking_forcing(op, a);
    note += std::string("\n  ") + describe(op).name + ": ";
    note += forcing ? forcing->variable + "=" + forcing->value
                    : "MPICH's own choice (it has no " + std::string(algorithm_name(a)) + ")";
  }
  return note;
}

}  // namespace wb::step
