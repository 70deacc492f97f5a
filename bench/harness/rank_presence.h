// Each rank of a job keeps a one-line file, RUN_DIR/.ranks/rank-R, up to date: its label ("rank 1
// on node1"), pid, the job it belongs to, a heartbeat (wall-clock time, refreshed by a thread of
// its own twice a second, which goes on while the main thread is blocked in MPI or NCCL), the case
// it is in or last finished, and when it last moved on from one case to the next. A killed or
// stopped process stops its heartbeat; a live one keeps it. So when a wait times out or a call
// fails, the rank that noticed can tell the peer at fault (its process gone, stopped, silent, or
// alive but not moving on) from the peers that only wait because of it (alive, in the same case):
// "at fault: rank 1 on node1 (pid 4242) stopped answering 14.2 s ago, in coll/all_reduce/.../1MiB;
// the process is gone; waiting: rank 0 on node0, rank 2 on node1". Needs the run directory on a
// filesystem every rank sees (the virtual cluster's nodes share one; on a cluster, a shared run
// directory); where a peer's file cannot be read the message says nothing about it. A clean end
// removes the files.
#pragma once

#include <chrono>
#include <cstdint>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace wb {

class RankPresence {
 public:
  // `job`: the same token on every rank of this job (rank 0's, shared by the caller), so that a
  // previous job's files in the same run directory are not mistaken for this one's.
  RankPresence(std::string dir, int rank, int size, std::string label, std::string job);
  ~RankPresence();
  RankPresence(const RankPresence&) = delete;
  RankPresence& operator=(const RankPresence&) = delete;

  void entering(const std::string& what);  // a case starts
  void finished(const std::string& what);  // and ends

  // The peers at fault: whose process is gone or stopped (where this rank can see it), whose
  // heartbeat is older than `silent_after`, that are alive but have not moved on for
  // `silent_after` outside the case this rank waits in, or that never registered for this job; one
  // clause each joined by "; ": empty when no peer is at fault.
  std::string silent_peers(std::chrono::milliseconds silent_after = std::chrono::seconds(3)) const;
  // The peers alive and in the case this rank is in: blocked in the same call, because of the
  // peers at fault. Labels joined by ", ".
  std::string waiting_peers(std::chrono::milliseconds silent_after = std::chrono::seconds(3)) const;

 private:
  struct Standing {
    enum Kind { kNothing, kAtFault, kWaiting } kind = kNothing;
    std::string words;  // the clause that names a peer at fault, or a waiting peer's label
  };
  Standing standing_of(int rank, std::int64_t now, const std::string& in, std::chrono::milliseconds silent_after) const;
  std::string peers_that_are(Standing::Kind kind, std::chrono::milliseconds silent_after) const;
  void write_locked();
  std::string path_of(int rank) const;

  std::string dir_;
  int rank_, size_;
  std::string label_, job_;
  std::string space_;  // boot id and PID namespace: where this rank's pid means something
  mutable std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;
  std::string in_, last_finished_;
  std::int64_t progress_ms_ = 0;  // when this rank last entered or finished a case
  std::thread beat_;
};

// The process's presence while a harness runs (null otherwise), for the failure paths: a peer
// note to add to an error message (" [at fault: ...; waiting: ...]"), "" when there is nothing
// to say.
void set_rank_presence(RankPresence* presence);
std::string silent_peers_note();

// The launcher's notices that a process of the job ended (Hydra's SIGUSR1, which the harness
// counts instead of dying of it: mpi_program.cpp). Async-signal-safe.
void note_launcher_notice();
int launcher_notices();

}  // namespace wb
