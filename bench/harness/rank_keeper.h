// A keeper process for each rank that Hydra starts beside others on one node. Hydra's proxy kills
// every process it started on a node as soon as one of them is killed by a signal (pmip.c: a
// downstream WIFSIGNALED -> SIGKILL to all; -disable-auto-cleanup does not change it), so a killed
// rank took its node-mates with it: their heartbeats stopped with the victim's, and the survivors
// on other nodes could not tell the victim from the casualties. With a keeper the proxy's child is
// the keeper, which waits for the rank and exits with 128 + the signal when the rank is killed (an
// exit, not a signal, for the proxy), so the node-mates live on and name the victim.
#pragma once

namespace wb {

// Forks when this process is one of several ranks under one Hydra proxy (PMI_FD or PMI_PORT and
// MPI_LOCALNRANKS > 1; srun's own tasks are not): the parent becomes the keeper and never returns; the child
// returns and goes on as the rank. Elsewhere, or if fork fails, returns at once. Call first in
// main, before MPI, CUDA or any thread.
void keep_rank_process_if_hydra_would_take_its_node_mates();

}  // namespace wb
