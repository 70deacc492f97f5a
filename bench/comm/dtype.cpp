#include "comm/dtype.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "harness/errors.h"

namespace wb {
namespace {

constexpr DTypeInfo kTypes[] = {
    {DType::kInt8, "int8", 1, 127},
    {DType::kUint8, "uint8", 1, 255},
    {DType::kInt32, "int32", 4, 2147483647.0},
    {DType::kUint32, "uint32", 4, 4294967295.0},
    {DType::kInt64, "int64", 8, 9007199254740992.0},   // exact in the double we compute with
    {DType::kUint64, "uint64", 8, 9007199254740992.0},
    {DType::kFloat16, "float16", 2, 2048},              // 11-bit significand
    {DType::kBfloat16, "bfloat16", 2, 256},             // 8-bit significand
    {DType::kFloat32, "float32", 4, 16777216.0},
    {DType::kFloat64, "float64", 8, 9007199254740992.0},
};

std::uint16_t float_to_half(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t sign = (bits >> 16) & 0x8000u;
  const int exponent = static_cast<int>((bits >> 23) & 0xff) - 127 + 15;
  std::uint32_t mantissa = bits & 0x7fffffu;
  if (((bits >> 23) & 0xff) == 0xff) return static_cast<std::uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u : 0));
  if (exponent >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflow: infinity
  if (exponent <= 0) {
    if (exponent < -10) return static_cast<std::uint16_t>(sign);
    mantissa |= 0x800000u;
    const int shift = 14 - exponent;
    std::uint32_t half = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1u << shift) - 1);
    const std::uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = sign | (static_cast<std::uint32_t>(exponent) << 10) | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1))) ++half;  // may carry into the exponent: correct
  return static_cast<std::uint16_t>(half);
}

float half_to_float(std::uint16_t half) {
  const std::uint32_t sign = static_cast<std::uint32_t>(half & 0x8000u) << 16;
  const std::uint32_t exponent = (half >> 10) & 0x1fu;
  std::uint32_t mantissa = half & 0x3ffu;
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
    bits = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  }
  return std::bit_cast<float>(bits);
}

std::uint16_t float_to_bfloat16(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if (std::isnan(value)) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);
  const std::uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);  // to nearest, ties to even
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

float bfloat16_to_float(std::uint16_t value) { return std::bit_cast<float>(static_cast<std::uint32_t>(value) << 16); }

template <typename T>
double load_as(const void* p) {
  T value;
  std::memcpy(&value, p, sizeof value);
  return static_cast<double>(value);
}

template <typename T>
void store_as(void* p, double value) {
  const T typed = static_cast<T>(value);
  std::memcpy(p, &typed, sizeof typed);
}

}  // namespace

const DTypeInfo& info(DType type) {
  for (const auto& t : kTypes)
    if (t.type == type) return t;
  return kTypes[0];
}

std::vector<DType> all_dtypes() {
  std::vector<DType> types;
  for (const auto& t : kTypes) types.push_back(t.type);
  return types;
}

DType parse_dtype(std::string_view text) {
  struct Alias {
    const char* name;
    DType type;
  };
  static constexpr Alias kAliases[] = {
      {"int8", DType::kInt8},         {"char", DType::kInt8},        {"uint8", DType::kUint8},
      {"int32", DType::kInt32},       {"int", DType::kInt32},        {"uint32", DType::kUint32},
      {"int64", DType::kInt64},       {"uint64", DType::kUint64},    {"float16", DType::kFloat16},
      {"half", DType::kFloat16},      {"fp16", DType::kFloat16},     {"bfloat16", DType::kBfloat16},
      {"bf16", DType::kBfloat16},     {"float32", DType::kFloat32},  {"float", DType::kFloat32},
      {"fp32", DType::kFloat32},      {"float64", DType::kFloat64},  {"double", DType::kFloat64},
      {"fp64", DType::kFloat64}};
  for (const auto& a : kAliases)
    if (text == a.name) return a.type;
  throw UsageError("unknown datatype '" + std::string(text) +
                   "' (int8, uint8, int32, uint32, int64, uint64, float16/half, bfloat16, float32/float, "
                   "float64/double, or all)");
}

std::string_view to_string(RedOp op) {
  switch (op) {
    case RedOp::kSum: return "sum";
    case RedOp::kProd: return "prod";
    case RedOp::kMax: return "max";
    case RedOp::kMin: return "min";
    case RedOp::kAvg: return "avg";
  }
  return "sum";
}

RedOp parse_redop(std::string_view text) {
  for (RedOp op : {RedOp::kSum, RedOp::kProd, RedOp::kMax, RedOp::kMin, RedOp::kAvg})
    if (text == to_string(op)) return op;
  throw UsageError("unknown reduction op '" + std::string(text) + "' (sum, prod, max, min, avg, or all)");
}

double load_element(DType type, const void* p) {
  switch (type) {
    case DType::kInt8: return load_as<std::int8_t>(p);
    case DType::kUint8: return load_as<std::uint8_t>(p);
    case DType::kInt32: return load_as<std::int32_t>(p);
    case DType::kUint32: return load_as<std::uint32_t>(p);
    case DType::kInt64: return load_as<std::int64_t>(p);
    case DType::kUint64: return load_as<std::uint64_t>(p);
    case DType::kFloat16: {
      std::uint16_t h;
      std::memcpy(&h, p, 2);
      return half_to_float(h);
    }
    case DType::kBfloat16: {
      std::uint16_t b;
      std::memcpy(&b, p, 2);
      return bfloat16_to_float(b);
    }
    case DType::kFloat32: return load_as<float>(p);
    case DType::kFloat64: return load_as<double>(p);
  }
  return 0;
}

void store_element(DType type, void* p, double value) {
  switch (type) {
    case DType::kInt8: return store_as<std::int8_t>(p, value);
    case DType::kUint8: return store_as<std::uint8_t>(p, value);
    case DType::kInt32: return store_as<std::int32_t>(p, value);
    case DType::kUint32: return store_as<std::uint32_t>(p, value);
    case DType::kInt64: return store_as<std::int64_t>(p, value);
    case DType::kUint64: return store_as<std::uint64_t>(p, value);
    case DType::kFloat16: {
      const std::uint16_t h = float_to_half(static_cast<float>(value));
      std::memcpy(p, &h, 2);
      return;
    }
    case DType::kBfloat16: {
      const std::uint16_t b = float_to_bfloat16(static_cast<float>(value));
      std::memcpy(p, &b, 2);
      return;
    }
    case DType::kFloat32: return store_as<float>(p, value);
    case DType::kFloat64: return store_as<double>(p, value);
  }
}

}  // namespace wb
