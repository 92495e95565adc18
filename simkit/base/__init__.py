"""The base every layer stands on: cards and their notation, configs, counter-based
random numbers, the jit options and kernel cache, statistics, who led a game (``drama``),
file reading and the one error type for bad input.  Nothing here imports from above it."""
