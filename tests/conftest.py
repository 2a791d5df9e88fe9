"""Shared test set-up.

With ``LINKPLAN_BLOCK_QT=1`` (``make test-core``) every Qt import fails, so
the models/ and solvers/ tests prove the core runs in an environment
without Qt (architecture.md, "Boundaries").
"""

import importlib.abc
import os
import sys
from pathlib import Path

import pytest

QT_PACKAGES = {"PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6",
               "PySide2"}
ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "resources" / "examples"


class _BlockQt(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in QT_PACKAGES:
            raise ImportError(f"{name} imported with LINKPLAN_BLOCK_QT set: "
                              "models/ and solvers/ must not need Qt")
        return None


if os.environ.get("LINKPLAN_BLOCK_QT"):
    sys.meta_path.insert(0, _BlockQt())


@pytest.fixture
def example_path():
    """The built-in example scenario."""
    return EXAMPLES / "jumbo_10gbe.toml"


def minimal_document(**sections):
    """A valid plain-data scenario, with sections replaced or added."""
    document = {"schema_version": 1, "meta": {"name": "test"},
                "nics": [{"id": "nic0", "speed_gbps": 10.0}]}
    document.update(sections)
    return document


def pytest_terminal_summary(terminalreporter):
    """The fuzz counts (tests/fuzzing.py), when fuzz tests ran."""
    fuzzing = sys.modules.get("tests.fuzzing")
    if fuzzing is not None and fuzzing.COUNTS:
        counts = fuzzing.COUNTS
        terminalreporter.write_line(
            f"fuzz: tried {counts['tried']}, refused {counts['refused']}, "
            f"solved {counts['solved']}, other {counts['other']}")
