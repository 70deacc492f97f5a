"""wirebench's Python: the reporter (report: verdicts against ceilings and the files CI and people
read), the suite runner (run: `wirebench run`) and Slurm's side (slurm: `wirebench check`,
`wirebench slurm`). run and slurm use report; report uses neither (tests/cli/test_source_layers.py)."""
