"""Scenario documents for many parameter combinations, built fast.

Sweeps and searches evaluate thousands of points that differ from one base
scenario in a few parameters. Validating each point as a whole document
costs about 100 µs; instead each axis value is validated once on the base,
the corners of the grid are validated whole (rules that link parameters,
such as IPv6's minimum MTU), and each point copies only the branches of the
document its values change.
"""

import contextlib
import gc
import itertools

import numpy as np

from models.scenario import ScenarioError, parse_path

#: Axes with more distinct values than this have their extremes validated
#: in a whole document, and every value on the model that holds the field
#: (its type, bounds and allowed values; about 30 times cheaper): the
#: rules that link fields are assumed to hold between the extremes, as
#: they are intervals.
VALIDATE_EACH_UP_TO = 16

#: Most corner points validated as whole documents.
MAX_CORNERS = 64


@contextlib.contextmanager
def paused_gc():
    """Pause the cyclic garbage collector while a batch of points is built
    and evaluated. A batch allocates a few dozen objects per point and
    makes no reference cycles, so reference counting frees all of it; the
    cyclic collector would only rescan the growing heap again and again
    (measured: 40 % of a 10,000-point search)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def axis_values(axis):
    """The values of one sweep axis (``values``, ``range``, ``linspace`` or
    ``logspace`` with base-10 exponents), as a list; computed values that
    are whole numbers are ints."""
    if axis.values is not None:
        return list(axis.values)
    if axis.range is not None:
        r = axis.range
        count = int(np.floor((r.stop - r.start) / r.step + 1e-9)) + 1
        values = (r.start + r.step * np.arange(count)).tolist()
    else:
        span = axis.linspace or axis.logspace
        grid = np.linspace(span.start, span.stop, span.num)
        values = (10.0 ** grid if axis.logspace else grid).tolist()
    # whole numbers stay whole, so that integer fields (MTU, counts)
    # accept a span; float fields accept them as they are
    return [int(v) if v.is_integer() else v for v in values]


def product_indices(lengths, start, stop):
    """Per axis of a product grid with ``lengths`` values per axis, the
    index of the value of each point ``start`` to ``stop`` (numpy arrays;
    the last axis varies fastest)."""
    points = np.arange(start, stop)
    digits = []
    for length in reversed(lengths):
        points, digit = np.divmod(points, length)
        digits.append(digit)
    return tuple(reversed(digits))


def grid_documents(base, paths, combos, converters=None):
    """One document per combination of values.

    Parameters
    ----------
    base : Scenario
        The scenario the points change (without variants).
    paths : list of str
        Parameter paths, one per position in each combination.
    combos : sequence of tuple
        The values of each point.
    converters : list, optional
        What :func:`validate_values` returned for these axes; without it
        the values are validated here (a sweep validates once for all its
        chunks).

    Returns
    -------
    list of Scenario

    Raises
    ------
    ValueError
        Naming the path and value the schema refuses.
    """
    if converters is None:
        converters = validate_values(
            base, paths, [sorted({c[i] for c in combos}, key=repr)
                          for i in range(len(paths))])
    keys = [parse_path(path) for path in paths]
    # Axes under the same top-level field form a group; the changed copy of
    # that field depends only on the group's values, so it is built once
    # per distinct value tuple and shared by every point that has them.
    groups = {}
    for axis, key in enumerate(keys):
        groups.setdefault(key[0], []).append(axis)
    cache = {top: {} for top in groups}
    documents = []
    for combo in combos:
        update = {}
        for top, axes in groups.items():
            values = tuple(combo[a] for a in axes)
            branch = cache[top].get(values)
            if branch is None:
                branch = _replace(getattr(base, top), [
                    (keys[a][1:], convert(converters[a], combo[a]))
                    for a in axes])
                cache[top][values] = branch
            update[top] = branch
        documents.append(base.model_copy(update=update))
    return documents


def replaced(base, changes):
    """``base`` with each path of ``changes`` (path -> value) set, not
    validated again: the values are validated ones (:func:`convert`), or
    numpy arrays of them for the column path's builders
    (:mod:`solvers.columns`). Branches the changes do not touch are the
    base's own objects."""
    return _replace(base, [(parse_path(path), value)
                           for path, value in changes.items()])


def validate_values(base, paths, values_per_axis):
    """Check every axis's values against the schema, and the corners of the
    grid as whole documents.

    A grid whose axes have few values each (the sweeps of a fleet) is
    checked by its corners alone (:func:`_corner_converters`); when that
    fails, or does not apply, each value is checked in a document of its
    own, then the corners, which names the first value refused.

    Returns
    -------
    list
        Per axis, what :func:`convert` needs to turn a raw value into the
        validated one: a dict by ``repr`` of each value, or the type of a
        numeric axis with many values. Plain data, so worker processes
        can receive it.
    """
    try:
        converters = _corner_converters(base, paths, values_per_axis)
    except (ValueError, LookupError, TypeError, AttributeError):
        # pydantic's ValidationError is a ValueError
        converters = None
    if converters is not None:
        return converters
    return _validate_each(base, paths, values_per_axis)


