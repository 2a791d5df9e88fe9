"""Vectorised argument checks shared by the model functions, and the exact
arithmetic selection (:func:`pick`) their hot paths use.

Each check looks at a whole array at once (no loop per scenario) and raises
``ValueError`` naming the parameter, the rule and the first offending value,
so bad input never turns into NaN further down.
"""

import numpy as np


def _within(values, low, high, *, low_open=False):
    """Every element finite and in range, by two reductions rather than
    element-wise masks (NaN propagates through min and max and fails)."""
    if values.size == 0:
        return True
    smallest, largest = values.min(), values.max()
    above = smallest > low if low_open else smallest >= low
    return bool(above and largest <= high and np.isfinite(largest))


def _first_bad(values, bad_mask):
    return np.broadcast_to(values, bad_mask.shape)[bad_mask].flat[0]


def require_positive(name, values, unit=""):
    """Raise ValueError unless every element is finite and > 0."""
    values = np.asarray(values, dtype=float)
    if _within(values, 0.0, np.inf, low_open=True):
        return values
    bad = ~(np.isfinite(values) & (values > 0))
    if bad.any():
        raise ValueError(
            f"{name} must be a finite number > 0{_unit(unit)}, "
            f"got {_first_bad(values, bad)!r}")
    return values


def require_range(name, values, low, high, unit=""):
    """Raise ValueError unless every element is finite and in [low, high]."""
    values = np.asarray(values, dtype=float)
    if _within(values, low, high):
        return values
    bad = ~(np.isfinite(values) & (values >= low) & (values <= high))
    if bad.any():
        raise ValueError(
            f"{name} must be between {low:g} and {high:g}{_unit(unit)}, "
            f"got {_first_bad(values, bad)!r}")
    return values


def require_choice(name, values, allowed):
    """Raise ValueError unless every element is one of ``allowed``."""
    values = np.asarray(values)
    # a few equality masks beat np.isin (which sorts) for small sets
    good = np.zeros(values.shape, dtype=bool)
    for choice in allowed:
        good |= values == choice
    bad = ~good
    if bad.any():
        choices = ", ".join(repr(a) for a in allowed)
        raise ValueError(
            f"{name} must be one of {choices}, "
            f"got {_first_bad(values, bad)!r}")
    return values


def _unit(unit):
    return f" [{unit}]" if unit else ""


def as_codes(name, values, choices):
    """Names (or their integer codes) as int8 codes into ``choices``.

    Model functions accept readable names; hot paths may pass the codes
    directly, which compares far faster than strings. Either way an unknown
    value raises ValueError naming the parameter.
    """
    values = np.asarray(values)
    if values.dtype.kind in "US":
        codes = np.full(values.shape, -1, dtype=np.int8)
        for index, choice in enumerate(choices):
            codes[values == choice] = index
    elif values.dtype.kind in "iu":
        codes = values.astype(np.int8)
        if values.size and values.min() >= 0 and values.max() < len(choices):
            return codes
        codes[(values < 0) | (values >= len(choices))] = -1
    else:
        codes = np.full(values.shape, -1, dtype=np.int8)
    bad = codes < 0
    if bad.any():
        names = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {names}, "
                         f"got {_first_bad(values, bad)!r}")
    return codes


def pick(condition, if_true, if_false):
    """``np.where`` for finite values, by arithmetic.

    With randomly mixed conditions (a grid over transports, say) np.where's
    data-dependent branches cost several times a multiply-add pass. The
    result is exact: ``a * 1 + b * 0`` is ``a``. Infinite branches would
    give NaN (``inf * 0``), so those keep np.where.
    """
    weight = np.asarray(condition, dtype=float)
    return if_true * weight + if_false * (1.0 - weight)
