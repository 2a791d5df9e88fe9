"""Numeric procedures on the models and the one ``evaluate`` entry point.

Kept free of Qt and of file I/O; importing this package is cheap (no numpy)
so that ``linkplan --version`` starts fast: the public names are imported
on first use.

The public surface::

    from solvers import Results, advise, evaluate, sweep

    results = evaluate(scenario)        # Results: base and every variant
    advice = advise(scenario)           # recommendations, ranked
    plan = sweep.plan(scenario)         # the scenario's [[sweeps]] ...
    for chunk in sweep.run(scenario, plan):
        ...                             # ... evaluated chunk by chunk

``evaluate`` and ``advise`` name the functions, not the submodules that
define them; reach a submodule's other names with ``from
solvers.evaluate import ...`` (or ``importlib.import_module``).
"""

import importlib
import sys
import types

#: Linkplan's version, stamped into every result and report.
__version__ = "0.1.0"

#: Each public name and where it lives: (module, attribute), or None for
#: the module itself.
_PUBLIC = {"evaluate": ("solvers.evaluate", "evaluate"),
           "advise": ("solvers.advise", "advise"),
           "sweep": ("solvers.sweep", None),
           "Results": ("solvers.results", "Results")}

__all__ = list(_PUBLIC)


def _public(name):
    module, attribute = _PUBLIC[name]
    loaded = importlib.import_module(module)
    return loaded if attribute is None else getattr(loaded, attribute)


def __getattr__(name):
    """The public names, imported on first use (PEP 562)."""
    if name in _PUBLIC:
        return _public(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


def _function_over_submodule(name):
    """A property that gives the public function ``name`` though a
    submodule of the same name exists: importing ``solvers.<name>`` sets
    the package's attribute to the submodule, which would hide the
    function for good (``__getattr__`` is only asked for missing names).
    That assignment is ignored; any other is refused."""
    def assign(package, value):
        if not (isinstance(value, types.ModuleType)
                and value.__name__ == f"{__name__}.{name}"):
            raise AttributeError(
                f"{__name__}.{name} is the public function; patch the "
                f"module {__name__}.{name} (importlib.import_module) "
                "instead")
    return property(lambda package: _public(name), assign)


class _Package(types.ModuleType):
    """This package's module type: its two public functions that share
    their submodule's name."""

    evaluate = _function_over_submodule("evaluate")
    advise = _function_over_submodule("advise")


sys.modules[__name__].__class__ = _Package
