"""The history of runs (issue 29): every judged item of every run in one SQLite file, the baselines
made from it, and `wirebench history`. The reporter reads and writes it (--history); it reads
nothing of the reporter but its contracts (meta.json through report.results)."""
