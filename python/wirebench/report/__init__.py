"""wirebench's reporter: verdicts against ceilings, and the files CI and people read."""
