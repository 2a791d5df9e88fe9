"""How far each analysis spreads: the source files of app/, models/ and
solvers/ outside its own analysis and model modules that name it (a string
literal of its name or of one of its metric families, ``"evacuation"`` or
``"evacuation.total_s"``; its metric-id builder, ``metric_ids.evacuation``;
or its analysis module). Issue 31 asks for at most 4 per analysis; until
the faces read everything from the declarations (solvers/analysis.py),
:data:`CEILING` records where each stands, so a change that spreads an
analysis further fails here."""

import ast

import pytest

from solvers.analyses import registry
from tests.conftest import ROOT

#: Files naming each analysis now (issue 31's target: 4). Lower it when a
#: change removes a mention; never raise it. "host" counts every "host"
#: literal, most of them the document's host section.
CEILING = {"wire": 8, "host": 36, "migration": 14, "teaming": 13,
           "storage": 22, "pcie": 2, "evacuation": 12, "cluster": 9}

SOURCES = sorted(path for folder in ("app", "models", "solvers")
                 for path in (ROOT / folder).rglob("*.py"))


def _names(tree, module, families):
    """Whether a parsed source file names the analysis."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and any(node.value == f or node.value.startswith(f + ".")
                        for f in families):
            return True
        if isinstance(node, ast.Attribute) and node.attr in families and \
                isinstance(node.value, ast.Name) and \
                node.value.id in ("metric_ids", "ids"):
            return True
        if isinstance(node, ast.ImportFrom) and node.module and (
                node.module == module or node.module == "solvers.analyses"
                and any(a.name == module.rpartition(".")[2]
                        for a in node.names)
                or node.module == "solvers.metric_ids"
                and any(a.name in families for a in node.names)):
            return True
    return False


def files_naming(analysis, trees):
    """Source files (relative paths) outside the analysis's own module
    and model modules that name it."""
    own = {analysis.module, *analysis.models}
    families = {analysis.name} | {item.name for item in analysis.items}
    return [name for name, (module, tree) in trees.items()
            if module not in own and _names(tree, analysis.module,
                                            families)]


@pytest.fixture(scope="module")
def trees():
    return {str(path.relative_to(ROOT)): (
        ".".join(path.relative_to(ROOT).with_suffix("").parts),
        ast.parse(path.read_text(encoding="utf-8")))
        for path in SOURCES}


@pytest.mark.parametrize("analysis", registry(), ids=lambda a: a.name)
def test_an_analysis_is_named_in_no_more_files_than_before(analysis,
                                                            trees):
    found = files_naming(analysis, trees)
    assert len(found) <= CEILING[analysis.name], found


def test_the_count_sees_a_new_mention(trees):
    # a face that branches on an analysis's name is counted
    wire = next(a for a in registry() if a.name == "wire")
    before = len(files_naming(wire, trees))
    trees = dict(trees, **{"app/new_face.py": (
        "app.new_face", ast.parse('if family == "wire": pass'))})
    assert len(files_naming(wire, trees)) == before + 1
