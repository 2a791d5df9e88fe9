"""``make bench``: Linkplan's performance targets, measured.

Each benchmark prints what it measured against its target; the exit code
is 1 when any target is missed. Timings take the best of several runs to
keep other load on the machine out of the numbers.
"""

import sys

from tests.benchmarks import (bench_advise, bench_cluster, bench_evacuation,
                              bench_fleet,
                              bench_gui, bench_host, bench_import,
                              bench_migration, bench_placement, bench_size,
                              bench_startup, bench_sweep, bench_sweep_screen,
                              bench_teaming, bench_wire, bench_workspace)

BENCHMARKS = [*bench_wire.BENCHMARKS, *bench_host.BENCHMARKS,
              *bench_migration.BENCHMARKS, *bench_evacuation.BENCHMARKS,
              *bench_teaming.BENCHMARKS, *bench_placement.BENCHMARKS,
              *bench_advise.BENCHMARKS, *bench_sweep.BENCHMARKS,
              *bench_fleet.BENCHMARKS, *bench_sweep_screen.BENCHMARKS,
              *bench_startup.BENCHMARKS, *bench_import.BENCHMARKS,
              *bench_size.BENCHMARKS,
              *bench_gui.BENCHMARKS, *bench_workspace.BENCHMARKS,
              *bench_cluster.BENCHMARKS]


def main():
    failed = 0
    print(f"{'benchmark':58} {'measured':>14} {'target':>14}")
    for benchmark in BENCHMARKS:
        measured, unit, target, higher_is_better = benchmark()
        ok = measured >= target if higher_is_better else measured <= target
        failed += not ok
        sign = ">=" if higher_is_better else "<="
        print(f"{benchmark.__doc__.strip():58} {measured:>10.4g} {unit:3} "
              f"{sign} {target:g} {unit:4} {'ok' if ok else 'MISSED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
