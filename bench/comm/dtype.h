// Element types of the collectives, with nccl-tests' names, and host conversions so that fill
// and check values (small whole numbers, exact in every type) can be written and read in any type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wb {

enum class DType { kInt8, kUint8, kInt32, kUint32, kInt64, kUint64, kFloat16, kBfloat16, kFloat32, kFloat64 };
// kAvg: NCCL's ncclAvg (MPI has none).
enum class RedOp { kSum, kProd, kMax, kMin, kAvg };

struct DTypeInfo {
  DType type;
  const char* name;      // the `dtype` column: int8 ... float64, bfloat16
  std::size_t size;
  double exact_limit;    // the largest whole number the type holds exactly (and without overflow)
};

const DTypeInfo& info(DType type);
// Accepts wb names and nccl-tests' aliases (half, float, double, bf16, fp16...). Throws UsageError.
DType parse_dtype(std::string_view text);
std::vector<DType> all_dtypes();

std::string_view to_string(RedOp op);
RedOp parse_redop(std::string_view text);  // sum, prod, max, min, avg; throws UsageError

// One element at `p` as a double, and back (rounded to nearest for the 16-bit floats).
double load_element(DType type, const void* p);
void store_element(DType type, void* p, double value);

}  // namespace wb
