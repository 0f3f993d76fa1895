"""Pure rules of the three games: no I/O, no clock, no randomness in folds."""
