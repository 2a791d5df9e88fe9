"""Checks of the frozen build, run by ``make smoke`` after ``make dist``:
no shared library shipped twice (OpenBLAS included), and ``linkplan
--version`` loads no Qt (issue 15, item 7). Prints what it found; exit code
1 when a check fails.

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

#: OpenBLAS by integer interface: numpy's wheel vendors an ILP64 build
#: (64-bit integers, ``scipy_openblas64_``), scipy's an LP64 one; each
#: serves only its own package (build.spec says why), so one of each.
OPENBLAS = re.compile(r"lib(scipy_)?openblas(?P<ilp64>64_)?")

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
    """OpenBLAS libraries shipped, by interface ('ILP64', 'LP64')."""
    copies = defaultdict(list)
    for path in shared_libraries(folder):
        match = OPENBLAS.match(path.name)
        if match:
            copies["ILP64" if match["ilp64"] else "LP64"].append(
                str(path.relative_to(folder)))
    return dict(copies)


def loaded_libraries(command):
    """Paths of the shared objects the dynamic linker initialised while
    ``command`` ran (glibc's ``LD_DEBUG=files``), and its result."""
    run = subprocess.run(command, env=dict(os.environ, LD_DEBUG="files"),
                         capture_output=True, text=True, timeout=120)
    loaded = [line.split("calling init:", 1)[1].strip()
              for line in run.stderr.splitlines() if "calling init:" in line]
    return loaded, run


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
    for interface, paths in sorted(openblas.items()):
        megabytes = sum((folder / p).stat().st_size for p in paths) / 2**20
        print(f"OpenBLAS {interface}: {', '.join(paths)} ({megabytes:.1f} "
              "MiB)")
        if len(paths) > 1:
            failures.append(f"OpenBLAS {interface} shipped {len(paths)} "
                            "times")

    if sys.platform.startswith("linux"):
        loaded, run = loaded_libraries([str(folder / "linkplan"),
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
