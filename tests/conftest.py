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


#: How host ``i`` of a test fleet differs from the example it copies:
#: field name -> its value from the example's and ``i``. Clock, NIC speed,
#: MTU, VM memory and dirty rates: the numbers the chain, the migrations
#: and the evacuations read, with periods prime to the number of examples
#: so that no two hosts of one example are the same document.
FLEET_VARIATIONS = {
    "ghz": lambda v, i: round(2.0 + (i % 17) * 0.1, 2),
    "speed_gbps": lambda v, i: v * (1, 2.5, 4, 1.6)[i % 4],
    "mtu": lambda v, i: (v, 9000)[i % 2] if v == 1500 else v,
    "memory_gib": lambda v, i: v * (1 + (i % 7) / 8),
    "free_memory_gib": lambda v, i: v * (1 + (i % 7) / 8),
    "rate_mib_s": lambda v, i: v * (1 + (i % 11) / 10),
}


def fleet_document(data, i):
    """Host ``i`` of a fleet: an example's plain data (``model_dump``)
    with the fields of :data:`FLEET_VARIATIONS` varied, in the base and in
    its variants' changes; the kinds of change that would make it invalid
    (an RDMA NIC too slow for its transport...) left as they are."""
    from models.scenario import ScenarioError, scenario_from_dict

    def vary(value, kinds):
        if isinstance(value, dict):
            return {k: FLEET_VARIATIONS[k](v, i)
                    if k in kinds and isinstance(v, (int, float))
                    and not isinstance(v, bool) else vary(v, kinds)
                    for k, v in value.items()}
        if isinstance(value, list):
            return [vary(v, kinds) for v in value]
        return value

    def varied(kinds):
        out = vary(data, kinds)
        for variant in out.get("variants", []):
            variant["set"] = {
                path: FLEET_VARIATIONS[path.rsplit(".", 1)[-1]](v, i)
                if path.rsplit(".", 1)[-1] in kinds
                and isinstance(v, (int, float)) and not isinstance(v, bool)
                else v for path, v in variant["set"].items()}
        return out

    every = set(FLEET_VARIATIONS)
    for kinds in [every, *(every - {k} for k in every)]:
        candidate = varied(kinds)
        try:
            scenario_from_dict(candidate).variant_documents()
            return candidate
        except ScenarioError:
            continue
    return data


def write_fleet(folder, files, examples=None):
    """``files`` hosts cycling through the examples (:func:`fleet_document`)
    as JSON files in ``folder``, each named after itself; returns the
    number of variants (bases included)."""
    import json

    from app.scenario_io import load_scenario

    documents = [load_scenario(p).model_dump(mode="json")
                 for p in sorted(examples or EXAMPLES.glob("*.toml"))]
    variants = 0
    for i in range(files):
        data = fleet_document(documents[i % len(documents)], i)
        data["meta"]["name"] = f"host {i:04d}"
        (Path(folder) / f"host{i:04d}.json").write_text(json.dumps(data))
        variants += 1 + len(data["variants"])
    return variants
