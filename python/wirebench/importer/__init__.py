"""wirebench import: the outputs of the tools sites already run (nccl-tests, OSU) as rows of a run
directory's results.csv (results schema 3: each row declares how it is judged and how it is measured
again, with its provenance in `extra`), then judged like wirebench's own rows."""
