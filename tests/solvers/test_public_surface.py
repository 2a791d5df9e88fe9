"""The packages' public surfaces (issue 31, item 5): ``solvers`` exports
``evaluate``, ``advise``, ``sweep`` and ``Results`` without making its own
import expensive, and ``models`` lists its modules."""

import importlib
import pkgutil
import subprocess
import sys
import types

import pytest

import models
import solvers
from tests.conftest import ROOT


def in_fresh_python(code):
    """What ``code`` prints in a new interpreter started at the repository's
    root (so that this checkout's packages are the ones imported)."""
    process = subprocess.run([sys.executable, "-c", code], cwd=ROOT,
                             capture_output=True, text=True, timeout=120)
    assert process.returncode == 0, process.stderr
    return process.stdout.strip()


def test_importing_solvers_imports_no_numpy():
    # `linkplan --version` imports solvers for its __version__ and must
    # start fast: numpy alone takes ~0.1 s, the models and scipy far more
    assert in_fresh_python(
        "import sys, solvers; print(solvers.__version__, "
        "sorted(m for m in sys.modules if m.partition('.')[0] in "
        "('numpy', 'scipy', 'models') or m.startswith('solvers.')))") == \
        f"{solvers.__version__} []"


def test_the_public_names_import_and_are_what_they_say():
    from solvers import Results, advise, evaluate, sweep
    assert sorted(solvers.__all__) == ["Results", "advise", "evaluate",
                                       "sweep"]
    assert evaluate is importlib.import_module("solvers.evaluate").evaluate
    assert advise is importlib.import_module("solvers.advise").advise
    assert sweep is importlib.import_module("solvers.sweep")
    assert Results is importlib.import_module("solvers.results").Results
    assert callable(sweep.plan) and callable(sweep.run)
    assert set(solvers.__all__) <= set(dir(solvers))


def test_functions_stay_public_after_their_submodule_is_imported():
    # importing solvers.evaluate sets the package's attribute `evaluate`
    # to the submodule; the public name must still be the function, in
    # whichever order the two are first reached
    assert in_fresh_python(
        "import solvers.advise\n"
        "from solvers import advise, evaluate\n"
        "import solvers\n"
        "print(type(evaluate).__name__, type(advise).__name__, "
        "type(solvers.evaluate).__name__)") == "function function function"
    assert isinstance(solvers.evaluate, types.FunctionType)
    assert isinstance(solvers.advise, types.FunctionType)


def test_replacing_a_public_function_is_refused_with_the_way_to_patch():
    with pytest.raises(AttributeError, match="import_module"):
        solvers.evaluate = print
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        solvers.nothing


def test_models_lists_each_of_its_public_modules():
    modules = sorted(m.name for m in pkgutil.iter_modules(models.__path__)
                     if not m.name.startswith("_"))
    assert sorted(models.__all__) == modules, (
        "models/__init__.py's __all__ must list the package's modules")
