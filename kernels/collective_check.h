// The collective data check as the GPU runs it: what every rank puts in and must get out, and the
// exact element conversions, in plain host-and-device code. The reference is the host check of
// coll/collective.h (MPI uses it); unit tests hold the two bit-equal on every type, reduction and
// collective, so a kernel built from these formulas counts exactly what the host check would,
// without copying a buffer to the host (nccl-tests' verifiable does the same).
#pragma once

#include <cstdint>
#include <cstring>

#include "host_device.h"

namespace wb::collcheck {

// Numbered as CollOp, DType and RedOp are (coll/collective.h, coll/dtype.h; asserted there).
enum Op : int { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kReduce, kAllToAll, kSendRecv };
enum Type : int { kInt8, kUint8, kInt32, kUint32, kInt64, kUint64, kFloat16, kBfloat16, kFloat32, kFloat64 };
enum Red : int { kSum, kProd, kMax, kMin, kAvg };

struct Params {
  int op = kAllReduce, type = kFloat32, red = kSum;
  int ranks = 1, root = 0;
  std::uint64_t seed = 0;
  std::uint64_t count = 0;  // the call's count (CollectiveShape::count)
  double exact_limit = 0;   // the largest whole number the type holds exactly
};

WB_HOST_DEVICE inline bool reduces(int op) { return op == kAllReduce || op == kReduceScatter || op == kReduce; }
WB_HOST_DEVICE inline bool sharded(int op) { return op == kAllGather || op == kReduceScatter || op == kAllToAll; }

WB_HOST_DEVICE inline std::uint64_t mix(int rank, std::uint64_t index, std::uint64_t seed) {
  return static_cast<std::uint64_t>(rank) * 7u + index * 3u + seed;
}

// Values 1..k, k at most 5 and small enough that a sum over all ranks stays exact in the type.
WB_HOST_DEVICE inline double small_value(const Params& p, int rank, std::uint64_t index) {
  double per_rank = p.exact_limit / p.ranks;
  per_rank = per_rank < 1.0 ? 1.0 : (per_rank > 5.0 ? 5.0 : per_rank);
  const auto k = static_cast<std::uint64_t>(per_rank);  // whole part: floor of a positive number
  return static_cast<double>(mix(rank, index, p.seed) % k + 1);
}

WB_HOST_DEVICE inline double input(const Params& p, int rank, std::uint64_t index) {
  if (reduces(p.op) && p.red == kProd)  // one rank contributes 2 per element: the product is 2
    return mix(rank, index, p.seed) % static_cast<std::uint64_t>(p.ranks) == 0 ? 2.0 : 1.0;
  if (reduces(p.op) && p.red == kAvg) return small_value(p, 0, index);  // the same on every rank
  return small_value(p, rank, index);
}

WB_HOST_DEVICE inline double reduced(const Params& p, std::uint64_t index) {
  double result = input(p, 0, index);
  for (int r = 1; r < p.ranks; ++r) {
    const double v = input(p, r, index);
    if (p.red == kSum || p.red == kAvg) result += v;
    else if (p.red == kProd) result *= v;
    else if (p.red == kMax) result = v > result ? v : result;
    else result = v < result ? v : result;
  }
  return p.red == kAvg ? result / p.ranks : result;
}

WB_HOST_DEVICE inline double expected(const Params& p, int rank, std::uint64_t index) {
  const std::uint64_t chunk = p.count;
  switch (p.op) {
    case kAllReduce:
    case kReduce: return reduced(p, index);
    case kReduceScatter: return reduced(p, static_cast<std::uint64_t>(rank) * chunk + index);
    case kBroadcast: return input(p, p.root, index);
    case kAllGather: return input(p, static_cast<int>(index / chunk), index % chunk);
    case kAllToAll: return input(p, static_cast<int>(index / chunk), static_cast<std::uint64_t>(rank) * chunk + index % chunk);
    case kSendRecv: return input(p, (rank - 1 + p.ranks) % p.ranks, index);
  }
  return 0;
}

WB_HOST_DEVICE inline bool receives_result(const Params& p, int rank) { return p.op != kReduce || rank == p.root; }
WB_HOST_DEVICE inline std::uint64_t send_elements(const Params& p) {
  return sharded(p.op) && p.op != kAllGather ? p.count * static_cast<std::uint64_t>(p.ranks) : p.count;
}
WB_HOST_DEVICE inline std::uint64_t recv_elements(const Params& p) {
  return sharded(p.op) && p.op != kReduceScatter ? p.count * static_cast<std::uint64_t>(p.ranks) : p.count;
}

WB_HOST_DEVICE inline std::size_t type_size(int type) {
  switch (type) {
    case kInt8: case kUint8: return 1;
    case kFloat16: case kBfloat16: return 2;
    case kInt32: case kUint32: case kFloat32: return 4;
    default: return 8;
  }
}

// IEEE binary16 from a float, rounded to nearest, ties to even (what the host conversion does).
WB_HOST_DEVICE inline std::uint16_t half_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  const std::uint32_t sign = (bits >> 16) & 0x8000u;
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u);  // NaN
  if (magnitude >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflow to infinity
  if (magnitude < 0x38800000u) {  // below the smallest normal half: a subnormal or zero
    if (magnitude < 0x33000000u) return static_cast<std::uint16_t>(sign);
    const std::uint32_t exponent = magnitude >> 23;
    const std::uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126u - exponent;  // 14..24
    std::uint32_t half = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1u << shift) - 1u);
    const std::uint32_t halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = ((magnitude >> 13) - (112u << 10));
  const std::uint32_t rest = magnitude & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
  return static_cast<std::uint16_t>(sign | half);
}

