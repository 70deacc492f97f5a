// Waiting on MPI requests with a deadline: polls MPI_Testall instead of blocking in MPI_Waitall,
// so a dead or stuck peer becomes a TimeoutError with a message instead of a hang.
#pragma once

#include <mpi.h>

#include <chrono>
#include <functional>
#include <span>
#include <string>

namespace wb {

// How a wait spends its time. kSpin polls (yielding now and then): for the data plane, whose waits
// are timed. kPatient polls for a millisecond, then naps 50 us between polls: for the harness's own
// waits, where a rank idle through another pair's measurement would otherwise take CPU from it
// (more ranks than cores: a shaped 1 Gbit/s stream measured 80% instead of 96%).
enum class WaitStyle { kSpin, kPatient };

// `what` is called only on timeout, to build the message ("receive of 8 bytes from rank 1").
// The requests are completed in order, each polled alone (the fastest way found to wait on a window
// of messages without blocking in MPI: mpi_deadline_wait.cpp).
void wait_all_with_deadline(std::span<MPI_Request> requests, std::chrono::milliseconds timeout,
                            const std::function<std::string()>& what, WaitStyle style = WaitStyle::kSpin);

// The same with MPI_Testsome: `completed(i)` is called as soon as request i is seen complete.
void wait_each_with_deadline(std::span<MPI_Request> requests, std::chrono::milliseconds timeout,
                             const std::function<void(std::size_t)>& completed,
                             const std::function<std::string()>& what);

// The TimeoutError every deadline wait throws: "<rank label>: <what> did not complete within
// 3.0 s; <hint>". Shared by the MPI and CUDA stream waits so the wording is one.
[[noreturn]] void throw_timeout(const std::string& what, std::chrono::milliseconds timeout,
                                const std::string& hint);

// Ends the whole job with `code` after this rank's last message. MPI_Abort races the launcher's
// forwarding of the rank's stderr: Hydra can tear the job down before the message reaches the
// console (seen in CI with Debian's MPICH, from the watchdog and from a failed run alike), so the
// message is flushed and given a moment to pass first. _Exit if MPI_Abort returns.
[[noreturn]] void abort_job_after_message(int code);

// A private duplicate of `parent` that returns errors instead of aborting, with its rank and size.
MPI_Comm duplicate_returning_errors(MPI_Comm parent, int& rank, int& size);

// "rank 2 on node-b" for messages; set once MPI is up.
void set_rank_label(std::string label);
const std::string& rank_label();

}  // namespace wb
