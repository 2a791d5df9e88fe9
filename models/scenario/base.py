"""What every table of the scenario document shares: strict validation
(no unknown keys, no coercion, numbers within the document's limits),
quantities with units in text (``"1.5 GB/s"``), the field kinds used
across tables (names, MAC addresses) and the check for unique names."""

import functools
import re

from pydantic import BaseModel, ConfigDict, Field, field_validator, \
    model_validator

from models.scenario.errors import RefusedQuantity
from models.scenario.limits import (LARGEST_MAGNITUDE, SMALLEST_MAGNITUDE,
                                    representation_problem)
from models.units import field_unit, parse_quantity


class StrictModel(BaseModel):
    """Common rules: no unknown keys, no type coercion, no NaN or infinity,
    numbers within what the models represent, valid Unicode text."""

    model_config = ConfigDict(extra="forbid", strict=True,
                              allow_inf_nan=False, frozen=True)

    @field_validator("*")
    @classmethod
    def _within_model_range(cls, value):
        # runs for every field of every document: numbers and lists of
        # numbers only (pydantic itself refuses text UTF-8 cannot encode)
        kind = type(value)
        if kind is float or kind is int:
            if value and not SMALLEST_MAGNITUDE <= abs(value) \
                    <= LARGEST_MAGNITUDE:
                raise ValueError(representation_problem(value))
        elif kind is list and value and type(value[0]) in (float, int):
            problem = representation_problem(value)
            if problem:
                raise ValueError(problem)
        return value

    @model_validator(mode="before")
    @classmethod
    def _typed_quantities(cls, data):
        # "1.5 GB/s" for a field in MiB/s: the number in the field's unit
        # (checked only where a value is text at all: C-speed tests)
        if type(data) is dict and str in map(type, data.values()):
            quantities = _quantity_fields(cls)
            typed = [k for k in quantities.keys() & data.keys()
                     if type(data[k]) is str]
            if typed:
                data = dict(data)
                for key in typed:
                    data[key] = _quantity(data[key], key, *quantities[key])
        return data


@functools.cache
def _quantity_fields(model):
    """``{field: (unit, whole)}`` of a model's numeric fields that have a
    unit (:func:`models.units.field_unit`)."""
    fields = {}
    for name, info in model.model_fields.items():
        kinds = [a for a in getattr(info.annotation, "__args__",
                                    (info.annotation,))
                 if a is not type(None)]
        if len(kinds) == 1 and kinds[0] in (int, float):
            unit = field_unit(name, info.description or "")
            if unit:
                fields[name] = (unit, kinds[0] is int)
    return fields


def _quantity(text, name, unit, whole):
    if not re.search(r"[^\d\s.,_eE+-]", text):
        return text   # a quoted bare number: refused as a string still
    try:
        value = parse_quantity(text, unit, field=name)
    except ValueError as err:
        refused = RefusedQuantity(text)
        refused.reason = str(err).removeprefix(f"{name}: ")
        return refused
    if whole:
        if abs(value - round(value)) > 1e-9 * max(1.0, abs(value)):
            refused = RefusedQuantity(text)
            refused.reason = (f"{text!r} is {value:g} {unit}; give a whole "
                              f"number of {unit}")
            return refused
        return int(round(value))
    return value


def identifier(description=None):
    """A field holding a name other entries refer to: letters, digits and
    ``_.:-``, 1 to 64 characters."""
    return Field(pattern=r"^[A-Za-z0-9_.:-]+$", min_length=1, max_length=64,
                 description=description)


def mac_address(description=None):
    """An optional field holding a MAC address, six hex pairs separated
    by ``:`` or ``-``."""
    return Field(default=None,
                 pattern=r"^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$",
                 description=description)


def check_unique(where, names, key):
    seen = set()
    for i, name in enumerate(names):
        if name in seen:
            raise ValueError(f"{where}[{i}].{key} {name!r} is used twice")
        seen.add(name)
