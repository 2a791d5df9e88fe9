"""Linkplan's batch command line: ``linkplan new | solve | sweep | advise |
validate | schema | report | accuracy | import``.

Exit codes: 0 all fine; 1 some scenarios of a batch failed (the others were
still processed, failures listed at the end); 2 bad usage, or the only
input is bad. Only ``report`` imports Qt, and only when it runs.
"""

import argparse
import contextlib
import csv
import gc
import io
import json
import os
import sys
import traceback
from pathlib import Path

from app.cli_common import (EXIT_FAILED, EXIT_OK, EXIT_TERMINATED,
                            EXIT_USAGE, _batch_code, _inputs,
                            _load_or_report, _Terminated, _Working,
                            expand_inputs)
from app.output_safety import (OutputRefused, held_input,
                               refuse_device_folder, refuse_inputs_among)
from app.sweep_cli import _sweep
from solvers import __version__

_SOLVE_EXAMPLE = """example:
  linkplan solve resources/examples/jumbo_10gbe.toml --format table
  linkplan solve scenario.toml --format csv -o results.csv
  linkplan solve 'plans/*.toml' plans/site2/ --format csv > all.csv

Several inputs (files, quoted globs, directories of .toml/.json) give one
CSV with one header, JSON Lines (one results object per line), or one table
after another; a bad scenario is reported and the others are still solved
(exit code 1)."""
_VALIDATE_EXAMPLE = """example:
  linkplan validate resources/examples/*.toml
  linkplan validate plans/        (every .toml and .json below plans/)"""
_REPORT_EXAMPLE = """example:
  linkplan report resources/examples/jumbo_10gbe.toml -o comparison.pdf"""
_ADVISE_EXAMPLE = """example:
  linkplan advise resources/examples/seed002_hcibench.toml
  linkplan advise plan.toml --goal min_cpu --format json

Each recommendation is a parameter change (path: old -> new) with its
effect predicted by re-solving the changed scenario, ranked by the gain on
the goal. Goals: max_throughput, min_cpu, min_migration_time,
min_evacuation_time, max_iops, latency_target, min_peak_util (default: the
scenario's goal, else the one its workloads suggest).

  linkplan advise plan.toml --target "storage.iops>=200000"
  linkplan advise plan.toml --target "migration.total_s<=60" --lever streams

--target gives, for each lever (threads_per_disk, vms, disks_per_vm,
sessions_per_path, streams, sessions, concurrency, nic_count, nic_speed,
mtu, transport), the smallest change that meets the target, re-solved, or
"not reachable by this lever" with the best it reached. A unit may follow
the number ("migration.total_s<=2 min")."""
_SWEEP_EXAMPLE = """example:
  linkplan sweep resources/examples/jumbo_10gbe.toml -o mtu_sweep.csv
  linkplan sweep plan.toml --sweep speeds --format jsonl > points.jsonl

The scenario's [[sweeps]] table lists axes (a parameter path with values,
linspace or logspace); mode "product" evaluates every combination, "zip"
the i-th values together. Rows stream out in chunks: memory stays flat. A
progress bar shows on a terminal. With -o the rows go to FILE.partial
first; Ctrl-C keeps that partial file (whole rows only), success renames
it to FILE. Sweeps of 5,000 points or more use every core unless
--processes says otherwise (below that, starting workers costs more than
it saves).

  linkplan sweep plans/ --format parquet -o fleet.parquet
  linkplan sweep plans/ -o fleet.csv --engine dask --scheduler tcp://h:8786

Several files or a directory (a fleet) sweep every variant of each file
into one output, in any format and on either engine."""
_ACCURACY_EXAMPLE = """example:
  linkplan accuracy
  linkplan accuracy --format csv -o accuracy.csv
  linkplan accuracy --backing transfer.lm.throughput_gbps

Solves every published case of resources/validation/ and prints model vs
measured, the error and the verdict per check, the cases the schema cannot
express yet, and per area the cases held and the median and 90th-percentile
absolute error. Exit code 1 when a case misses that is not a known miss.
--backing names the cases that back one metric id (as the app's tooltips
do) and solves nothing."""
_IMPORT_EXAMPLE = """example:
  linkplan import rvtools RVTools_export.xlsx -o estate.toml
  linkplan import esxtop esxtop-batch.csv -o esx01.toml
  linkplan import qemu query-migrate.jsonl query-dirty-rate.json
  linkplan import inventory get-vm.csv -o hosts.toml

Formats: rvtools (.xlsx: one scenario per host, written as
FILE-<host>.toml when there are several), esxtop (esxtop -b batch CSV),
perfmon (perfmon/typeperf PDH-CSV), vcenter (PowerCLI Get-Stat CSV
export), sar (sadf -j JSON), qemu (QMP query-migrate, query-dirty-rate,
query-migrate-parameters, query-memory-size-summary replies), libvirt (virsh domjobinfo, domstats
--dirtyrate output), inventory (one row per VM, .csv or .xlsx: each host's
running VMs as its evacuation), iperf3 (-J), fio (JSON), diskspd (-Rxml),
hcibench (*-res.txt): the measured set-up (linkplan calibrate fits them).
Prints what it took and what it skipped and why; a completed migration
is checked against Linkplan's prediction. Without -o the scenario goes to
standard output. Exit code 0: all imported; 1: part
of the input was bad (listed); 2: nothing could be imported (nothing is
written)."""
_NEW_EXAMPLE = """example:
  linkplan new evacuation -o maintenance.toml
  linkplan new jumbo > jumbo.toml

Starts a scenario from the template of one question (the same as the
app's File > New from Template), with comments saying what to change. An
existing file is never overwritten."""
_SCHEMA_EXAMPLE = """example:
  linkplan schema > scenario.schema.json"""


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors say which command and exit with 2."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 1, "
                                         f"got {text!r}")
    return value