def _validate_each(base, paths, values_per_axis):
    """:func:`validate_values` value by value, each in a whole document,
    then the corners: the first value refused is named."""
    converters = []
    extremes = []
    for path, values in zip(paths, values_per_axis):
        if not values:
            raise ValueError(f"{path}: no values")
        if _each_value_checked(values):
            converters.append({repr(v): _validated(base, path, v)
                               for v in values})
            extremes.append([values[0], values[-1]] if len(values) > 1
                            else values[:1])
        else:
            low, high = min(values), max(values)
            kind = type(_validated(base, path, low))
            _validated(base, path, high)
            if kind is int and any(float(v) != int(v) for v in values):
                raise ValueError(f"{path}: needs whole numbers, got "
                                 f"{next(v for v in values if v != int(v))!r}")
            _validated_on_parent(base, path, values)
            converters.append(kind)
            extremes.append([low, high])
    for corner in itertools.islice(itertools.product(*extremes),
                                   MAX_CORNERS):
        try:
            base.with_values(dict(zip(paths, corner)))
        except ScenarioError as err:
            raise ValueError(f"the grid point {dict(zip(paths, corner))} "
                             f"is not valid: {err}") from None
    return converters


def _each_value_checked(values):
    return len(values) <= VALIDATE_EACH_UP_TO or not all(
        isinstance(v, (int, float)) for v in values)


def _corner_converters(base, paths, values_per_axis):
    """:func:`validate_values` of axes of at most
    :data:`VALIDATE_EACH_UP_TO` values, else None; raises at the first
    document refused, without naming it.

    The corners are validated as whole documents, each again only along
    its changed paths (:func:`_changed_document`), and give the validated
    values they hold: every point of a grid of two values an axis is a
    corner, so that its values need no document of their own. The other
    values are each validated in one (a value of an axis at the base's
    other values, as :func:`validate_values` does)."""
    if not all(values and _each_value_checked(values)
               for values in values_per_axis):
        return None
    keys = [parse_path(path) for path in paths]
    converters = [{} for _ in paths]
    extremes = [[values[0], values[-1]] if len(values) > 1 else values[:1]
                for values in values_per_axis]
    for corner in itertools.islice(itertools.product(*extremes),
                                   MAX_CORNERS):
        document = _changed_document(base, list(zip(keys, corner)))
        for converter, at, value in zip(converters, keys, corner):
            converter.setdefault(repr(value), _node(document, at))
    for converter, at, values in zip(converters, keys, values_per_axis):
        for value in values:
            if repr(value) not in converter:
                converter[repr(value)] = _node(
                    _changed_document(base, [(at, value)]), at)
    return converters


def convert(converter, value):
    """A raw axis value as validated (see :func:`validate_values`)."""
    if isinstance(converter, dict):
        return converter[repr(value)]
    return converter(value)


def convert_all(converter, values):
    """:func:`convert` of every value of an axis, as a numpy array: a
    number met again (an axis that cycles through a few settings) is
    looked up once, not by its ``repr`` at every point."""
    if not isinstance(converter, dict):
        return np.array([converter(value) for value in values])
    done = {}
    out = []
    for value in values:
        # by type too: 1, 1.0 and True are equal keys with other reprs
        key = (value.__class__, value) \
            if isinstance(value, (int, float, str)) else None
        if key is None:
            out.append(convert(converter, value))
            continue
        if key not in done:
            done[key] = convert(converter, value)
        out.append(done[key])
    return np.array(out)


def _validated(base, path, value):
    try:
        changed = base.with_value(path, value)
    except ScenarioError as err:
        raise ValueError(f"{path} = {value!r}: {err}") from None
    except KeyError as err:
        raise ValueError(f"{path}: {err.args[0]}") from None
    return _node(changed, parse_path(path))


def _node(document, keys):
    """The validated value at ``keys`` (:func:`parse_path`) in
    ``document``."""
    node = document
    for key in keys:
        node = node[key] if isinstance(key, int) else getattr(node, key)
    return node


def _validated_on_parent(base, path, values):
    """Check each value on the model that holds the field at ``path``."""
    from pydantic import ValidationError

    keys = parse_path(path)
    parent = base
    for key in keys[:-1]:
        parent = parent[key] if isinstance(key, int) else \
            getattr(parent, key)
    data = parent.model_dump(mode="json")
    for value in values:
        data[keys[-1]] = value
        try:
            type(parent).model_validate(data)
        except ValidationError as err:
            raise ValueError(f"{path} = {value!r}: "
                             f"{err.errors()[0]['msg']}") from None


def _changed_document(base, changes):
    """``base.with_values(changes)``, the changes as ``(keys, value)``
    (keys: :func:`parse_path` of the path), validating again
    only the models on the changed paths, each from its fields: every
    other branch is the base's validated object, which pydantic takes as
    it is (as models.scenario resolves a variant), so that a document of
    hundreds of fields costs what its changed branches cost. Raises what
    validation raises (pydantic's ValidationError, or a LookupError for a
    path the document does not have)."""
    changed = _replace(base, changes, validate=True)
    if changed.variants:
        changed.variant_documents()   # each must validate, as in with_values
    return changed


def _replace(node, changes, validate=False):
    """A copy of ``node`` with each ``(keys, value)`` applied; every node
    on a changed branch is copied once, however many changes pass it;
    with ``validate`` every model on a changed branch is validated again
    (the others are kept as they are)."""
    if len(changes) == 1 and not changes[0][0]:
        return changes[0][1]
    branches = {}
    for keys, value in changes:
        branches.setdefault(keys[0], []).append((keys[1:], value))
    if isinstance(node, list):
        items = list(node)
        for index, rest in branches.items():
            items[index] = _replace(items[index], rest, validate)
        return items
    if not validate:
        return node.model_copy(update={
            key: _replace(getattr(node, key), rest)
            for key, rest in branches.items()})
    fields = type(node).model_fields
    unknown = [key for key in branches if key not in fields]
    if unknown:
        raise KeyError(f"no field {unknown[0]!r}")
    data = {name: getattr(node, name) for name in fields}
    data.update({key: _replace(data[key], rest, validate)
                 for key, rest in branches.items()})
    return type(node).model_validate(data)
