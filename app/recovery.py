"""Recovery files: unsaved work written aside so that a crash loses at most
the last few seconds of edits (no Qt; the GUI decides when and where).

A recovery file is one JSON document holding the scenario's own JSON text
and the file it belongs to. It is written atomically
(:func:`app.scenario_io.atomic_write`), so a kill during the write leaves
the previous recovery file whole.
"""

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from app.loading_gate import (MAX_SCENARIO_BYTES, FileRefused, parse_json,
                              read_limited, scenario_from_text)
from app.scenario_io import atomic_write
from models.scenario import ScenarioError, dump_scenario

#: Marks the JSON document as a Linkplan recovery file.
RECOVERY_KIND = "linkplan-recovery"
#: Layout version of the recovery file, raised on incompatible changes.
RECOVERY_VERSION = 1


class RecoveryError(ValueError):
    """A recovery file that cannot be read back; the message names it."""


@dataclass(frozen=True)
class Recovered:
    """The unsaved document read back from a recovery file."""

    scenario: object
    #: The file the document was opened from or saved to, or None.
    source: Path | None
    #: When the recovery file was written (UTC).
    saved_at: datetime
    #: What told the file's content when the document was opened or
    #: saved (inode, size, mtime in ns), or None: saving the recovered
    #: work over a file changed since then asks first.
    source_stamp: tuple | None = None


def write_recovery(path, scenario, source=None, source_stamp=None):
    """Write ``scenario`` (and the file it belongs to, with the stamp of
    that file's content as the document knows it) to ``path``
    atomically."""
    record = {"kind": RECOVERY_KIND, "version": RECOVERY_VERSION,
              "saved_at": datetime.now(timezone.utc).isoformat(),
              "source": None if source is None else str(source),
              "source_stamp": None if source_stamp is None
              else list(source_stamp),
              "scenario": dump_scenario(scenario, "json")}
    atomic_write(path, json.dumps(record, ensure_ascii=False)
                 .encode("utf-8"))


def read_recovery(path):
    """Read a recovery file back.

    Raises
    ------
    RecoveryError
        The file is unreadable, oversized, not a recovery file, or holds an
        invalid scenario; the message names the file and what is wrong.
    """
    path = Path(path)

    def broken(why):
        return RecoveryError(f"{path}: {why}")

    try:
        raw = read_limited(path, MAX_SCENARIO_BYTES, "a recovery file")
        record = parse_json(raw.decode("utf-8"), path)
    except UnicodeDecodeError as err:
        raise broken(f"not a recovery file (not UTF-8 text: byte "
                     f"0x{raw[err.start]:02x} at offset {err.start})") \
            from None
    except FileRefused as err:
        raise broken(f"not a recovery file ({err.detail})") from None
    if not isinstance(record, dict) or record.get("kind") != RECOVERY_KIND:
        raise broken("not a Linkplan recovery file")
    if record.get("version") != RECOVERY_VERSION:
        raise broken(f"recovery file version {record.get('version')!r}; "
                     f"this Linkplan reads version {RECOVERY_VERSION}")
    text, source = record.get("scenario"), record.get("source")
    if not isinstance(text, str) or not isinstance(source, (str, type(None))):
        raise broken("the scenario or its file name is missing")
    if source is not None and "\0" in source:
        raise broken(f"bad file name {source!r}")
    try:
        saved_at = datetime.fromisoformat(record.get("saved_at"))
    except (TypeError, ValueError):
        raise broken(f"bad time stamp {record.get('saved_at')!r}") from None
    try:
        scenario = scenario_from_text(text, "json", str(path))
    except ScenarioError as err:
        raise broken(f"the saved scenario is invalid: {err}") from None
    stamp = record.get("source_stamp")
    # written before stamps were kept, or damaged: unknown
    stamp = tuple(stamp) if isinstance(stamp, list) and len(stamp) == 3 \
        and all(isinstance(n, int) for n in stamp) else None
    return Recovered(scenario, None if source is None else Path(source),
                     saved_at, stamp)


def set_aside(path):
    """Rename a recovery file that cannot be used to ``<name>.corrupt``
    (numbered when that exists), so it is never offered again but is kept
    for inspection. Returns the new path."""
    path = Path(path)
    target = path.with_name(path.name + ".corrupt")
    number = 1
    while target.exists():
        number += 1
        target = path.with_name(f"{path.name}.corrupt{number}")
    path.rename(target)
    return target
