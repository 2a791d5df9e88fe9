"""Checks of the frozen build, run by ``make smoke`` after ``make dist``:
no shared library shipped twice, one OpenBLAS that numpy and scipy both
call, and ``linkplan --version`` loads no Qt (issue 15, item 7). Prints what
it found and the build's size; exit code 1 when a check fails.

    python -m tests.frozen_build dist/linkplan
"""

import hashlib
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

#: Shared libraries of Qt and its bindings: none may be loaded by
#: ``--version`` (nor by any CLI command, which never imports Qt).
QT_LIBRARIES = re.compile(r"lib(Qt6|pyside6|shiboken6)")

#: OpenBLAS under its names: a system's libopenblas, and the scipy-openblas
#: builds the wheels vendor, LP64 (scipy's, ``libscipy_openblas``) or ILP64
#: (64-bit integers, numpy's PyPI wheel, ``libscipy_openblas64_``). The
#: build ships one: scipy's, which `make dist` builds numpy against
#: (build.spec says why).
OPENBLAS = re.compile(r"lib(scipy_)?openblas(?P<ilp64>64_)?")

#: A command that calls both numpy (every command) and scipy's LAPACK: the
#: importer fits a migration log with scipy.optimize.least_squares.
BOTH_BLAS_USERS = ["import", "qemu", *(
    str(Path(__file__).parent / "data" / "import" / name) for name in
    ("qmp_query_migrate_rounds.jsonl", "qmp_query_dirty_rate.json"))]

#: A file name of a shared library (Linux, macOS, Windows).
SHARED_LIBRARY = re.compile(r"\.(so(\.\d+)*|dylib|dll|pyd)$")


def _sha256(path):
    with open(path, "rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


def shared_libraries(folder):
    """Regular files (not symbolic links) of shared libraries under
    ``folder``."""
    return sorted(path for path in Path(folder).rglob("*")
                  if SHARED_LIBRARY.search(path.name)
                  and path.is_file() and not path.is_symlink())


def identical_copies(folder):
    """Groups of shared libraries shipped more than once (the same bytes,
    under one name or several), as paths relative to ``folder``."""
    by_size = defaultdict(list)
    for path in shared_libraries(folder):
        by_size[path.stat().st_size].append(path)
    groups = []
    for paths in by_size.values():
        if len(paths) > 1:
            by_digest = defaultdict(list)
            for path in paths:
                by_digest[_sha256(path)].append(path)
            groups += [sorted(str(p.relative_to(folder)) for p in same)
                       for same in by_digest.values() if len(same) > 1]
    return sorted(groups)


def openblas_copies(folder):
    """OpenBLAS libraries shipped, as ``{path relative to folder: integer
    interface ('ILP64' or 'LP64')}``."""
    copies = {}
    for path in shared_libraries(folder):
        match = OPENBLAS.match(path.name)
        if match:
            copies[str(path.relative_to(folder))] = (
                "ILP64" if match["ilp64"] else "LP64")
    return copies


def loaded_libraries(command):
    """What the dynamic linker did while ``command`` ran (glibc's
    ``LD_DEBUG=files``): the paths of the shared objects it initialised,
    ``{library name: the objects that needed it}`` and the command's
    result."""
    run = subprocess.run(command, env=dict(os.environ, LD_DEBUG="files"),
                         capture_output=True, text=True, timeout=120)
    loaded, needed_by = [], defaultdict(list)
    for line in run.stderr.splitlines():
        if "calling init:" in line:
            loaded.append(line.split("calling init:", 1)[1].strip())
        elif "needed by" in line:
            needed = re.search(r"file=(\S+) .*needed by (\S+)", line)
            needed_by[Path(needed[1]).name].append(needed[2])
    return loaded, dict(needed_by), run


def _check_one_openblas_serves_both(folder):
    """Failures unless a command that calls numpy and scipy's LAPACK
    loads one OpenBLAS, and numpy's core module is what needs it."""
    loaded, needed_by, run = loaded_libraries(
        [str(folder / "linkplan"), *BOTH_BLAS_USERS])
    if run.returncode != 0:
        return [f"linkplan {' '.join(BOTH_BLAS_USERS)} failed "
                f"({run.returncode})"]
    openblas = [path for path in loaded if OPENBLAS.match(Path(path).name)]
    users = [user for path in openblas
             for user in needed_by.get(Path(path).name, [])]
    print(f"linkplan {BOTH_BLAS_USERS[0]} loaded {len(openblas)} OpenBLAS, "
          f"needed by {', '.join(Path(user).name for user in users)}")
    failures = []
    if len(openblas) != 1:
        failures.append(f"{len(openblas)} OpenBLAS loaded by one command: "
                        + ", ".join(openblas))
    if not any("_multiarray_umath" in user for user in users):
        failures.append("numpy's _multiarray_umath does not link the "
                        "shipped OpenBLAS")
    return failures


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    folder = Path(argv[0] if argv else "dist/linkplan")
    failures = []
    size = sum(p.stat().st_size for p in folder.rglob("*")
               if p.is_file() and not p.is_symlink())
    print(f"frozen build: {size / 2**20:.0f} MiB in {folder}")

    twice = identical_copies(folder)
    for group in twice:
        failures.append("shipped more than once: " + ", ".join(group))
    openblas = openblas_copies(folder)
    for path, interface in sorted(openblas.items()):
        print(f"OpenBLAS {interface}: {path} "
              f"({(folder / path).stat().st_size / 2**20:.1f} MiB)")
    if len(openblas) != 1:
        failures.append(f"{len(openblas)} OpenBLAS libraries shipped, not "
                        "one (make dist builds numpy against scipy's)")

    if sys.platform.startswith("linux"):
        failures += _check_one_openblas_serves_both(folder)
        loaded, _, run = loaded_libraries([str(folder / "linkplan"),
                                           "--version"])
        if run.returncode != 0 or not run.stdout.strip():
            failures.append(f"--version failed ({run.returncode})")
        elif not any("libpython" in path for path in loaded):
            # LD_DEBUG not honoured: the check below would prove nothing
            failures.append("LD_DEBUG=files listed no libpython: cannot "
                            "tell which libraries --version loads")
        qt = [path for path in loaded if QT_LIBRARIES.search(path)]
        if qt:
            failures.append("--version loaded Qt: " + ", ".join(qt))
        print(f"--version: {run.stdout.strip()!r}, {len(loaded)} shared "
              f"objects loaded, {len(qt)} of Qt")
    else:
        print("--version's libraries not checked (LD_DEBUG is glibc's)")

    for failure in failures:
        print(f"FAILED: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
