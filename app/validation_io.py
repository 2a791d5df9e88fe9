"""Reading the validation set: ``resources/validation/*.toml``.

Each file holds one ``[source]`` table (defaults for its cases) and a list
of ``[[cases]]``; each case names its scenario (a path relative to the
validation file that stays under that directory's parent, i.e.
``resources/`` for the bundled set, or an inline table) and its
``[[cases.checks]]``. The layout is described in
``resources/validation/README.md``. Numeric comparison lives in
``solvers.accuracy``; this module only reads and checks the files.
"""

import functools
import tomllib
from pathlib import Path

from app.paths import resource_path
from app.scenario_io import load_scenario
from models.scenario import ScenarioError, scenario_from_dict
from solvers.accuracy import AREAS, STATUSES, Case, Check, assess
from solvers.provenance import ProvenanceIndex

_CASE_KEYS = {"id", "title", "area", "model", "scenario", "status",
              "reason", "checks", "source", "url", "setup"}
_CHECK_KEYS = {"variant", "metric", "measured", "unit", "relative_to",
               "rel", "rel_range", "abs", "band", "bottleneck",
               "bottleneck_not", "justification"}
_RULES = ("rel", "rel_range", "abs", "band", "bottleneck", "bottleneck_not")


class ValidationDataError(ValueError):
    """A validation file that cannot be used; the message names the file,
    the field and the value."""


def validation_dir():
    """The bundled validation set."""
    return resource_path("validation")


def _fail(path, where, message):
    raise ValidationDataError(f"{path}: {where}: {message}")


def _pair(path, where, value):
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, (int, float)) for v in value)
            or value[0] > value[1]):
        _fail(path, where, f"must be [low, high] numbers, got {value!r}")
    return float(value[0]), float(value[1])


def _check(path, where, table):
    if not isinstance(table, dict):
        _fail(path, where, f"must be a table, got {table!r}")
    unknown = set(table) - _CHECK_KEYS
    if unknown:
        _fail(path, where, f"unknown field(s) {sorted(unknown)}")
    rules = [rule for rule in _RULES if rule in table]
    if len(rules) != 1:
        _fail(path, where, "needs exactly one of " + ", ".join(_RULES)
              + f"; has {rules or 'none'}")
    rule = rules[0]
    metric = table.get("metric")
    if rule.startswith("bottleneck"):
        if metric is not None:
            _fail(path, where, f"a {rule} check names no metric, "
                  f"got metric = {metric!r}")
    elif not isinstance(metric, str) or not metric:
        _fail(path, f"{where}.metric", f"must name a metric id, got "
              f"{metric!r}")
    measured = table.get("measured")
    if measured is not None and not isinstance(measured, (int, float)):
        _fail(path, f"{where}.measured", f"must be a number, got "
              f"{measured!r}")
    if rule in ("rel", "rel_range", "abs") and not measured:
        _fail(path, f"{where}.measured", f"a {rule} check needs a non-zero "
              f"measured value, got {measured!r}")
    for key in ("rel", "abs"):
        if key in table and (not isinstance(table[key], (int, float))
                             or table[key] < 0):
            _fail(path, f"{where}.{key}", f"must be a number >= 0, got "
                  f"{table[key]!r}")
    if not table.get("justification"):
        _fail(path, f"{where}.justification", "every tolerance states why "
              "it is what it is")
    fields = {key: value for key, value in table.items()
              if key not in ("rel_range", "band")}
    for key in ("rel_range", "band"):
        if key in table:
            fields[key] = _pair(path, f"{where}.{key}", table[key])
    return Check(**fields)


def _scenario(path, where, value):
    if isinstance(value, dict):
        try:
            return scenario_from_dict(value, source=f"{path} ({where})")
        except ScenarioError as err:
            _fail(path, where, str(err))
    if not isinstance(value, str) or not value:
        _fail(path, where, f"must be a scenario file path or an inline "
              f"table, got {value!r}")
    # relative to the validation file, never above its directory's parent
    # (for the bundled set: resources/, so ../examples/ is reachable)
    root = path.parent.parent.resolve()
    target = (path.parent / value).resolve()
    if root not in target.parents:
        _fail(path, where, f"{value!r} points outside {root}")
    try:
        return load_scenario(target)
    except ScenarioError as err:
        _fail(path, where, str(err))


