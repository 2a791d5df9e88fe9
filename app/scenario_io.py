"""Reading and writing scenario files, shared by the GUI, the CLI and tests.

Validation itself lives in ``models.scenario``; this module adds what only
files have: a size limit, the format by extension, decoding, and atomic
writes so that a failed save never leaves a half-written file.
"""

import os
import tempfile
from pathlib import Path

from models.scenario import ScenarioError, dump_scenario, parse_scenario

#: Largest scenario file accepted [B]. Real scenarios are kilobytes; the
#: limit keeps a wrong file (a disk image, a log) from eating memory.
MAX_SCENARIO_BYTES = 10 * 1024 * 1024

#: Scenario file formats by extension.
FORMATS = {".toml": "toml", ".json": "json"}


def scenario_format(path):
    """'toml' or 'json' from the file extension (ScenarioError otherwise)."""
    fmt = FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise ScenarioError([("", f"unknown file type {Path(path).suffix!r}:"
                              " scenario files end in .toml or .json")],
                            str(path))
    return fmt


def load_scenario(path):
    """Read, decode and validate a scenario file.

    Raises
    ------
    ScenarioError
        A missing, unreadable, oversized, non-UTF-8, malformed or invalid
        file; the message names the file and the field.
    """
    path = Path(path)
    fmt = scenario_format(path)
    try:
        with open(path, "rb") as stream:
            # read one byte past the limit to tell "too large" from "fits"
            raw = stream.read(MAX_SCENARIO_BYTES + 1)
    except OSError as err:
        raise ScenarioError([("", f"cannot read file: {err.strerror}")],
                            str(path)) from None
    if len(raw) > MAX_SCENARIO_BYTES:
        size = path.stat().st_size
        raise ScenarioError([("", f"file is {size / 2**20:.1f} MiB; "
                              "scenario files are limited to "
                              f"{MAX_SCENARIO_BYTES / 2**20:g} MiB")],
                            str(path))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ScenarioError([("", f"not UTF-8 text (byte "
                              f"0x{raw[err.start]:02x} at offset "
                              f"{err.start})")], str(path)) from None
    return parse_scenario(text, fmt, source=str(path))


def save_scenario(scenario, path):
    """Write a scenario in the format its extension names, atomically."""
    atomic_write(path, dump_scenario(scenario, scenario_format(path))
                 .encode("utf-8"))


def atomic_write(path, data):
    """Write bytes to ``path`` so that it holds either the old or the new
    content, never a mix: write a temporary file beside it, flush it to
    disk, then rename it over the target."""
    path = Path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent or ".",
                                         prefix=f".{path.name}.",
                                         suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if path.exists():
            os.chmod(temporary, path.stat().st_mode & 0o7777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