def _link_speed(text):
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= 1600:   # a scenario's NIC speed (models.scenario)
        raise argparse.ArgumentTypeError(
            f"must be a link speed in Gbit/s, > 0 and <= 1600 (10 for "
            f"10 GbE), got {text!r}")
    return value


def build_parser():
    parser = _Parser(
        prog="linkplan",
        description="Capacity planning for the networks of virtualization "
                    "hosts. Without a command, the desktop app opens.",
        epilog="Run 'linkplan COMMAND --help' for a command's options.")
    parser.add_argument("--version", action="version",
                        version=f"linkplan {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND",
                                     parser_class=_Parser)

    def add(name, help_text, example):
        return commands.add_parser(
            name, help=help_text, description=help_text, epilog=example,
            formatter_class=argparse.RawDescriptionHelpFormatter)

    new = add("new", "Start a scenario file from the template of one "
              "question.", _NEW_EXAMPLE)
    new.add_argument("question", choices=_template_names(),
                     help="which question the scenario asks")
    new.add_argument("-o", "--output", help="scenario file to create (.toml "
                     "or .json); default: standard output (TOML)")

    solve = add("solve", "Evaluate a scenario and print its results.",
                _SOLVE_EXAMPLE)
    solve.add_argument("files", nargs="+", metavar="file",
                       help="scenario files (.toml or .json), quoted globs "
                       "or directories")
    solve.add_argument("--format", choices=("json", "csv", "table"),
                       default="table", help="output format (default: table)")
    solve.add_argument("-o", "--output", help="write to this file instead "
                       "of standard output (written only on success)")
    solve.add_argument("--schedule", action="store_true",
                       help="print each evacuation's schedule (one CSV row "
                       "per VM and variant) instead of the metrics")
    solve.add_argument("--processes", type=_positive_int, default=None,
                       help="processes that solve the files (default: 1 "
                       f"below {PARALLEL_FROM_FILES} files, else one per "
                       "core)")

    advise = add("advise", "Recommend parameter changes, each with its "
                 "predicted effect.", _ADVISE_EXAMPLE)
    advise.add_argument("files", nargs="+", metavar="file",
                        help="scenario files, quoted globs or directories")
    advise.add_argument("--goal", help="what to optimise (see below)")
    advise.add_argument("--format", choices=("json", "table"),
                        default="table", help="output format (default: "
                        "table)")
    advise.add_argument("-o", "--output", help="write to this file instead "
                        "of standard output (written only on success)")
    advise.add_argument("--target", metavar="EXPR", help="instead of "
                        "ranking changes, find for each lever the smallest "
                        "change that meets METRIC>=N or METRIC<=N")
    advise.add_argument("--lever", action="append", metavar="NAME",
                        help="with --target, try only this lever "
                        "(repeatable; see below)")

    sweep = add("sweep", "Evaluate a scenario's sweep and stream one row "
                "per point.", _SWEEP_EXAMPLE)
    sweep.add_argument("files", nargs="+", metavar="file",
                       help="scenario file with a [[sweeps]] table; several "
                       "files, quoted globs or directories sweep every "
                       "variant of each (a fleet: columns scenario and "
                       "variant)")
    sweep.add_argument("--sweep", dest="sweep_name", metavar="NAME",
                       help="which sweep (default: the first)")
    sweep.add_argument("--format", choices=("csv", "jsonl", "parquet"),
                       default="csv", help="output format (default: csv; "
                       "parquet: a folder of parts, needs -o)")
    sweep.add_argument("-o", "--output", help="write to this file instead "
                       "of standard output")
    sweep.add_argument("--processes", type=_positive_int, default=None,
                       help="worker processes (default: 1 below 5,000 "
                       "points, else one per core)")
    sweep.add_argument("--engine", choices=("local", "dask"),
                       default="local", help="where the chunks run: local "
                       "processes (default) or a Dask cluster")
    sweep.add_argument("--scheduler", metavar="ADDRESS",
                       help="the Dask scheduler of --engine dask, e.g. "
                       "tcp://10.0.0.5:8786")

    validate = add("validate", "Check scenario files without solving them.",
                   _VALIDATE_EXAMPLE)
    validate.add_argument("files", nargs="+", metavar="file",
                          help="scenario files, quoted globs or directories")

    add("schema", "Print the JSON Schema of scenario files.", _SCHEMA_EXAMPLE)

    accuracy = add("accuracy", "Solve the published validation cases and "
                   "show the models' accuracy.", _ACCURACY_EXAMPLE)
    accuracy.add_argument("--format", choices=("table", "json", "csv"),
                          default="table", help="output format (default: "
                          "table)")
    accuracy.add_argument("--cases", metavar="DIR", help="directory of "
                          "validation files (default: the bundled set)")
    accuracy.add_argument("-o", "--output", help="write to this file "
                          "instead of standard output")
    accuracy.add_argument("--backing", metavar="METRIC", help="only say "
                          "which validated cases back this metric id")

    importer = add("import", "Turn exported inventories and measurements "
                   "into scenarios.", _IMPORT_EXAMPLE)
    from app.importers import FORMATS
    importer.add_argument("format", choices=tuple(FORMATS),
                          help="what the files are")
    importer.add_argument("files", nargs="+", metavar="file",
                          help="files to import")
    importer.add_argument("-o", "--output", help="scenario file to write "
                          "(.toml or .json), atomically")
    importer.add_argument("--link-speed", type=_link_speed, metavar="GBPS",
                          help="esxtop: speed of the uplinks whose 'Link "
                          "Speed (Mb)' counter is not in the file, Gbit/s "
                          "(default: the smallest server Ethernet speed at "
                          "or above the highest rate they carried)")

    from app import calibrate_cli
    calibrate_cli.add_arguments(add(
        "calibrate", "Fit the models to benchmark runs of your own hosts "
        "(iperf3, fio, DiskSpd, HCIBench, QMP).", calibrate_cli.EXAMPLE))

    report = add("report", "Write the PDF comparison report of a scenario.",
                 _REPORT_EXAMPLE)
    report.add_argument("file", help="scenario file (.toml or .json)")
    report.add_argument("-o", "--output", required=True,
                        help="PDF file to write")
    return parser


