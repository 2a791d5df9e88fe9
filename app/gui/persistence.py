"""What the GUI keeps between runs: settings (recent files, last folder,
window layout) and this instance's recovery file, in the places the
platform gives an application (QSettings, QStandardPaths)."""

import os
from pathlib import Path

from PySide6 import QtCore

from app.import_job import unreadable_reason
from app.recovery import (RecoveryError, read_recovery, set_aside,
                          write_recovery)

#: Entries of File > Open Recent.
MAX_RECENT_FILES = 8


def settings():
    """Linkplan's user settings (an INI file in the user's config
    location)."""
    return QtCore.QSettings(QtCore.QSettings.Format.IniFormat,
                            QtCore.QSettings.Scope.UserScope,
                            "Linkplan", "Linkplan")


def recent_files():
    """Recently opened or saved scenario files, newest first."""
    value = settings().value("recent_files", [])
    if isinstance(value, str):   # QSettings gives a one-item list as str
        value = [value]
    return [Path(p) for p in value or []]


def remember_file(path):
    """Put ``path`` first in the recent files and make its folder the one
    file dialogs start in."""
    path = Path(path).absolute()
    kept = [p for p in recent_files() if p != path]
    store = settings()
    store.setValue("recent_files",
                   [str(p) for p in [path, *kept][:MAX_RECENT_FILES]])
    store.setValue("last_folder", str(path.parent))


def forget_file(path):
    """Drop ``path`` from the recent files (it could not be opened)."""
    settings().setValue("recent_files", [str(p) for p in recent_files()
                                         if p != Path(path)])


def clear_recent_files():
    settings().remove("recent_files")


def last_file():
    """The file open when Linkplan last closed, or None."""
    value = settings().value("last_file", "")
    return Path(value) if value else None


def set_last_file(path):
    settings().setValue("last_file", "" if path is None else str(path))


def reopens_last_file():
    """Whether the start opens the last file (the default) rather than
    the example."""
    return settings().value("reopen_last_file", True, type=bool)


def set_reopens_last_file(on):
    settings().setValue("reopen_last_file", bool(on))


def start_folder():
    """Where file dialogs start: the last folder used, else Documents."""
    folder = settings().value("last_folder", "")
    if folder and Path(folder).is_dir():
        return Path(folder)
    return Path(QtCore.QStandardPaths.writableLocation(
        QtCore.QStandardPaths.StandardLocation.DocumentsLocation))


def recovery_folder():
    """Folder of the recovery files (in the user's data location)."""
    return Path(QtCore.QStandardPaths.writableLocation(
        QtCore.QStandardPaths.StandardLocation.AppDataLocation)) / "recovery"


class RecoveryFiles:
    """This instance's recovery file, and those left by instances that
    ended without closing their document (a crash, a kill, a power cut).

    Each running instance owns ``recovery-<pid>.json`` through a lock file
    beside it; a recovery file whose lock no live process holds is an
    orphan, offered on the next start.

    A folder that cannot be created or written (read-only, full, a file
    in its place) never stops the GUI: the methods that write or remove
    return what went wrong, ``problem`` keeps the last such message, and
    saving and closing go on.

    Parameters
    ----------
    folder : pathlib.Path
        Where recovery files live; created when missing.
    """

    def __init__(self, folder):
        self.folder = Path(folder)
        self.problem = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            self._failed("cannot create the recovery folder", err)
        self.path = self.folder / f"recovery-{os.getpid()}.json"
        self._lock = self._lock_of(self.path)
        self._lock.tryLock(0)

    def _failed(self, what, err):
        self.problem = f"{what} {self.folder}: {err.strerror or err}"
        return self.problem

    def write(self, scenario, source, source_stamp=None):
        """Keep ``scenario`` (belonging to the file ``source`` as its
        ``source_stamp`` tells it) in this instance's recovery file;
        None, or why it could not."""
        try:
            write_recovery(self.path, scenario, source, source_stamp)
        except OSError as err:
            return self._failed("cannot write the recovery file in", err)
        self.problem = None
        return None

    @staticmethod
    def _lock_of(path):
        lock = QtCore.QLockFile(str(path.with_suffix(".lock")))
        # only a dead owner makes a lock stale, however old it is
        lock.setStaleLockTime(0)
        return lock

    def discard(self):
        """Remove this instance's recovery file (the work was saved or
        discarded on purpose); None, or why it could not."""
        try:
            self.path.unlink(missing_ok=True)
        except OSError as err:
            return self._failed("cannot remove the recovery file in", err)
        return None

    def release(self):
        """Remove the recovery file and give up its lock (clean exit);
        None, or why the file could not be removed."""
        problem = self.discard()
        self._lock.unlock()
        return problem

    def orphans(self):
        """Recovery files of instances that are no longer running, newest
        first, each with the lock that now makes it ours to handle."""
        found = []
        for path in self.folder.glob("recovery-*.json"):
            if path == self.path:
                continue
            lock = self._lock_of(path)
            if lock.tryLock(0):   # the owner is gone
                found.append((path, lock))
        found.sort(key=lambda item: item[0].stat().st_mtime, reverse=True)
        return found

    @staticmethod
    def read(path):
        """(Recovered, None) or (None, message) when the file is broken
        (hostile ones included: nested too deep, integers too long); a
        broken file is renamed so it is not offered again."""
        try:
            return read_recovery(path), None
        except (ValueError, RecursionError) as err:   # RecoveryError too
            if not isinstance(err, RecoveryError):
                err = f"{path}: not a recovery file " \
                    f"({unreadable_reason(err)})"
            try:
                aside = set_aside(path)
            except OSError as rename_error:
                return None, f"{err}\n\nIt could not be set aside: " \
                    f"{rename_error.strerror}."
            return None, f"{err}\n\nIt was set aside as {aside.name}."

    def drop(self, path, lock):
        """Remove an orphan and its lock; None, or why the orphan could
        not be removed (it is offered again at the next start)."""
        try:
            Path(path).unlink(missing_ok=True)
        except OSError as err:
            return self._failed(f"cannot remove {Path(path).name} from",
                                err)
        finally:
            lock.unlock()
        return None
