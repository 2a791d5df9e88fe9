"""``make bench``: Linkplan's performance targets, measured.

Each benchmark prints what it measured against its target; the exit code
is 1 when any target is missed. Timings take the best of several runs to
keep other load on the machine out of the numbers, and each timing is
also given as a ratio to a reference measured right after it in the same
run (:func:`reference_seconds`): load that slows the benchmark slows the
reference too, so the ratio shows a regression a loaded machine would
hide in the seconds.

``python -m tests.benchmarks NAME...`` runs the benchmarks whose function
names contain one of the NAMEs (a family at a time on a shared machine).
"""

import sys

from app.paths import DEFAULT_EXAMPLE
from tests.benchmarks import (bench_advise, bench_cluster, bench_columns,
                              bench_evacuation, bench_fleet, bench_gui,
                              bench_host, bench_import, bench_migration,
                              bench_placement, bench_size, bench_startup,
                              bench_sweep, bench_sweep_screen, bench_teaming,
                              bench_wire, bench_workspace)
from tests.benchmarks.timing import best_time

BENCHMARKS = [*bench_wire.BENCHMARKS, *bench_host.BENCHMARKS,
              *bench_migration.BENCHMARKS, *bench_evacuation.BENCHMARKS,
              *bench_teaming.BENCHMARKS, *bench_placement.BENCHMARKS,
              *bench_advise.BENCHMARKS, *bench_sweep.BENCHMARKS,
              *bench_columns.BENCHMARKS,
              *bench_fleet.BENCHMARKS, *bench_sweep_screen.BENCHMARKS,
              *bench_startup.BENCHMARKS, *bench_import.BENCHMARKS,
              *bench_size.BENCHMARKS,
              *bench_gui.BENCHMARKS, *bench_workspace.BENCHMARKS,
              *bench_cluster.BENCHMARKS]

#: Seconds per unit of a timing benchmark; a rate (1/s) is given as the
#: time of one item.
SECONDS = {"s": 1.0, "ms": 1e-3}


def reference_seconds():
    """The reference unit [s]: an in-process sweep of the built-in example
    over 16,384 MTUs on the column path (best of three)."""
    run = bench_columns.sweep_run(
        DEFAULT_EXAMPLE.rsplit("/", 1)[-1], "network.mtu",
        bench_columns.mtu_values(bench_columns.POINTS))
    return best_time(run, 3)


def _ratio(measured, unit):
    """A timing in reference units (measured now), or '' for a benchmark
    that is no timing."""
    if unit in SECONDS:
        seconds = measured * SECONDS[unit]
    elif unit == "1/s":
        seconds = 1.0 / measured
    else:
        return ""
    return f"{seconds / reference_seconds():>10.3g} ref"


def main(names=()):
    failed = 0
    print(f"{'benchmark':58} {'measured':>14} {'target':>14} "
          f"{'':6} {'same run':>14}")
    print(f"{'':58} {'':>14} {'':>14} {'':6} "
          f"(ref: {bench_columns.POINTS:,}-point MTU sweep)")
    for benchmark in BENCHMARKS:
        if names and not any(n in benchmark.__name__ for n in names):
            continue
        measured, unit, target, higher_is_better = benchmark()
        ok = measured >= target if higher_is_better else measured <= target
        failed += not ok
        sign = ">=" if higher_is_better else "<="
        print(f"{benchmark.__doc__.strip():58} {measured:>10.4g} {unit:3} "
              f"{sign} {target:g} {unit:4} {'ok' if ok else 'MISSED':6} "
              f"{_ratio(measured, unit)}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