def main(argv=None):
    """Run the CLI; returns the exit code. Text from files never acts on
    the terminal (app.plain_text), and SIGTERM stops a command as Ctrl-C
    does: workers stopped, temporary files removed."""
    from app.plain_text import EscapedStream

    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = EscapedStream(sys.stdout), \
        EscapedStream(sys.stderr)
    try:
        with _terminated_on_sigterm():
            return _main(argv)
    except _Terminated:
        print("linkplan: terminated", file=sys.stderr)
        return EXIT_TERMINATED
    finally:
        sys.stdout, sys.stderr = streams


@contextlib.contextmanager
def _terminated_on_sigterm():
    """SIGTERM raises :class:`_Terminated` in the block (once: a second
    one ends the process outright), so that its ``finally`` clauses stop
    workers and remove temporary files. Only the main thread can set a
    handler; elsewhere the block runs as it is."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminate(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise _Terminated

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _main(argv):
    args = build_parser().parse_args(argv)
    if args.command is None:
        build_parser().print_help(sys.stderr)
        return EXIT_USAGE
    try:
        clash = _output_among_inputs(args)
        if clash:
            relation = "holds" if os.path.isdir(args.output) else "is"
            print(f"linkplan {args.command}: -o {args.output} {relation} the "
                  f"input {clash}: writing there would lose the scenario; "
                  "choose another output file", file=sys.stderr)
            return EXIT_USAGE
        if getattr(args, "output", None):
            try:
                refuse_device_folder(args.output)
            except OutputRefused as err:
                print(f"linkplan {args.command}: {err}", file=sys.stderr)
                return EXIT_USAGE
        _cap_processes(args)
        return _COMMANDS[args.command](args)
    except KeyboardInterrupt:
        print("linkplan: interrupted", file=sys.stderr)
        return 130
    except ValueError as err:
        from models.scenario import ScenarioError
        if not isinstance(err, ScenarioError):
            return _internal_error(err)
        print(f"linkplan: invalid scenario\n{err}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as err:  # an output that cannot be written
        target = getattr(args, "output", None) or "standard output"
        print(f"linkplan {args.command}: cannot write {target}: "
              f"{err.strerror or err}", file=sys.stderr)
        if not getattr(args, "output", None):
            # what is still buffered must not fail again at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_USAGE
    except Exception as err:  # never show a traceback to a user
        return _internal_error(err)


def _cap_processes(args):
    """``--processes`` of local workers at most the cores this process may
    run on (saying so): more only adds processes that wait, each with its
    own memory."""
    asked = getattr(args, "processes", None)
    if asked is None or getattr(args, "engine", "local") != "local":
        return
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    if asked > cores:
        print(f"linkplan {args.command}: --processes {asked:,} is more than "
              f"the {cores} core(s) here; using {cores}", file=sys.stderr)
        args.processes = cores


def _output_among_inputs(args):
    """The input that ``-o`` names too, if any."""
    output = getattr(args, "output", None)
    if not output or not os.path.exists(output):
        return None
    inputs = getattr(args, "files", None) or [
        f for f in [getattr(args, "file", None)] if f]
    if os.path.isdir(output):   # a folder output replaces what it holds
        return held_input(output, expand_inputs(inputs)[0])
    for path in expand_inputs(inputs)[0]:
        try:
            if os.path.samefile(path, output):
                return path
        except OSError:
            continue  # a missing input is reported by the command
    return None


def _internal_error(err):
    if os.environ.get("LINKPLAN_DEBUG"):
        traceback.print_exc()
    print(f"linkplan: internal error: {type(err).__name__}: {err}\n"
          "Set LINKPLAN_DEBUG=1 for the traceback.", file=sys.stderr)
    return EXIT_FAILED


def _batch(args, handle):
    """Run ``handle(path, scenario)`` on every input; report failures at
    the end. Returns the exit code."""
    paths, failed = _inputs(args)
    for path in paths:
        scenario = _load_or_report(path)
        if scenario is None:
            failed.append(path)
        else:
            with _Working(f"{args.command} {path}"):
                handle(path, scenario)
    return _batch_code(paths, failed)


#: Files from which ``solve`` uses every core (at most 8) by default:
#: below that, a worker's start and its text sent back cost about what it
#: saves.
PARALLEL_FROM_FILES = 64


def _solve(args):
    from models.scenario import ScenarioError
    from solvers.grid import paused_gc

    paths, failed = _inputs(args)
    loaded, parsed = [], {}   # files of equal text parsed once
    with paused_gc():   # loading makes next to no reference cycles
        for path in paths:
            scenario = _load_or_report(path, parsed)
            if scenario is None:
                failed.append(path)
            else:
                loaded.append((path, scenario))
    parts = []
    processes = args.processes or (
        min(os.cpu_count() or 1, 8) if len(loaded) >= PARALLEL_FROM_FILES
        else 1)
    with _collector_frozen(), _Working(
            f"solve ({len(loaded)} files)" if len(loaded) > 1 else
            f"solve {loaded[0][0]}" if loaded else "solve"):
        done = _solve_all(args, [scenario for _, scenario in loaded],
                          processes)
        for (path, _), outcome in zip(loaded, done):
            if isinstance(outcome, ScenarioError):
                print("linkplan: invalid scenario\n"
                      f"{ScenarioError(outcome.problems, source=path)}",
                      file=sys.stderr)
                failed.append(path)
            elif isinstance(outcome, Exception):
                if len(paths) == 1:
                    return _internal_error(outcome)
                print(f"linkplan: {path}: internal error: "
                      f"{_WorkerFailure.describe(outcome)}",
                      file=sys.stderr)
                failed.append(path)
            else:
                # one header for the whole batch (the rows carry the
                # scenario)
                parts.append(outcome if not parts or args.format != "csv"
                             and not args.schedule
                             else outcome.split("\n", 1)[1])
    failed.sort(key=lambda f: paths.index(f) if f in paths else -1)
    code = _batch_code(paths, failed)
    if not parts:
        return code
    if args.format == "json" and len(parts) > 1 and not args.schedule:
        parts = [json.dumps(json.loads(p), ensure_ascii=False,
                            separators=(",", ":")) + "\n" for p in parts]
    _emit(args, "".join(parts) if args.format != "table" or args.schedule
          else "\n".join(parts))
    return code


def _solve_all(args, scenarios, processes):
    """Each scenario's ``solve`` text (CSV with its header), or the
    exception that stopped it, in order. With several processes, forked
    workers (which inherit the loaded scenarios: nothing to send but the
    texts back) solve equal shares of the files while this one solves the
    first; a worker that dies has its share solved here."""
    import multiprocessing

    processes = min(processes, len(scenarios))
    if processes < 2 or "fork" not in \
            multiprocessing.get_all_start_methods():
        return _solve_texts(args, scenarios)
    # imported once here, not once in every worker: what evaluating
    # imports on first use, and the goal seeks' root finder (every
    # migration seeks its dirtying limit; scipy.optimize ~0.3 s of CPU)
    import solvers.evaluate  # noqa: F401
    from solvers import goalseek

    goalseek.root_finder()
    bounds = [len(scenarios) * k // processes for k in range(processes + 1)]
    context = multiprocessing.get_context("fork")
    workers = []
    try:
        for begin, end in zip(bounds[1:-1], bounds[2:]):
            receive, send = context.Pipe(duplex=False)
            worker = context.Process(target=_solve_worker, daemon=True,
                                     args=(send, args, scenarios[begin:end]))
            worker.start()
            send.close()
            workers.append((worker, receive, begin, end))
        texts = _solve_texts(args, scenarios[:bounds[1]])
        for worker, receive, begin, end in workers:
            try:
                texts += [_WorkerFailure.restore(t) for t in receive.recv()]
            except EOFError:   # the worker died: its share is solved here
                texts += _solve_texts(args, scenarios[begin:end])
        return texts
    finally:
        for worker, receive, _, _ in workers:
            receive.close()
            if worker.is_alive():
                worker.terminate()
            worker.join()


def _solve_worker(send, args, scenarios):
    """A forked worker of :func:`_solve_all`: its scenarios' texts into
    ``send`` (Ctrl-C is the parent's to handle)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    send.send([t if isinstance(t, str) else _WorkerFailure.of(t)
               for t in _solve_texts(args, scenarios)])
    send.close()


