#include "coll/coll_options.h"

#include <charconv>
#include <cstdlib>

#include "harness/errors.h"
#include "harness/size_spec.h"

namespace wb {
namespace {

std::vector<std::string> nonempty_list(const std::string& text) {
  auto items = split_list(text);
  if (items.empty()) throw UsageError("empty list '" + text + "'");
  return items;
}

long parse_whole(const std::string& flag, const std::string& text, long lowest) {
  long value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < lowest)
    throw UsageError(flag + ": '" + text + "' is not a whole number >= " + std::to_string(lowest));
  return value;
}

template <typename T, typename Parse, typename All>
std::vector<T> parse_list(const std::optional<std::string>& text, T fallback, Parse parse, All all) {
  if (!text) return {fallback};
  if (*text == "all") return all();
  std::vector<T> items;
  for (const auto& item : nonempty_list(*text)) items.push_back(parse(item));
  return items;
}

std::vector<std::uint64_t> sizes_from(CommandLine& args) {
  const auto spec = args.take("sizes");
  const auto first = args.take_any({"-b", "--minbytes"});
  const auto last = args.take_any({"-e", "--maxbytes"});
  const auto factor = args.take_any({"-f", "--stepfactor"});
  const auto step = args.take_any({"-i", "--stepbytes"});
  if (spec) {
    if (first || last || factor || step) throw UsageError("give either --sizes or -b/-e/-f/-i, not both");
    return parse_size_spec(*spec);
  }
  if (factor && step) throw UsageError("give either -f (factor) or -i (step), not both");
  std::string range = first.value_or("8") + ":" + last.value_or("64MiB");
  range.append(step ? ":+" : ":").append(step ? *step : factor.value_or("2"));
  return parse_size_spec(range);
}

}  // namespace

CollOptions parse_coll_options(CommandLine& args) {
  CollOptions o;
  o.sizes = sizes_from(args);
  o.ops = parse_list(args.take("op"), CollOp::kAllReduce, parse_collective, all_collectives);
  o.dtypes = parse_list(args.take_any({"-d", "--datatype"}), DType::kFloat32, parse_dtype, all_dtypes);
  o.redops = parse_list(args.take_any({"-o", "--op-reduce", "--redop"}), RedOp::kSum, parse_redop, [] {
    return std::vector<RedOp>{RedOp::kSum, RedOp::kProd, RedOp::kMax, RedOp::kMin};
  });
  if (const auto root = args.take_any({"-r", "--root"})) o.root = static_cast<int>(parse_whole("-r", *root, 0));
  if (const auto checks = args.take_any({"-c", "--check"})) o.checks = static_cast<int>(parse_whole("-c", *checks, 0));
  if (const auto blocking = args.take_any({"-z", "--blocking"})) {
    if (*blocking != "0" && *blocking != "1") throw UsageError("-z: '" + *blocking + "' is not 0 or 1");
    o.blocking = *blocking == "1";
  }
  if (const auto iters = args.take_any({"-n", "--iters"}))
    o.iterations = static_cast<std::size_t>(parse_whole("-n", *iters, 1));
  const std::string place = args.take("in-place").value_or("both");
  if (place == "both") o.placements = {Placement::kOutOfPlace, Placement::kInPlace};
  else if (place == "no") o.placements = {Placement::kOutOfPlace};
  else if (place == "yes") o.placements = {Placement::kInPlace};
  else throw UsageError("--in-place: '" + place + "' is not both, yes or no");
  o.backend = args.take("backend").value_or("mpi");
  if (o.backend != "mpi" && o.backend != "nccl") throw UsageError("--backend: '" + o.backend + "' is not mpi or nccl");
  if (const auto graph = args.take_any({"-G", "--cudagraph"})) {
    if (*graph != "0" && *graph != "1") throw UsageError("-G: '" + *graph + "' is not 0 or 1");
    o.graph = *graph == "1";
    if (o.graph && o.backend != "nccl") throw UsageError("-G 1 (CUDA graph launch) needs --backend nccl");
  }
  const std::string split = args.take("split").value_or("none");
  if (split == "none") o.split = Split::kNone;
  else if (split == "intra") o.split = Split::kIntraNode;
  else if (split == "rails") o.split = Split::kRails;
  else throw UsageError("--split: '" + split + "' is not none, intra or rails");
  if (const auto algorithms = args.take("mpich-algorithm")) {
    for (const auto& item : nonempty_list(*algorithms)) {
      const auto equals = item.find('=');
      if (equals == std::string::npos || equals == 0 || equals + 1 == item.size())
        throw UsageError("--mpich-algorithm: '" + item + "' is not OP=ALGORITHM (e.g. allreduce=ring)");
      o.mpich_algorithms.push_back(item);
    }
  }
  o.link_class = args.take("link-class");
  if (const auto fault = args.take("inject-fault")) {
    if (*fault != "corrupt") throw UsageError("--inject-fault: '" + *fault + "' is not corrupt");
    if (o.checks == 0) throw UsageError("--inject-fault corrupt needs the data check (-c 1 or more)");
    o.corrupt_result = true;
  }
  o.harness = take_harness_options(args);
  args.expect_all_taken();
  return o;
}

void apply_mpich_algorithms(const CollOptions& options) {
  for (const auto& item : options.mpich_algorithms) {
    const auto equals = item.find('=');
    std::string op = item.substr(0, equals);
    for (char& c : op) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const std::string variable = "MPIR_CVAR_" + op + "_INTRA_ALGORITHM";
    setenv(variable.c_str(), item.substr(equals + 1).c_str(), 1);
  }
}

}  // namespace wb
