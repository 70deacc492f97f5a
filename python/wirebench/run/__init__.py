"""`wirebench run [SUITE]`: discover, measure, judge, in one run directory."""
