"""What every part of wirebench reads the same way, below them all: the contracts of schema/
(`schema`), input files read as UTF-8 or refused naming file and line (`input_files`), and a run
directory's meta.json (`run_meta`). It imports nothing else of wirebench."""
