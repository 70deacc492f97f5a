"""The documents the rules cite most (each rule's source names the rest)."""


ENV_DOCS = "NCCL documentation, Environment Variables (docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html)"
TROUBLESHOOTING = ("NCCL documentation, Troubleshooting "
                   "(docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html)")
VERBS = "libibverbs, enum ibv_wc_status (infiniband/verbs.h; man ibv_poll_cq)"
