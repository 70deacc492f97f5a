// Checked calls: a failing library call names the call, the file, the line and the library's
// own message. MPI runs as a singleton here (no mpiexec needed with MPICH).
#include <gtest/gtest.h>
#include <mpi.h>

#include "harness/checked_mpi.h"
#include "harness/errors.h"

namespace wb {
namespace {

TEST(CheckedCall, MessageNamesCallFileLineAndLibraryText) {
  const std::string text = describe_failed_call("CUDA", "cudaMalloc(&p, n)", "bench/x.cpp", 42,
                                                "cudaErrorMemoryAllocation: out of memory", 2);
  EXPECT_EQ(text, "CUDA call cudaMalloc(&p, n) failed at bench/x.cpp:42: cudaErrorMemoryAllocation: out of memory (code 2)");
}

TEST(CheckedCall, FailingMpiCallThrowsWithMpisOwnMessage) {
  int rank = -1;
  const int line = __LINE__ + 2;
  try {
    WB_MPI_CHECK(MPI_Comm_rank(MPI_COMM_NULL, &rank));
    FAIL() << "an invalid communicator must fail";
  } catch (const CallError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("MPI call MPI_Comm_rank(MPI_COMM_NULL, &rank) failed at"), std::string::npos) << what;
    EXPECT_NE(what.find("checked_call_test.cpp:" + std::to_string(line)), std::string::npos) << what;
    EXPECT_NE(what.find(mpi_error_string(MPI_ERR_COMM).substr(0, 20)), std::string::npos) << what;
  }
}

TEST(CheckedCall, SucceedingMpiCallPassesQuietly) {
  int rank = -1;
  EXPECT_NO_THROW(WB_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank)));
  EXPECT_EQ(rank, 0);
}

}  // namespace
}  // namespace wb

// MPICH and the UCX modules it loads keep allocations until exit on purpose; under the asan
// preset LeakSanitizer would fail this program for them (also when ctest lists its tests).
extern "C" const char* __lsan_default_options() { return "detect_leaks=0"; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  ::testing::InitGoogleTest(&argc, argv);
  const int result = RUN_ALL_TESTS();
  MPI_Finalize();
  return result;
}
