"""What every CLI command shares (``app.cli`` parses and dispatches, a
command module runs): exit codes, SIGTERM, reading the inputs, batch
exit codes, and saying on stderr that a long run is still working."""

import glob
import sys
from pathlib import Path

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class _Terminated(BaseException):
    """SIGTERM arrived (a BaseException, as KeyboardInterrupt is, so that
    no ``except Exception`` on the way takes it for a failure)."""


#: Exit code after SIGTERM (128 + 15, as the shell reports it).
EXIT_TERMINATED = 143


def _load_or_report(path, parsed=None):
    from app.scenario_io import load_scenario
    from models.scenario import ScenarioError
    try:
        return load_scenario(path, parsed)
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


def _inputs(args):
    """The input paths, and the arguments that named none (reported)."""
    paths, problems = expand_inputs(args.files)
    for problem in problems:
        print(f"linkplan: {problem}", file=sys.stderr)
    return paths, list(problems)


def _batch_code(paths, failed):
    """Exit code of a batch command: 2 when its only input is bad, 1 when
    some are (listed), else 0."""
    if not failed:
        return EXIT_OK
    inputs = len(paths) + sum(f not in paths for f in failed)
    if inputs == 1:
        return EXIT_USAGE  # the only input is bad
    print(f"linkplan: {len(failed)} of {inputs} inputs "
          f"failed: {', '.join(failed)}", file=sys.stderr)
    return EXIT_FAILED


class _Working:
    """Says on stderr what is still running once it has taken more than
    PROGRESS_AFTER_S, then every PROGRESS_EVERY_S, so that a long run does
    not look hung (sweeps on a terminal have their own bar)."""

    def __init__(self, what):
        self.what, self.timer, self.done = what, None, False

    def __enter__(self):
        import time
        self.start = time.monotonic()
        self._schedule(PROGRESS_AFTER_S)
        return self

    def _schedule(self, delay):
        import threading
        self.timer = threading.Timer(delay, self._tell)
        self.timer.daemon = True
        self.timer.start()

    def _tell(self):
        import time
        if self.done:
            return
        print(f"linkplan: still working on {self.what} "
              f"({time.monotonic() - self.start:.0f} s)", file=sys.stderr,
              flush=True)
        self._schedule(PROGRESS_EVERY_S)

    def __exit__(self, *exc):
        self.done = True
        self.timer.cancel()


#: A command quiet for longer than this says what it is doing [s].
PROGRESS_AFTER_S = 2.0
PROGRESS_EVERY_S = 10.0


class _Progress:
    """A one-line progress bar on a terminal's stderr."""

    def __init__(self, plan):
        import time
        self.clock, self.total = time.monotonic, plan.total
        self.start = self.clock()
        # its carriage returns are its own (not escaped as a file's are)
        self.stream = getattr(sys.stderr, "raw", sys.stderr)

    def update(self, points):
        elapsed = self.clock() - self.start
        left = elapsed * (self.total - points) / max(points, 1)
        filled = int(30 * points / self.total)
        self.stream.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] "
                          f"{points:,}/{self.total:,} points, "
                          f"{elapsed:.1f} s, ~{left:.0f} s left ")
        self.stream.flush()

    def done(self):
        self.stream.write("\n")
