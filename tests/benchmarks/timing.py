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


def peak_rss_kib():
    """This process's own peak resident set [KiB]: VmHWM of
    /proc/self/status. Not ``ru_maxrss``, which Linux carries across
    exec: a child started by a big benchmark process would report its
    parent's peak."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return float(line.split()[1])
    raise OSError("no VmHWM in /proc/self/status")
