"""Best-of-N wall-clock timing for the benchmarks."""

import time


def best_time(function, repeat=5):
    """Smallest wall time of ``repeat`` calls [s]."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best
