#include "comm/collective.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>

#include "harness/errors.h"

namespace wb {
namespace {

double all_reduce_factor(int n) { return 2.0 * (n - 1) / n; }
double sharded_factor(int n) { return static_cast<double>(n - 1) / n; }
double unit_factor(int) { return 1.0; }

constexpr CollectiveDescriptor kCollectives[] = {
    {CollOp::kAllReduce, "all_reduce", "ALLREDUCE", true, false, false, all_reduce_factor},
    {CollOp::kAllGather, "all_gather", "ALLGATHER", false, false, true, sharded_factor},
    {CollOp::kReduceScatter, "reduce_scatter", "REDUCE_SCATTER_BLOCK", true, false, true, sharded_factor},
    {CollOp::kBroadcast, "broadcast", "BCAST", false, true, false, unit_factor},
    {CollOp::kReduce, "reduce", "REDUCE", true, true, false, unit_factor},
    {CollOp::kAllToAll, "all_to_all", "ALLTOALL", false, false, true, sharded_factor},
    {CollOp::kSendRecv, "send_recv", "", false, false, false, unit_factor},
};

std::uint64_t mix(int rank, std::size_t index, std::uint64_t seed) {
  return static_cast<std::uint64_t>(rank) * 7u + static_cast<std::uint64_t>(index) * 3u + seed;
}

// Values 1..k with k chosen so that a sum over all ranks stays exact in the type.
double small_value(const CheckContext& c, int rank, std::size_t index) {
  const double per_rank = std::floor(info(c.dtype).exact_limit / c.ranks);
  const auto k = static_cast<std::uint64_t>(std::clamp(per_rank, 1.0, 5.0));
  return static_cast<double>(mix(rank, index, c.seed) % k + 1);
}

double reduce_over_ranks(const CheckContext& c, std::size_t index) {
  double result = input_value(c, 0, index);
  for (int r = 1; r < c.ranks; ++r) {
    const double v = input_value(c, r, index);
    switch (c.redop) {
      case RedOp::kSum: result += v; break;
      case RedOp::kProd: result *= v; break;
      case RedOp::kMax: result = std::max(result, v); break;
      case RedOp::kMin: result = std::min(result, v); break;
      case RedOp::kAvg: result += v; break;
    }
  }
  return c.redop == RedOp::kAvg ? result / c.ranks : result;
}

// Elements of a rank's send and receive buffers in the check.
std::size_t send_elements(const CheckContext& c) {
  return describe(c.op).sharded && c.op != CollOp::kAllGather ? c.count * static_cast<std::size_t>(c.ranks) : c.count;
}
std::size_t recv_elements(const CheckContext& c) {
  return describe(c.op).sharded && c.op != CollOp::kReduceScatter ? c.count * static_cast<std::size_t>(c.ranks)
                                                                  : c.count;
}

}  // namespace

const CollectiveDescriptor& describe(CollOp op) {
  for (const auto& d : kCollectives)
    if (d.op == op) return d;
  return kCollectives[0];
}

std::vector<CollOp> all_collectives() {
  std::vector<CollOp> ops;
  for (const auto& d : kCollectives) ops.push_back(d.op);
  return ops;
}

std::optional<CollOp> find_collective(std::string_view text) {
  // Compared without underscores or case: all_reduce, allreduce, ALLREDUCE; MPICH's bcast and
  // reduce_scatter_block too.
  const auto compact = [](std::string_view name) {
    std::string out;
    for (char ch : name)
      if (ch != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return out;
  };
  const std::string wanted = compact(text);
  for (const auto& d : kCollectives)
    if (wanted == compact(d.name) || (*d.mpich && wanted == compact(d.mpich))) return d.op;
  if (wanted == "sendrecv" || wanted == "p2p") return CollOp::kSendRecv;
  return std::nullopt;
}

CollOp parse_collective(std::string_view text) {
  if (const auto op = find_collective(text)) return *op;
  throw UsageError("unknown collective '" + std::string(text) +
                   "' (all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all, send_recv, or all)");
}

std::string mpich_algorithm_variable(CollOp op) {
  const char* mpich = describe(op).mpich;
  return *mpich ? "MPIR_CVAR_" + std::string(mpich) + "_INTRA_ALGORITHM" : "";
}

CollectiveShape shape_of(CollOp op, std::uint64_t bytes, DType dtype, int ranks) {
  const std::size_t size = info(dtype).size;
  const std::size_t n = static_cast<std::size_t>(ranks);
  CollectiveShape s;
  if (describe(op).sharded) {
    s.count = static_cast<std::size_t>(bytes / size / n);
    const std::size_t total = s.count * n;
    s.send_elements = op == CollOp::kAllGather ? s.count : total;
    s.recv_elements = op == CollOp::kReduceScatter ? s.count : total;
    s.bytes = total * size;
  } else {
    s.count = static_cast<std::size_t>(bytes / size);
    s.send_elements = s.recv_elements = s.count;
    s.bytes = s.count * size;
  }
  return s;
}

double input_value(const CheckContext& c, int rank, std::size_t index) {
  if (describe(c.op).reduces && c.redop == RedOp::kProd)
    // exactly one rank contributes 2 per element: the product is 2 and never overflows
    return (mix(rank, index, c.seed) % static_cast<std::uint64_t>(c.ranks)) == 0 ? 2.0 : 1.0;
  if (describe(c.op).reduces && c.redop == RedOp::kAvg)
    return small_value(c, 0, index);  // every rank the same value: the average is that value, exactly
  return small_value(c, rank, index);
}

bool receives_result(const CheckContext& c, int rank) { return c.op != CollOp::kReduce || rank == c.root; }

double expected_value(const CheckContext& c, int rank, std::size_t index) {
  const std::size_t chunk = c.count;
  switch (c.op) {
    case CollOp::kAllReduce:
    case CollOp::kReduce: return reduce_over_ranks(c, index);
    case CollOp::kReduceScatter: return reduce_over_ranks(c, static_cast<std::size_t>(rank) * chunk + index);
    case CollOp::kBroadcast: return input_value(c, c.root, index);
    case CollOp::kAllGather: return input_value(c, static_cast<int>(index / chunk), index % chunk);
    case CollOp::kAllToAll: {
      // block q of my receive buffer comes from rank q's block addressed to me
      const int from = static_cast<int>(index / chunk);
      return input_value(c, from, static_cast<std::size_t>(rank) * chunk + index % chunk);
    }
    case CollOp::kSendRecv: return input_value(c, (rank - 1 + c.ranks) % c.ranks, index);
  }
  return 0;
}

// The device check numbers collectives, types and reductions as these enums do.
static_assert(static_cast<int>(CollOp::kSendRecv) == collcheck::kSendRecv &&
              static_cast<int>(CollOp::kAllToAll) == collcheck::kAllToAll &&
              static_cast<int>(CollOp::kReduceScatter) == collcheck::kReduceScatter);
static_assert(static_cast<int>(DType::kFloat64) == collcheck::kFloat64 &&
              static_cast<int>(DType::kBfloat16) == collcheck::kBfloat16 &&
              static_cast<int>(DType::kFloat16) == collcheck::kFloat16);
static_assert(static_cast<int>(RedOp::kMin) == collcheck::kMin && static_cast<int>(RedOp::kProd) == collcheck::kProd &&
              static_cast<int>(RedOp::kAvg) == collcheck::kAvg);

collcheck::Params check_params(const CheckContext& c) {
  collcheck::Params p;
  p.op = static_cast<int>(c.op);
  p.type = static_cast<int>(c.dtype);
  p.red = static_cast<int>(c.redop);
  p.ranks = c.ranks;
  p.root = c.root;
  p.seed = c.seed;
  p.count = c.count;
  p.exact_limit = info(c.dtype).exact_limit;
  return p;
}

std::size_t check_send_elements(const CheckContext& c) { return send_elements(c); }
std::size_t check_recv_elements(const CheckContext& c) { return recv_elements(c); }

void fill_send(const CheckContext& c, int rank, void* buffer) {
  const std::size_t size = info(c.dtype).size;
  const std::size_t elements = send_elements(c);
  auto* bytes = static_cast<unsigned char*>(buffer);
  for (std::size_t i = 0; i < elements; ++i) store_element(c.dtype, bytes + i * size, input_value(c, rank, i));
}

void poison_recv(const CheckContext& c, void* buffer) {
  const std::size_t size = info(c.dtype).size;
  const std::size_t elements = recv_elements(c);
  std::memset(buffer, 0, elements * size);  // 0 is never expected
}

std::uint64_t count_wrong(const CheckContext& c, int rank, const void* buffer) {
  if (!receives_result(c, rank)) return 0;
  const std::size_t size = info(c.dtype).size;
  const std::size_t elements = recv_elements(c);
  const auto* bytes = static_cast<const unsigned char*>(buffer);
  std::uint64_t wrong = 0;
  for (std::size_t i = 0; i < elements; ++i)
    wrong += load_element(c.dtype, bytes + i * size) != expected_value(c, rank, i);
  return wrong;
}

}  // namespace wb
