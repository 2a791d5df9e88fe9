"""Best-of-N wall-clock timing for the benchmarks, and peak memory of a
process."""

import subprocess
import sys
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


#: Runs a command and prints, on a last line of its own, the peak
#: resident set of the command's largest process [KiB]. This launcher is
#: a small fresh process: a command started straight from the (large)
#: benchmark process would report at least the benchmark's own peak,
#: which Linux carries into ``ru_maxrss`` across fork and exec.
_LAUNCHER = """
import resource, subprocess, sys
code = subprocess.run(sys.argv[1:]).returncode
print("\\n%d" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(code)
"""


def run_with_peak_rss(command, **kwargs):
    """Run ``command`` with its output captured as text
    (``subprocess.run``'s keywords); the completed process and the peak
    resident set of its largest process (itself or one it started) [MB]."""
    process = subprocess.run([sys.executable, "-c", _LAUNCHER, *command],
                             capture_output=True, text=True, **kwargs)
    output, _, peak = process.stdout.rstrip("\n").rpartition("\n")
    process.stdout = output
    return process, int(peak) / 1024
