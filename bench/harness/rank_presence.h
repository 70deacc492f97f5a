// Each rank of a job keeps a one-line file, RUN_DIR/.ranks/rank-R, up to date: its label ("rank 1
// on node1"), pid, the job it belongs to, a heartbeat (wall-clock time, refreshed by a thread of
// its own twice a second) and the case it is in or last finished. A killed or stopped process
// stops its heartbeat. So when a wait times out or a call fails, the rank that noticed can name
// the peer at fault, not only itself: "rank 1 on node1 (pid 4242) stopped answering 14.2 s ago,
// in coll/all_reduce/.../1MiB". Needs the run directory on a filesystem every rank sees (the
// virtual cluster's nodes share one; on a cluster, a shared run directory); where a peer's file
// cannot be read the message says nothing about it. A clean end removes the files.
#pragma once

#include <chrono>
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

  // The peers whose heartbeat is older than `silent_after`, whose process is gone (where this rank
  // can see it), or that never registered for this job; one clause each joined by "; ": empty
  // when every peer is alive.
  std::string silent_peers(std::chrono::milliseconds silent_after = std::chrono::seconds(3)) const;

 private:
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
  std::thread beat_;
};

// The process's presence while a harness runs (null otherwise), for the failure paths: a peer
// note to add to an error message, "" when there is nothing to say.
void set_rank_presence(RankPresence* presence);
std::string silent_peers_note();

}  // namespace wb
