"""The scenario's error: every problem of a document, each naming its field
path and the value (``nics[1].speed_gbps: must be > 0, got -10``), and the
wording of pydantic's validation errors in those terms."""

import json
import math

from models.scenario.limits import SCHEMA_VERSION
from models.scenario.paths import format_keys


class ScenarioError(ValueError):
    """A scenario document that cannot be used, with every problem found.

    ``problems`` is a list of ``(path, message)`` pairs; ``str()`` gives one
    line per problem, ``path: message``.
    """

    def __init__(self, problems, source=None):
        self.problems = list(problems)
        self.source = source
        super().__init__(self._text())

    def _text(self):
        prefix = f"{self.source}: " if self.source else ""
        return "\n".join(f"{prefix}{path}: {message}" if path
                         else f"{prefix}{message}"
                         for path, message in self.problems)


class RefusedQuantity(str):
    """A quantity refused for its unit: strict validation reports the
    field as not a number, and the message says why."""

    reason = ""


_TYPE_NAMES = {"float_type": "a number", "int_type": "a whole number",
               "bool_type": "true or false", "string_type": "a string",
               "list_type": "a list", "dict_type": "a table",
               "model_type": "a table", "tuple_type": "a list",
               "int_from_float": "a whole number"}


def problems(err):
    return [(format_keys(e["loc"]), _message(e)) for e in err.errors()]


def _message(error):
    kind, ctx, value = error["type"], error.get("ctx", {}), error.get("input")
    if isinstance(value, RefusedQuantity):
        return value.reason
    got = f"got {_show(value)}"
    if kind == "greater_than":
        return f"must be > {ctx['gt']:g}, {got}"
    if kind == "greater_than_equal":
        return f"must be >= {ctx['ge']:g}, {got}"
    if kind == "less_than":
        return f"must be < {ctx['lt']:g}, {got}"
    if kind == "less_than_equal":
        return f"must be <= {ctx['le']:g}, {got}"
    if kind == "multiple_of":
        return f"must be a multiple of {ctx['multiple_of']:g}, {got}"
    if kind == "finite_number":
        return f"must be a finite number, {got}"
    if kind == "extra_forbidden":
        return f"unknown key (not in schema version {SCHEMA_VERSION})"
    if kind == "missing":
        return "required field is missing"
    if kind == "literal_error":
        return f"must be {ctx['expected']}, {got}"
    if kind == "too_long" and "actual_length" in ctx:
        return (f"has {ctx['actual_length']:,} entries, more than the "
                f"{ctx['max_length']:,} a document may have")
    if kind in ("too_short", "too_long"):
        return f"{error['msg'].lower()}, {got}"
    if kind == "string_pattern_mismatch":
        return f"has an invalid format, {got}"
    if kind in _TYPE_NAMES:
        return f"must be {_TYPE_NAMES[kind]}, {got}"
    message = error["msg"].removeprefix("Value error, ")
    return message if kind == "value_error" else f"{message}, {got}"


def _show(value):
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, (dict, list)):
        text = json.dumps(value, default=str)
        return text if len(text) <= 60 else text[:57] + "..."
    return f"{value!r} ({type(value).__name__})" if isinstance(value, str) \
        else repr(value)
