"""Reading and writing scenario files, shared by the GUI, the CLI and tests.

Validation itself lives in ``models.scenario``; this module adds what only
files have: reading through the loading gate (app.loading_gate: size,
depth and number limits, the format by extension, decoding), and atomic
writes so that a failed save never leaves a half-written file.
"""

import math
import os
import secrets
import tempfile
from pathlib import Path

from app.loading_gate import (MAX_SCENARIO_BYTES, load_scenario_file,
                              scenario_format)
from models.scenario import (ScenarioError, dump_scenario, parse_scenario,
                             scenario_data)
from models.units import field_unit, parse_quantity


def load_scenario(path, parsed=None):
    """Read, decode and validate a scenario file through the loading gate
    (:func:`app.loading_gate.load_scenario_file`); with ``parsed`` (a dict
    kept over a batch of files: a fleet), a file whose format and text
    were parsed before is that same scenario, not parsed again.

    Raises
    ------
    ScenarioError
        A missing, unreadable, oversized, non-UTF-8, malformed, too deeply
        nested or invalid file; the message names the file and the field.
    """
    return load_scenario_file(path, parsed)


def save_scenario(scenario, path):
    """Write a scenario in the format its extension names, atomically.

    Only what differs from the schema's defaults is written. Saving over a
    TOML file keeps its comments and layout: the values that changed are
    replaced where they stand, new ones added, removed ones dropped.
    """
    fmt = scenario_format(path)
    text = dump_scenario(scenario, fmt, minimal=True)
    if fmt == "toml":
        text = _keep_layout(Path(path), scenario, text)
    atomic_write(path, text.encode("utf-8"))


def _keep_layout(path, scenario, fresh):
    """The TOML text for ``scenario`` written into the layout of the file
    at ``path``; ``fresh`` when there is no such file or its layout cannot
    hold the document exactly."""
    import tomlkit
    try:
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        if old is None or len(old) > MAX_SCENARIO_BYTES:
            return fresh
        document = tomlkit.parse(old)
        _merge_table(document, scenario_data(scenario),
                     scenario_data(scenario, minimal=True))
        text = tomlkit.dumps(document)
        if parse_scenario(text, "toml") == scenario:
            return text
    except Exception:  # a layout tomlkit cannot edit: a fresh file instead
        pass
    return fresh


def _merge_table(table, full, minimal):
    """Make a tomlkit table hold the document's ``full`` data, keeping its
    comments, the formatting of values that stay and the defaults the
    user wrote; a key it lacks is added only when ``minimal`` (the data
    without defaults) has it."""
    import tomlkit
    from tomlkit.items import AoT
    for key in [k for k in table if k not in full]:
        del table[key]
    for key, value in full.items():
        old = table.get(key)
        if old is None:
            if key in minimal:
                table[key] = minimal[key]
        elif isinstance(value, dict) and isinstance(old, dict):
            _merge_table(old, value, minimal.get(key, {}))
        elif isinstance(value, list) and isinstance(old, AoT) and value \
                and all(isinstance(v, dict) for v in value):
            short = minimal.get(key, [{}] * len(value))
            for entry, new, new_short in zip(old, value, short):
                _merge_table(entry, new, new_short)
            while len(old) > len(value):
                del old[len(old) - 1]
            for new in short[len(old):]:
                old.append(tomlkit.item(new))
        elif _plain(old) != value and not _same_quantity(key, _plain(old),
                                                         value):
            table[key] = value


def _same_quantity(key, typed, value):
    """Whether a quantity the user typed with its unit ("1.5 GB/s") still
    holds the document's number: then it stays as typed."""
    if not isinstance(typed, str) or isinstance(value, bool) or \
            not isinstance(value, (int, float)):
        return False
    try:
        return math.isclose(parse_quantity(typed, field_unit(key)), value,
                            rel_tol=1e-12)
    except ValueError:
        return False


def _plain(item):
    return item.unwrap() if hasattr(item, "unwrap") else item


def atomic_write(path, data):
    """Write bytes to ``path`` so that it holds either the old or the new
    content, never a mix (:class:`AtomicFile`)."""
    output = AtomicFile(path)
    try:
        output.stream.write(data)
        output.publish()
    finally:
        output.discard()


class AtomicFile:
    """A file written beside ``path`` that replaces it in one step once
    complete, so ``path`` holds the old or the new content, never a mix,
    whoever else writes it at the same time.

    Where the system has them (Linux), the content goes to an anonymous
    file (``O_TMPFILE``) that only gets a name when published: a process
    killed while writing leaves nothing behind. Elsewhere a hidden
    temporary beside ``path`` takes its place. A device or pipe
    (/dev/stdout, /dev/null, a FIFO) is a stream, not a file to replace:
    it is written directly.

    Parameters
    ----------
    path : str or Path
    text : bool
        A UTF-8 text stream (newlines untranslated) instead of bytes.
    """

    def __init__(self, path, *, text=False):
        self.path = Path(path)
        self._named = None
        self._device = self.path.exists() and not self.path.is_file()
        kwargs = {"encoding": "utf-8", "newline": ""} if text else {}
        mode = "w" if text else "wb"
        if self._device:
            self.stream = open(self.path, mode, **kwargs)
            return
        directory = str(self.path.parent)
        try:
            handle = os.open(directory, os.O_TMPFILE | os.O_WRONLY, 0o600)
        except (AttributeError, OSError):  # no anonymous files here
            handle, self._named = tempfile.mkstemp(
                dir=directory, prefix=f".{self.path.name}.", suffix=".tmp")
        self.stream = os.fdopen(handle, mode, **kwargs)

    def publish(self, target=None):
        """Flush the content to disk and rename it over ``target``
        (default: the path) in one step; the stream is closed."""
        target = Path(target) if target is not None else self.path
        self.stream.flush()
        if self._device:
            self.stream.close()
            return
        os.fsync(self.stream.fileno())
        if self._named is None:
            self._named = self._link_beside(target)
        if target.exists():
            os.chmod(self._named, target.stat().st_mode & 0o7777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(self._named, 0o666 & ~umask)
        os.replace(self._named, target)
        self._named = None
        self.stream.close()

    def discard(self):
        """Close without publishing; the target stays as it was."""
        self.stream.close()
        if self._named is not None:
            Path(self._named).unlink(missing_ok=True)
            self._named = None

    def _link_beside(self, target):
        # the anonymous file gets a unique name just before the rename
        # (linkat through /proc with AT_SYMLINK_FOLLOW, which os.link
        # asks for only with a directory descriptor)
        proc = os.open("/proc/self/fd", os.O_RDONLY | os.O_DIRECTORY)
        try:
            for _ in range(100):
                name = target.parent / (f".{target.name}."
                                        f"{secrets.token_hex(6)}.tmp")
                try:
                    os.link(str(self.stream.fileno()), name,
                            src_dir_fd=proc, follow_symlinks=True)
                    return name
                except FileExistsError:
                    continue
        finally:
            os.close(proc)
        raise FileExistsError(f"no free temporary name beside {target}")