class _WorkerFailure(Exception):
    """Why a worker could not solve a scenario, in a form that survives
    pickling (a ScenarioError's problems, or any exception as text)."""

    def __init__(self, description, problems=None):
        super().__init__(description, problems)
        self.problems = problems

    def __str__(self):
        return self.args[0]

    @classmethod
    def of(cls, error):
        """The failure that carries ``error``."""
        from models.scenario import ScenarioError

        return cls(cls.describe(error), error.problems
                   if isinstance(error, ScenarioError) else None)

    @staticmethod
    def describe(error):
        """``Type: message`` of an exception (the worker's own type)."""
        if isinstance(error, _WorkerFailure):
            return str(error)
        return f"{type(error).__name__}: {error}"

    @staticmethod
    def restore(outcome):
        """A received outcome as :func:`_solve_texts` gave it (a
        ScenarioError again; other exceptions stay failures)."""
        from models.scenario import ScenarioError

        if isinstance(outcome, _WorkerFailure) and \
                outcome.problems is not None:
            return ScenarioError(outcome.problems)
        return outcome


def _solve_texts(args, scenarios):
    """:func:`_solve_all` in this process."""
    from solvers.evaluate import evaluate_many

    # the files' documents are evaluated together (one call of each
    # analysis for many files); CSV needs their numbers only. Files of
    # equal text are one scenario (_solve), evaluated once.
    numbers_only = args.format == "csv" and not args.schedule
    distinct = list({id(s): s for s in scenarios}.values())
    texts = {id(scenario): results if isinstance(results, Exception)
             else _solve_text(args, results)
             for scenario, results in zip(distinct, evaluate_many(
                 distinct, details=not numbers_only))}
    return [texts[id(scenario)] for scenario in scenarios]


