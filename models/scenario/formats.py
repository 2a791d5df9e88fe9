"""The scenario document as text and plain data: TOML and JSON read and
written (text only: reading and writing files is the caller's job,
``app/scenario_io.py``, so the core does no I/O), the canonical form that
is hashed, and the schema versions with the migrations between them."""

import copy
import json
import tomllib
from typing import Callable

import tomli_w

from models.scenario.errors import ScenarioError
from models.scenario.limits import SCHEMA_VERSION


def document_data(text, fmt, *, source=None):
    """The plain data of scenario text, not yet migrated or validated.

    Parameters
    ----------
    text : str
        The document.
    fmt : {'toml', 'json'}
        Its format.
    source : str, optional
        A file name to prefix error messages with.

    Raises
    ------
    ScenarioError
        Malformed text.
    """
    if fmt == "toml":
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise ScenarioError([("", f"malformed TOML: {err}")],
                                source) from None
    if fmt == "json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as err:
            raise ScenarioError([("", f"malformed JSON: {err.msg} at line "
                                  f"{err.lineno} column {err.colno}")],
                                source) from None
    raise ValueError(f"fmt must be 'toml' or 'json', got {fmt!r}")


#: Migrators by the version they upgrade from: ``MIGRATIONS[n]`` turns a
#: plain-data document of version ``n`` into version ``n + 1``. Empty while
#: version 1 is the only one released.
MIGRATIONS: dict[int, Callable[[dict], dict]] = {}


def migrate(data, *, target=SCHEMA_VERSION, migrations=None):
    """Upgrade a plain-data document to ``target`` through the migrators.

    Each step works on a copy: when a migrator raises, the caller's data is
    untouched and the error names the step.

    Returns
    -------
    dict
        The document at version ``target`` (``data`` itself when it is
        already there).

    Raises
    ------
    ScenarioError
        No version, a version newer than ``target``, a missing step, or a
        failing migrator.
    """
    migrations = MIGRATIONS if migrations is None else migrations
    version = data.get("schema_version")
    if version is None:
        raise ScenarioError([("schema_version", "required field is missing "
                              f"(this build writes {target})")])
    if type(version) is not int or version < 1:
        raise ScenarioError([("schema_version", "must be a whole number "
                              f">= 1, got {version!r}")])
    if version > target:
        raise ScenarioError([("schema_version", f"{version} is newer than "
                              f"this build of Linkplan reads ({target}); "
                              "update Linkplan")])
    while version < target:
        step = migrations.get(version)
        if step is None:
            raise ScenarioError([("schema_version", f"no migration from "
                                  f"version {version} to {version + 1}")])
        try:
            data = step(copy.deepcopy(data))
        except Exception as err:  # a migrator bug must not lose the file
            raise ScenarioError([("schema_version", f"migrating from "
                                  f"version {version} failed: {err}")]) \
                from err
        version += 1
        data["schema_version"] = version
    return data


def dump_scenario(scenario, fmt, *, minimal=False):
    """Serialise a scenario to TOML or JSON text (fields left at None are
    omitted: TOML has no null; with ``minimal``, so are fields at their
    default)."""
    data = scenario_data(scenario, minimal=minimal)
    if fmt == "toml":
        return tomli_w.dumps(data)
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    raise ValueError(f"fmt must be 'toml' or 'json', got {fmt!r}")


def scenario_data(scenario, *, minimal=False):
    """The document as plain data for a file: no None (TOML has no null);
    with ``minimal``, no field at its default either."""
    return scenario.model_dump(mode="json", exclude_none=True,
                               exclude_defaults=minimal)


def canonical_json(scenario):
    """Key-sorted, compact JSON of the minimal document (no field at its
    default): the form hashed by :meth:`Scenario.sha256`."""
    return json.dumps(_without_empty_tables(scenario_data(scenario,
                                                          minimal=True)),
                      sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False)


def _without_empty_tables(data):
    # A table left with no field away from its default says what its
    # absence says: both hash the same.
    if isinstance(data, dict):
        pruned = {key: _without_empty_tables(value)
                  for key, value in data.items()}
        return {key: value for key, value in pruned.items() if value != {}}
    if isinstance(data, list):
        return [_without_empty_tables(item) for item in data]
    return data
