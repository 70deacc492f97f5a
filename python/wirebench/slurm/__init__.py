"""wirebench check and wirebench slurm: act on the verdict through Slurm (docs/slurm-health.md)."""