def _case(path, index, table, source, scenarios):
    where = f"cases[{index}]"
    if not isinstance(table, dict):
        _fail(path, where, f"must be a table, got {table!r}")
    unknown = set(table) - _CASE_KEYS
    if unknown:
        _fail(path, where, f"unknown field(s) {sorted(unknown)}")
    for key in ("id", "title", "model"):
        if not isinstance(table.get(key), str) or not table[key]:
            _fail(path, f"{where}.{key}", f"must be a non-empty string, got "
                  f"{table.get(key)!r}")
    area = table.get("area")
    if area not in AREAS:
        _fail(path, f"{where}.area", f"must be one of {', '.join(AREAS)}; "
              f"got {area!r}")
    status = table.get("status", "held")
    if status not in STATUSES:
        _fail(path, f"{where}.status", f"must be one of "
              f"{', '.join(STATUSES)}; got {status!r}")
    url = table.get("url", source.get("url"))
    title = table.get("source", source.get("title"))
    if not url or not title:
        _fail(path, where, "needs a source: a title and a URL or KB number "
              "(in [source] or the case)")
    reason = table.get("reason", "")
    if status != "held" and not reason:
        _fail(path, f"{where}.reason", f"a {status} case says why")
    checks = table.get("checks", [])
    if not isinstance(checks, list):
        _fail(path, f"{where}.checks", f"must be a list, got {checks!r}")
    scenario = None
    if status != "not_modelled":
        if not checks:
            _fail(path, f"{where}.checks", "a solved case needs checks")
        if "scenario" not in table:
            _fail(path, f"{where}.scenario", "a solved case needs a "
                  "scenario")
        value = table["scenario"]
        key = value if isinstance(value, str) else None
        if key is not None and key in scenarios:
            scenario = scenarios[key]
        else:
            scenario = _scenario(path, f"{where}.scenario", value)
            if key is not None:
                scenarios[key] = scenario
    year = source.get("year")
    return Case(
        id=table["id"], title=table["title"], area=area,
        model=table["model"], status=status, reason=reason,
        source=title + (f" ({year})" if year else ""), url=url,
        scenario=scenario, setup=table.get("setup", ""), origin=path.name,
        checks=tuple(_check(path, f"{where}.checks[{i}]", check)
                     for i, check in enumerate(checks)))


def load_cases(directory=None):
    """Every case of every ``*.toml`` file of the validation directory,
    in file-name order then file order.

    Raises
    ------
    ValidationDataError
        A file that cannot be read or parsed, a missing or unknown field,
        a bad value, or a case id used twice; the message names the file,
        the field and the value.
    """
    directory = Path(directory or validation_dir())
    files = sorted(directory.glob("*.toml"))
    if not files:
        raise ValidationDataError(f"{directory}: no validation files "
                                  "(*.toml)")
    cases, seen, scenarios = [], {}, {}
    for path in files:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
            raise ValidationDataError(f"{path}: {err}") from None
        source = data.get("source", {})
        tables = data.get("cases")
        if not isinstance(tables, list) or not tables:
            _fail(path, "cases", "needs at least one [[cases]] table")
        for index, table in enumerate(tables):
            case = _case(path, index, table, source, scenarios)
            if case.id in seen:
                _fail(path, f"cases[{index}].id", f"{case.id!r} is also "
                      f"defined in {seen[case.id]}")
            seen[case.id] = path.name
            cases.append(case)
    return cases


@functools.lru_cache(maxsize=1)
def bundled_cases():
    """The bundled validation set (:func:`load_cases`), read once per
    process and shared by its index and its solved report (a tuple: no
    caller changes it)."""
    return tuple(load_cases())


@functools.lru_cache(maxsize=1)
def provenance_index():
    """The bundled validation set as a :class:`solvers.provenance.
    ProvenanceIndex`, read once per process (faces ask it per metric)."""
    return ProvenanceIndex(bundled_cases())


@functools.lru_cache(maxsize=1)
def accuracy_report():
    """The bundled validation set solved (:func:`solvers.accuracy.assess`),
    once per process: the accuracy dialog and every PDF report show it."""
    return assess(bundled_cases())
