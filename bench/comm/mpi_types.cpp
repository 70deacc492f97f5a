#include "comm/mpi_types.h"

#include <array>

#include "harness/checked_mpi.h"
#include "harness/errors.h"

namespace wb {
namespace {

template <DType kType, RedOp kOp>
void reduce_16bit(void* in, void* inout, int* length, MPI_Datatype*) {
  auto* a = static_cast<unsigned char*>(in);
  auto* b = static_cast<unsigned char*>(inout);
  for (int i = 0; i < *length; ++i) {
    const double x = load_element(kType, a + 2 * i);
    const double y = load_element(kType, b + 2 * i);
    double r = 0;
    switch (kOp) {
      case RedOp::kSum: r = x + y; break;
      case RedOp::kProd: r = x * y; break;
      case RedOp::kMax: r = x > y ? x : y; break;
      case RedOp::kMin: r = x < y ? x : y; break;
      case RedOp::kAvg: r = x + y; break;  // never made: mpi_op refuses avg
    }
    store_element(kType, b + 2 * i, r);
  }
}

struct SixteenBitTypes {
  MPI_Datatype half = MPI_DATATYPE_NULL, bfloat = MPI_DATATYPE_NULL;
  std::array<MPI_Op, 4> half_ops{}, bfloat_ops{};
};

template <DType kType>
std::array<MPI_Op, 4> make_ops() {
  std::array<MPI_Op, 4> ops{};
  WB_MPI_CHECK(MPI_Op_create(&reduce_16bit<kType, RedOp::kSum>, 1, &ops[0]));
  WB_MPI_CHECK(MPI_Op_create(&reduce_16bit<kType, RedOp::kProd>, 1, &ops[1]));
  WB_MPI_CHECK(MPI_Op_create(&reduce_16bit<kType, RedOp::kMax>, 1, &ops[2]));
  WB_MPI_CHECK(MPI_Op_create(&reduce_16bit<kType, RedOp::kMin>, 1, &ops[3]));
  return ops;
}

const SixteenBitTypes& sixteen_bit();

int free_sixteen_bit(MPI_Comm, int, void*, void*) {
  SixteenBitTypes t = sixteen_bit();
  MPI_Type_free(&t.half);
  MPI_Type_free(&t.bfloat);
  for (MPI_Op& op : t.half_ops) MPI_Op_free(&op);
  for (MPI_Op& op : t.bfloat_ops) MPI_Op_free(&op);
  return MPI_SUCCESS;
}

// Created on first use (after MPI_Init) and kept until MPI_Finalize.
const SixteenBitTypes& sixteen_bit() {
  static const SixteenBitTypes types = [] {
    SixteenBitTypes t;
    WB_MPI_CHECK(MPI_Type_contiguous(2, MPI_BYTE, &t.half));
    WB_MPI_CHECK(MPI_Type_commit(&t.half));
    WB_MPI_CHECK(MPI_Type_contiguous(2, MPI_BYTE, &t.bfloat));
    WB_MPI_CHECK(MPI_Type_commit(&t.bfloat));
    t.half_ops = make_ops<DType::kFloat16>();
    t.bfloat_ops = make_ops<DType::kBfloat16>();
    // Freed when MPI_Finalize deletes MPI_COMM_SELF's attributes (the MPI-standard hook for it),
    // so MPICH does not report them as leaked.
    int keyval = MPI_KEYVAL_INVALID;
    WB_MPI_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &free_sixteen_bit, &keyval, nullptr));
    WB_MPI_CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr));
    return t;
  }();
  return types;
}

std::size_t op_index(RedOp op) { return static_cast<std::size_t>(op); }

}  // namespace

MPI_Datatype mpi_datatype(DType type) {
  switch (type) {
    case DType::kInt8: return MPI_INT8_T;
    case DType::kUint8: return MPI_UINT8_T;
    case DType::kInt32: return MPI_INT32_T;
    case DType::kUint32: return MPI_UINT32_T;
    case DType::kInt64: return MPI_INT64_T;
    case DType::kUint64: return MPI_UINT64_T;
    case DType::kFloat16: return sixteen_bit().half;
    case DType::kBfloat16: return sixteen_bit().bfloat;
    case DType::kFloat32: return MPI_FLOAT;
    case DType::kFloat64: return MPI_DOUBLE;
  }
  return MPI_BYTE;
}

MPI_Op mpi_op(DType type, RedOp op) {
  if (op == RedOp::kAvg) throw CallError("MPI has no avg reduction (wb-coll writes SKIP rows for it on MPI)");
  if (type == DType::kFloat16) return sixteen_bit().half_ops[op_index(op)];
  if (type == DType::kBfloat16) return sixteen_bit().bfloat_ops[op_index(op)];
  switch (op) {
    case RedOp::kSum: return MPI_SUM;
    case RedOp::kProd: return MPI_PROD;
    case RedOp::kMax: return MPI_MAX;
    case RedOp::kMin: return MPI_MIN;
    case RedOp::kAvg: break;
  }
  return MPI_SUM;
}

}  // namespace wb