WB_HOST_DEVICE inline float half_value(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1fu;
  std::uint32_t mantissa = h & 0x3ffu;
  std::uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mantissa <<= 1;
      } while ((mantissa & 0x400u) == 0);
      bits = sign | (static_cast<std::uint32_t>(127 - 15 - e) << 23) | ((mantissa & 0x3ffu) << 13);
    }
  } else if (exponent == 31) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else {
    bits = sign | ((exponent - 15u + 127u) << 23) | (mantissa << 13);
  }
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

WB_HOST_DEVICE inline std::uint16_t bfloat16_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);  // NaN
  return static_cast<std::uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

WB_HOST_DEVICE inline float bfloat16_value(std::uint16_t b) {
  const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

template <typename T>
WB_HOST_DEVICE inline void put(unsigned char* p, T value) {
  std::memcpy(p, &value, sizeof value);
}
template <typename T>
WB_HOST_DEVICE inline T got(const unsigned char* p) {
  T value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

WB_HOST_DEVICE inline void store(int type, unsigned char* p, double value) {
  switch (type) {
    case kInt8: return put(p, static_cast<std::int8_t>(value));
    case kUint8: return put(p, static_cast<std::uint8_t>(value));
    case kInt32: return put(p, static_cast<std::int32_t>(value));
    case kUint32: return put(p, static_cast<std::uint32_t>(value));
    case kInt64: return put(p, static_cast<std::int64_t>(value));
    case kUint64: return put(p, static_cast<std::uint64_t>(value));
    case kFloat16: return put(p, half_bits(static_cast<float>(value)));
    case kBfloat16: return put(p, bfloat16_bits(static_cast<float>(value)));
    case kFloat32: return put(p, static_cast<float>(value));
    default: return put(p, value);
  }
}

WB_HOST_DEVICE inline double load(int type, const unsigned char* p) {
  switch (type) {
    case kInt8: return got<std::int8_t>(p);
    case kUint8: return got<std::uint8_t>(p);
    case kInt32: return got<std::int32_t>(p);
    case kUint32: return got<std::uint32_t>(p);
    case kInt64: return static_cast<double>(got<std::int64_t>(p));
    case kUint64: return static_cast<double>(got<std::uint64_t>(p));
    case kFloat16: return half_value(got<std::uint16_t>(p));
    case kBfloat16: return bfloat16_value(got<std::uint16_t>(p));
    case kFloat32: return got<float>(p);
    default: return got<double>(p);
  }
}

// Whether element `index` of `rank`'s result at `p` is wrong: what the kernel counts.
WB_HOST_DEVICE inline bool wrong(const Params& params, int rank, std::uint64_t index, const unsigned char* p) {
  return load(params.type, p) != expected(params, rank, index);
}

}  // namespace wb::collcheck
