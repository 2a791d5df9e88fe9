"""The firm boundaries: models/ and solvers/ (and the CLI path) import no
Qt; models/ and solvers/ do no file I/O (architecture.md, "Boundaries")."""

import ast
import subprocess
import sys

import grimp
import pytest

from tests.conftest import QT_PACKAGES, ROOT

# every module below models/ and solvers/, the analyses included
CORE = sorted((ROOT / "models").rglob("*.py")) + \
    sorted((ROOT / "solvers").rglob("*.py"))
QT_FREE_APP = [ROOT / "app" / name for name in
               ("__main__.py", "cli.py", "cli_common.py", "sweep_cli.py",
                "scenario_io.py", "paths.py",
                "validation_io.py", "session.py", "grid_rows.py",
                "new_entries.py", "sweep_run.py", "variant_edits.py")] + \
    sorted((ROOT / "app" / "importers").glob("*.py")) + \
    sorted((ROOT / "app" / "presentation").glob("*.py"))


def imported_packages(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module.partition(".")[0]


@pytest.mark.parametrize("path", CORE + QT_FREE_APP,
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_qt_import_anywhere_in_the_file(path):
    # covers imports inside functions too, which a run might not reach
    assert not set(imported_packages(path)) & QT_PACKAGES


@pytest.mark.parametrize("path", CORE, ids=lambda p: str(p.relative_to(ROOT)))
def test_core_does_no_file_io(path):
    tree = ast.parse(path.read_text())
    calls = {node.func.id for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert "open" not in calls
    assert not {"os", "pathlib", "shutil", "tempfile"} & \
        set(imported_packages(path))


def test_cli_solve_loads_no_qt_module():
    code = ("import sys\nfrom app.cli import main\n"
            "code = main(['solve', 'resources/examples/jumbo_10gbe.toml', "
            "'--format', 'json'])\n"
            "loaded = sorted(m for m in sys.modules "
            f"if m.partition('.')[0] in {sorted(QT_PACKAGES)!r})\n"
            "print(code, loaded, file=sys.stderr)\n")
    process = subprocess.run([sys.executable, "-c", code], cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
    assert process.stderr.strip().endswith("0 []"), process.stderr


def test_no_import_circles():
    # Issue 13: application <-> main_window <-> report/pdf and
    # advise <-> evaluate were circles; a strongly connected component of
    # more than one module in the import graph is one (Tarjan's algorithm).
    graph = grimp.build_graph("app", "solvers", "models")
    index, low, stack, on_stack, circles = {}, {}, [], set(), []

    def visit(module):
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    assert circles == []


#: Issue 31: a module past this is split along its seams.
MAX_SOURCE_LINES = 1000


@pytest.mark.parametrize("folder", ["app", "models", "solvers"])
def test_no_source_file_over_the_line_limit(folder):
    too_long = {str(path.relative_to(ROOT)): lines
                for path in (ROOT / folder).rglob("*.py")
                if (lines := len(path.read_text(encoding="utf-8")
                                 .splitlines())) > MAX_SOURCE_LINES}
    assert not too_long, too_long