@contextlib.contextmanager
def _collector_frozen():
    """The objects alive now (the loaded documents of a fleet) left out of
    garbage collection for the block: they live through it, and walking
    them at every collection cost about a tenth of a fleet's evaluation
    outside the evacuation scheduler. The collector is also paused: the
    evaluation makes next to no reference cycles (a 1,000-file fleet:
    the same peak memory), yet its full collections over the results it
    builds cost about 7 % of the run."""
    from solvers.grid import paused_gc

    gc.freeze()
    try:
        with paused_gc():
            yield
    finally:
        gc.unfreeze()


def _solve_text(args, results):
    """One scenario's part of the ``solve`` output (CSV with its
    header)."""
    if args.schedule:
        return schedule_csv(results)
    if args.format == "csv":
        return results.to_csv()
    if args.format == "json":
        return results.to_json()
    from app.plain_text import results_as_shown

    # a name's line break would start a line of the table of its own
    return results_as_shown(results).to_table()


#: Columns of ``solve --schedule``, as the schedule trace names them.
SCHEDULE_COLUMNS = ("vm", "group", "destination", "memory_gib", "disk_gib",
                    "start_s", "end_s", "rate_gbps", "rounds", "downtime_s",
                    "converged", "outcome")


def schedule_csv(results):
    """Every evacuation schedule of every variant as CSV text, one row
    per VM in start order (empty cells where a value does not apply; text
    never read as a formula: results.csv_cell)."""
    from solvers import metric_ids
    from solvers.results import csv_cell

    def cell(value):
        return "" if value is None else csv_cell(value) \
            if isinstance(value, str) else value

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["scenario", "scenario_sha256", "variant",
                     "evacuation", *SCHEDULE_COLUMNS])
    for variant in results.variants:
        for key, trace in variant.traces.items():
            if not key.startswith("evacuation.") or \
                    metric_ids.parse(key).key != "schedule":
                continue
            parsed = metric_ids.parse(key)
            for i in range(len(trace["vm"])):
                writer.writerow([cell(results.scenario),
                                 results.scenario_sha256,
                                 cell(variant.name), cell(parsed.name),
                                 *(cell(trace[c][i])
                                   for c in SCHEDULE_COLUMNS)])
    return out.getvalue()


