"""Linkplan's batch command line: ``linkplan solve | validate | schema |
report``.

Exit codes: 0 all fine, 1 some scenarios failed, 2 bad usage or input.
Only ``report`` imports Qt, and only when it runs.
"""

import argparse
import json
import os
import sys
import traceback

from solvers import __version__

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

_SOLVE_EXAMPLE = """example:
  linkplan solve resources/examples/jumbo_10gbe.toml --format table
  linkplan solve scenario.toml --format csv -o results.csv"""
_VALIDATE_EXAMPLE = """example:
  linkplan validate resources/examples/*.toml"""
_REPORT_EXAMPLE = """example:
  linkplan report resources/examples/jumbo_10gbe.toml -o comparison.pdf"""
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
    solve.add_argument("file", help="scenario file (.toml or .json)")
    solve.add_argument("--format", choices=("json", "csv", "table"),
                       default="table", help="output format (default: table)")
    solve.add_argument("-o", "--output", help="write to this file instead "
                       "of standard output (written only on success)")

    validate = add("validate", "Check scenario files without solving them.",
                   _VALIDATE_EXAMPLE)
    validate.add_argument("files", nargs="+", metavar="file")

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


def _solve(args):
    from app.scenario_io import atomic_write
    from solvers.evaluate import evaluate

    scenario = _load_or_report(args.file)
    if scenario is None:
        return EXIT_USAGE
    results = evaluate(scenario)
    text = {"json": results.to_json, "csv": results.to_csv,
            "table": results.to_table}[args.format]()
    if args.output:
        atomic_write(args.output, text.encode("utf-8"))
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _validate(args):
    failures = 0
    for path in args.files:
        if _load_or_report(path) is None:
            failures += 1
        else:
            print(f"{path}: valid")
    return EXIT_USAGE if failures else EXIT_OK


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


_COMMANDS = {"solve": _solve, "validate": _validate, "schema": _schema,
             "report": _report}
