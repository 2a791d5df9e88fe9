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


def median_time(function, repeat=7):
    """Median wall time of ``repeat`` calls [s]."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]