def _emit(args, text):
    """Write a command's whole output: atomically to ``-o`` when given,
    else to standard output."""
    from app.scenario_io import atomic_write

    if args.output:
        atomic_write(args.output, text.encode("utf-8"))
    else:
        sys.stdout.write(text)


def _advise(args):
    from app.target_cli import advise_target, result_part
    from models.scenario import GOALS
    from solvers.advise import advise

    if args.target is not None:
        return advise_target(args, _batch, _emit)
    if args.lever:
        print("linkplan advise: --lever needs --target", file=sys.stderr)
        return EXIT_USAGE
    if args.goal is not None and args.goal not in GOALS:
        print(f"linkplan advise: --goal must be one of {', '.join(GOALS)}, "
              f"got {args.goal!r}", file=sys.stderr)
        return EXIT_USAGE
    parts, bad_goal = [], []

    def advise_one(path, scenario):
        try:
            result = advise(scenario, args.goal)
        except ValueError as err:
            print(f"linkplan: {path}: {err}", file=sys.stderr)
            bad_goal.append(path)
            return
        parts.append(result_part(args.format, path, scenario, result))

    code = _batch(args, advise_one)
    if bad_goal and code == EXIT_OK:
        code = EXIT_USAGE if len(bad_goal) == 1 and not parts \
            else EXIT_FAILED
    if parts:
        _emit(args, "".join(parts) if args.format == "json"
              else "\n".join(parts))
    return code


