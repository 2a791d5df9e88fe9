"""Vectorised argument checks shared by the model functions.

Each check looks at a whole array at once (no loop per scenario) and raises
``ValueError`` naming the parameter, the rule and the first offending value,
so bad input never turns into NaN further down.
"""

import numpy as np


def _first_bad(values, bad_mask):
    return np.broadcast_to(values, bad_mask.shape)[bad_mask].flat[0]


def require_positive(name, values, unit=""):
    """Raise ValueError unless every element is finite and > 0."""
    values = np.asarray(values, dtype=float)
    bad = ~(np.isfinite(values) & (values > 0))
    if bad.any():
        raise ValueError(
            f"{name} must be a finite number > 0{_unit(unit)}, "
            f"got {_first_bad(values, bad)!r}")
    return values


def require_range(name, values, low, high, unit=""):
    """Raise ValueError unless every element is finite and in [low, high]."""
    values = np.asarray(values, dtype=float)
    bad = ~(np.isfinite(values) & (values >= low) & (values <= high))
    if bad.any():
        raise ValueError(
            f"{name} must be between {low:g} and {high:g}{_unit(unit)}, "
            f"got {_first_bad(values, bad)!r}")
    return values


def require_choice(name, values, allowed):
    """Raise ValueError unless every element is one of ``allowed``."""
    values = np.asarray(values)
    bad = ~np.isin(values, list(allowed))
    if bad.any():
        choices = ", ".join(repr(a) for a in allowed)
        raise ValueError(
            f"{name} must be one of {choices}, "
            f"got {_first_bad(values, bad)!r}")
    return values


def _unit(unit):
    return f" [{unit}]" if unit else ""
