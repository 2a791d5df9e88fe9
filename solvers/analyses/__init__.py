"""The analyses evaluate() runs, one module each (the contract is in
:mod:`solvers.analysis`), found here by name so that adding one registers
it."""

import functools
import importlib
import pkgutil


@functools.cache
def registry():
    """Every analysis module of :mod:`solvers.analyses`, in ``ORDER``.

    Raises
    ------
    ValueError
        An analysis requires one that does not run before it.
    RuntimeError
        No analysis module is found (a frozen build must collect them as
        files: build.spec).
    """
    modules = [importlib.import_module(f"{__name__}.{info.name}")
               for info in pkgutil.iter_modules(__path__)]
    if not modules:   # e.g. a frozen build that did not collect them
        raise RuntimeError(f"no analysis module found in {__path__}")
    modules.sort(key=lambda module: module.ORDER)
    seen = set()
    for module in modules:
        missing = set(module.REQUIRES) - seen
        if missing:
            raise ValueError(f"analysis {module.NAME!r} requires "
                             f"{sorted(missing)}, which do not run before "
                             "it (ORDER)")
        seen.add(module.NAME)
    return tuple(modules)