def _validate(args):
    return _batch(args, lambda path, scenario: print(f"{path}: valid"))


def _accuracy(args):
    from app.validation_io import ValidationDataError, load_cases
    from solvers.accuracy import assess

    try:
        cases = load_cases(args.cases)
    except ValidationDataError as err:
        print(f"linkplan: invalid validation data\n{err}", file=sys.stderr)
        return EXIT_USAGE
    if args.backing is not None:
        return _backing(args, cases)
    report = assess(cases)
    text = {"table": report.to_table, "json": report.to_json,
            "csv": report.to_csv}[args.format]()
    _emit(args, text)
    unexpected = [r.case.id for r in report.results if r.verdict == "miss"]
    if unexpected:
        print(f"linkplan: {len(unexpected)} case(s) miss: "
              f"{', '.join(unexpected)}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _backing(args, cases):
    from solvers.provenance import ProvenanceIndex, quantity
    if quantity(args.backing) is None:
        print(f"linkplan: --backing: not a metric id: {args.backing!r} "
              "(e.g. host.throughput_gbps, transfer.lm.throughput_gbps)",
              file=sys.stderr)
        return EXIT_USAGE
    _emit(args, f"{args.backing}\n"
          f"{ProvenanceIndex(cases)(args.backing).text()}\n")
    return EXIT_OK


def _template_names():
    from app.paths import TEMPLATES
    return tuple(Path(name).stem for name, _ in TEMPLATES)


def _new(args):
    from app.paths import resource_path
    from app.scenario_io import atomic_write, load_scenario, scenario_format
    from models.scenario import ScenarioError, dump_scenario

    template = resource_path("templates", f"{args.question}.toml")
    if not args.output:
        sys.stdout.write(template.read_text(encoding="utf-8"))
        return EXIT_OK
    try:
        fmt = scenario_format(args.output)
    except ScenarioError as err:
        print(f"linkplan new: {err}", file=sys.stderr)
        return EXIT_USAGE
    if os.path.exists(args.output):
        print(f"linkplan new: {args.output} already exists; nothing "
              "overwritten (choose another name or remove it first)",
              file=sys.stderr)
        return EXIT_USAGE
    data = template.read_bytes() if fmt == "toml" else \
        dump_scenario(load_scenario(template), fmt).encode()
    atomic_write(args.output, data)
    print(f"wrote {args.output}")
    return EXIT_OK


def _schema(args):
    from models.scenario import json_schema
    sys.stdout.write(json.dumps(json_schema(), indent=2) + "\n")
    return EXIT_OK


def _report(args):
    scenario = _load_or_report(args.file)
    if scenario is None:
        return EXIT_USAGE
    # Qt embeds the fonts in the order of a hash seeded per process; a
    # fixed seed (read when Qt first hashes) makes reruns byte-identical
    os.environ.setdefault("QT_HASH_SEED", "0")
    from app.report.pdf import (ReportTooLarge, check_report_size,
                                write_report_headless)
    from solvers.advise import advise
    from solvers.evaluate import evaluate
    try:
        check_report_size(scenario)  # at once, before solving
    except ReportTooLarge as err:
        print(f"linkplan report: {err}", file=sys.stderr)
        return EXIT_USAGE
    with _Working(f"report {args.file}"):
        try:
            advice = advise(scenario)
        except ValueError:   # nothing the scenario measures to optimise
            advice = None
        write_report_headless(scenario, evaluate(scenario), args.output,
                              advice)
    print(f"wrote {args.output}")
    return EXIT_OK


def _import(args):
    from app.importers.common import run_import
    from app.importers.migration import format_check, predicted_vs_measured
    from app.scenario_io import atomic_write, scenario_format
    from models.scenario import ScenarioError, dump_scenario

    report = sys.stdout if args.output else sys.stderr
    if args.link_speed is not None and args.format != "esxtop":
        print(f"linkplan import: --link-speed {args.link_speed:g} is for "
              f"esxtop files, not {args.format}; nothing imported",
              file=sys.stderr)
        return EXIT_USAGE
    options = {} if args.link_speed is None else {
        "link_speed_gbps": args.link_speed}
    outcome = run_import(args.format, args.files, **options)
    for line in outcome.result.taken:
        print(f"took: {line}", file=report)
    for line in outcome.result.skipped:
        print(f"skipped: {line}", file=report)
    for line in outcome.problems:
        print(f"linkplan import: {line}", file=sys.stderr)
    scenarios = outcome.scenarios
    if not scenarios:
        print(f"linkplan import: nothing could be imported from "
              f"{', '.join(args.files)}; nothing written", file=sys.stderr)
        return EXIT_USAGE
    for scenario, check in outcome.checks:
        print(format_check(predicted_vs_measured(scenario, check), check),
              file=report)
    try:
        fmt = scenario_format(args.output) if args.output else "toml"
    except ScenarioError as err:
        print(f"linkplan import: {err}", file=sys.stderr)
        return EXIT_USAGE
    if not args.output:
        if len(scenarios) > 1:
            print(f"linkplan import: {len(scenarios)} scenarios (one per "
                  "host): give -o FILE.toml to write them as "
                  "FILE-<host>.toml", file=sys.stderr)
            return EXIT_USAGE
        sys.stdout.write(dump_scenario(scenarios[0], fmt))
    else:
        targets = _import_targets(args.output, scenarios)
        try:
            refuse_inputs_among(targets, args.files)
        except OutputRefused as err:
            print(f"linkplan import: {err}", file=sys.stderr)
            return EXIT_USAGE
        for target, scenario in zip(targets, scenarios):
            atomic_write(target, dump_scenario(scenario, fmt).encode())
            print(f"wrote {target}", file=report)
    return EXIT_FAILED if outcome.problems else EXIT_OK


def _import_targets(output, scenarios):
    """One file per scenario: ``output`` itself, or ``stem-<name>.ext``
    (the name made safe for a file on every platform)."""
    if len(scenarios) == 1:
        return [output]
    from app.output_safety import file_name_part

    path, names = Path(output), set()
    targets = []
    for scenario in scenarios:
        name = file_name_part(scenario.meta.name.split(" ")[0], names)
        names.add(name)
        targets.append(str(path.with_name(f"{path.stem}-{name}"
                                          f"{path.suffix}")))
    return targets


def _calibrate(args):
    from app.calibrate_cli import run
    return run(args)


_COMMANDS = {"new": _new, "solve": _solve, "sweep": _sweep, "advise": _advise,
             "validate": _validate, "schema": _schema, "report": _report,
             "accuracy": _accuracy, "import": _import,
             "calibrate": _calibrate}
