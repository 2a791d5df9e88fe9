"""Linkplan's batch command line: ``linkplan solve | advise | validate |
schema | report``.

Exit codes: 0 all fine; 1 some scenarios of a batch failed (the others were
still processed, failures listed at the end); 2 bad usage, or the only
input is bad. Only ``report`` imports Qt, and only when it runs.
"""

import argparse
import glob
import json
import os
import sys
import traceback
from pathlib import Path

from solvers import __version__

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

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
the goal. Goals: max_throughput, min_cpu, min_migration_time, max_iops,
latency_target, min_peak_util (default: the scenario's goal, else the one
its workloads suggest)."""
_SCHEMA_EXAMPLE = """example:
  linkplan schema > scenario.schema.json"""


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors say which command and exit with 2."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


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

    solve = add("solve", "Evaluate a scenario and print its results.",
                _SOLVE_EXAMPLE)
    solve.add_argument("files", nargs="+", metavar="file",
                       help="scenario files (.toml or .json), quoted globs "
                       "or directories")
    solve.add_argument("--format", choices=("json", "csv", "table"),
                       default="table", help="output format (default: table)")
    solve.add_argument("-o", "--output", help="write to this file instead "
                       "of standard output (written only on success)")

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

    validate = add("validate", "Check scenario files without solving them.",
                   _VALIDATE_EXAMPLE)
    validate.add_argument("files", nargs="+", metavar="file",
                          help="scenario files, quoted globs or directories")

    add("schema", "Print the JSON Schema of scenario files.", _SCHEMA_EXAMPLE)

    report = add("report", "Write the PDF comparison report of a scenario.",
                 _REPORT_EXAMPLE)
    report.add_argument("file", help="scenario file (.toml or .json)")
    report.add_argument("-o", "--output", required=True,
                        help="PDF file to write")
    return parser


def main(argv=None):
    """Run the CLI; returns the exit code."""
    args = build_parser().parse_args(argv)
    if args.command is None:
        build_parser().print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return _COMMANDS[args.command](args)
    except KeyboardInterrupt:
        print("linkplan: interrupted", file=sys.stderr)
        return 130
    except Exception as err:  # never show a traceback to a user
        if os.environ.get("LINKPLAN_DEBUG"):
            traceback.print_exc()
        print(f"linkplan: internal error: {type(err).__name__}: {err}\n"
              "Set LINKPLAN_DEBUG=1 for the traceback.", file=sys.stderr)
        return EXIT_FAILED


def _load_or_report(path):
    from app.scenario_io import load_scenario
    from models.scenario import ScenarioError
    try:
        return load_scenario(path)
    except ScenarioError as err:
        print(f"linkplan: invalid scenario\n{err}", file=sys.stderr)
        return None


def expand_inputs(arguments):
    """Scenario paths from files, globs and directories, in order.

    Returns
    -------
    paths : list of str
    problems : list of str
        Arguments that matched nothing, as messages.
    """
    paths, problems = [], []
    for argument in arguments:
        if Path(argument).is_dir():
            found = sorted(str(p) for p in Path(argument).rglob("*")
                           if p.suffix.lower() in (".toml", ".json"))
            what = "no .toml or .json file below this directory"
        elif glob.has_magic(argument):
            found = sorted(glob.glob(argument, recursive=True))
            what = "no file matches this pattern"
        else:
            found, what = [argument], ""
        if not found:
            problems.append(f"{argument}: {what}")
        paths.extend(p for p in found if p not in paths)
    return paths, problems


def _batch(args, handle):
    """Run ``handle(path, scenario)`` on every input; report failures at
    the end. Returns the exit code."""
    paths, problems = expand_inputs(args.files)
    for problem in problems:
        print(f"linkplan: {problem}", file=sys.stderr)
    failed = list(problems)
    for path in paths:
        scenario = _load_or_report(path)
        if scenario is None:
            failed.append(path)
        else:
            handle(path, scenario)
    if not failed:
        return EXIT_OK
    if len(paths) + len(problems) == 1:
        return EXIT_USAGE  # the only input is bad
    print(f"linkplan: {len(failed)} of {len(paths) + len(problems)} inputs "
          f"failed: {', '.join(failed)}", file=sys.stderr)
    return EXIT_FAILED


def _solve(args):
    from app.scenario_io import atomic_write
    from solvers.evaluate import evaluate

    parts = []

    def solve_one(path, scenario):
        results = evaluate(scenario)
        if args.format == "csv":
            text = results.to_csv()
            # one header for the whole batch: the rows carry the scenario
            parts.append(text if not parts else text.split("\n", 1)[1])
        elif args.format == "json":
            parts.append(results.to_json())
        else:
            parts.append(results.to_table())

    code = _batch(args, solve_one)
    if not parts:
        return code
    if args.format == "json" and len(parts) > 1:  # JSON Lines
        parts = [json.dumps(json.loads(p), ensure_ascii=False,
                            separators=(",", ":")) + "\n" for p in parts]
    text = "".join(parts) if args.format != "table" else "\n".join(parts)
    if args.output:
        atomic_write(args.output, text.encode("utf-8"))
    else:
        sys.stdout.write(text)
    return code


def _advise(args):
    from app.scenario_io import atomic_write
    from models.scenario import GOALS
    from solvers.advise import advise

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
        if args.format == "json":
            parts.append(json.dumps(
                {"file": path, **result.to_dict(scenario)},
                ensure_ascii=False, separators=(",", ":")) + "\n")
        else:
            parts.append(f"File: {path}\n" + result.to_table(scenario))

    code = _batch(args, advise_one)
    if bad_goal and code == EXIT_OK:
        code = EXIT_USAGE if len(bad_goal) == 1 and not parts \
            else EXIT_FAILED
    if parts:
        text = "".join(parts) if args.format == "json" else "\n".join(parts)
        if args.output:
            atomic_write(args.output, text.encode("utf-8"))
        else:
            sys.stdout.write(text)
    return code


def _validate(args):
    return _batch(args, lambda path, scenario: print(f"{path}: valid"))


def _schema(args):
    from models.scenario import json_schema
    sys.stdout.write(json.dumps(json_schema(), indent=2) + "\n")
    return EXIT_OK


def _report(args):
    scenario = _load_or_report(args.file)
    if scenario is None:
        return EXIT_USAGE
    from app.report.pdf import write_report_headless
    from solvers.evaluate import evaluate
    write_report_headless(scenario, evaluate(scenario), args.output)
    print(f"wrote {args.output}")
    return EXIT_OK


_COMMANDS = {"solve": _solve, "advise": _advise, "validate": _validate,
             "schema": _schema, "report": _report}
