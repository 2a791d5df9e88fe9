"""Where the CLI may write: outputs never destroy what Linkplan did not
write (issue 38, item 1).

A folder output (a Parquet sweep) replaces its target whole, so an existing
folder is taken only when it is an earlier output of the same kind that
Linkplan wrote (it holds :data:`MARKER` and nothing else Linkplan would not
put there), and never when an input lies inside it. File names derived
from data (one file per imported host) are made safe on every platform and
checked against every input and against each other before anything is
written.
"""

import json
import os
import re
from pathlib import Path

#: The file that marks a folder as a Linkplan output (JSON). Parquet
#: readers (pyarrow, Spark, Dask) skip names starting with ``_`` or ``.``;
#: no .json or .toml ending, so that a folder of scenarios swept into a
#: folder below it never takes the marker for a scenario.
MARKER = "_linkplan_output"

#: Names Windows reserves in every folder, whatever the extension
#: (Microsoft, "Naming Files, Paths, and Namespaces").
WINDOWS_RESERVED = frozenset(
    ["CON", "PRN", "AUX", "NUL"] + [f"COM{i}" for i in range(1, 10)]
    + [f"LPT{i}" for i in range(1, 10)])

#: The longest part of a file name taken from data [characters].
NAME_PART_CHARACTERS = 60


class OutputRefused(ValueError):
    """Writing the asked output could lose data that is not Linkplan's;
    the message says what and why, for the user."""


def file_name_part(text, taken=()):
    """A piece of a file name from free text, valid on Linux, macOS and
    Windows: only ``[A-Za-z0-9_.-]`` (``:``, slashes, spaces and control
    characters become ``_``), no leading or trailing dot, no reserved
    device name (``CON``, ``nul.txt``, ``COM1``...), at most
    :data:`NAME_PART_CHARACTERS` characters, and unique against ``taken``
    without regard to case (macOS and Windows fold it)."""
    base = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(text)).strip("._-")
    base = base[:NAME_PART_CHARACTERS].rstrip(".") or "item"
    if base.split(".")[0].upper() in WINDOWS_RESERVED:
        base = f"_{base}"
    folded = {t.casefold() for t in taken}
    name, number = base, 2
    while name.casefold() in folded:
        name, number = f"{base}-{number}", number + 1
    return name


def same_place(first, second):
    """Whether two paths name the same file: the same inode when both
    exist, else the same absolute path without regard to case (a file
    about to be created on a case-folding file system)."""
    try:
        return os.path.samefile(first, second)
    except OSError:
        pass
    return os.path.normcase(os.path.abspath(first)).casefold() == \
        os.path.normcase(os.path.abspath(second)).casefold()


def refuse_inputs_among(targets, inputs):
    """OutputRefused when two of ``targets`` are one file, or one of them
    is one of ``inputs``: nothing may be written then."""
    for index, target in enumerate(targets):
        for source in inputs:
            if same_place(target, source):
                raise OutputRefused(
                    f"{target} is the input {source}: writing there would "
                    "lose it; nothing written (choose another -o name)")
        for other in targets[:index]:
            if same_place(target, other):
                raise OutputRefused(
                    f"{other} and {target} would be the same file; nothing "
                    "written (choose another -o name)")


def held_input(folder, inputs):
    """The first of ``inputs`` that lies inside ``folder`` (or is it),
    else None."""
    where = Path(folder).resolve()
    for source in inputs:
        path = Path(source).resolve()
        if path == where or where in path.parents:
            return source
    return None


def check_output_folder(folder, kind, inputs=()):
    """Raise :class:`OutputRefused` unless a folder output of ``kind`` may
    be written at ``folder`` (replacing it whole).

    Allowed: a name that does not exist yet, or a folder Linkplan wrote
    as this kind of output (:func:`mark_output_folder`) that holds only
    what Linkplan put there (``part-*`` files) and none of ``inputs``.
    Refused: the current folder or one above it, a file, a link, an
    unmarked folder, one of another kind or with anything else in it.
    """
    path = Path(folder)
    where = path.resolve()
    here = Path.cwd().resolve()
    if where == here or where in here.parents:
        raise OutputRefused(f"{folder} is the current folder or holds it: "
                            "a folder output replaces its target whole; "
                            "name a new folder")
    source = held_input(path, inputs)
    if source is not None:
        raise OutputRefused(f"{folder} holds the input {source}: writing "
                            "there would lose it; name a new folder")
    refuse_device_folder(path)
    if not os.path.lexists(path):
        return
    if path.is_symlink():
        raise OutputRefused(f"{folder} is a symbolic link: name the folder "
                            "itself or a new one")
    if not path.is_dir():
        what = "a file" if path.is_file() else "not a folder"
        raise OutputRefused(f"{folder}: a {kind} is a folder of parts, and "
                            f"this is {what}")
    try:
        mark = json.loads((path / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        mark = None
    if not isinstance(mark, dict) or mark.get("kind") != kind:
        raise OutputRefused(
            f"{folder} already exists and is not a {kind} Linkplan wrote: "
            "nothing replaced (name a new folder, or remove it first)")
    strangers = sorted(entry.name for entry in path.iterdir()
                       if entry.name != MARKER and not (
                           entry.name.startswith("part-")
                           and entry.is_file() and not entry.is_symlink()))
    if strangers:
        shown = ", ".join(strangers[:5]) + (", ..." if len(strangers) > 5
                                             else "")
        raise OutputRefused(
            f"{folder} holds files Linkplan did not write there ({shown}): "
            "nothing replaced (name a new folder, or move them first)")


def refuse_device_folder(path):
    """OutputRefused when ``path`` would be a new file or folder in /dev
    (the system's devices, where writing as root creates entries that are
    not devices); an existing device there is written as a stream."""
    if Path(path).resolve().parent == Path("/dev") and not is_stream(path):
        raise OutputRefused(f"{path} is in /dev, the system's devices, and "
                            "is not one: name a file or folder on a disk")


def mark_output_folder(folder, kind, version):
    """Mark ``folder`` as a Linkplan output of ``kind`` (which
    :func:`check_output_folder` lets a later run replace)."""
    (Path(folder) / MARKER).write_text(json.dumps(
        {"written_by": "linkplan", "kind": kind, "version": version}) + "\n",
        encoding="utf-8")


def open_to_all(folder):
    """Give a folder made private (``tempfile.mkdtemp``: 0700) the mode a
    new folder gets under the umask."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(folder, 0o777 & ~umask)


def is_stream(path):
    """Whether ``path`` is an existing device, pipe or socket (written as
    a stream: never replaced, and no temporary files beside it)."""
    try:
        return os.path.exists(path) and not Path(path).is_file() and \
            not Path(path).is_dir()
    except OSError:
        return False
