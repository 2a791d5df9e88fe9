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
CEILING = {"wire": 9, "host": 37, "migration": 20, "teaming": 17,
           "storage": 27, "pcie": 4, "evacuation": 14, "cluster": 11,
           "pfc": 0}

SOURCES = sorted(path for folder in ("app", "models", "solvers")
                 for path in (ROOT / folder).rglob("*.py"))


def mentions(tree):
    """What a parsed source file names: its string literals, the
    attributes it takes of ``metric_ids`` (builders) and the names it
    imports (``module`` and ``module.name``)."""
    strings, builders, imports = set(), set(), set()
    # a package's __all__ lists its modules' names: no branch on them
    listed = {id(constant) for node in ast.walk(tree)
              if isinstance(node, ast.Assign) and any(
                  isinstance(t, ast.Name) and t.id == "__all__"
                  for t in node.targets)
              for constant in ast.walk(node.value)}
    for node in ast.walk(tree):
        if id(node) in listed:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            strings.add(node.value)
        elif isinstance(node, ast.Attribute) and \
                isinstance(node.value, ast.Name) and \
                node.value.id in ("metric_ids", "ids"):
            builders.add(node.attr)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imports.add(node.module)
            imports.update(f"{node.module}.{a.name}" for a in node.names)
    return strings, builders, imports


def files_naming(analysis, sources):
    """Source files (relative paths) outside the analysis's own module
    and model modules that name it; ``sources``: path -> (module,
    :func:`mentions`)."""
    own = {analysis.module, *analysis.models}
    families = {analysis.name} | {item.name for item in analysis.items}
    return [path for path, (module, (strings, builders, imports))
            in sources.items() if module not in own and (
                any(s in families or s.partition(".")[0] in families
                    and "." in s for s in strings)
                or builders & families
                or analysis.module in imports
                or {f"solvers.{grammar}.{f}" for f in families
                    for grammar in ("metric_ids", "metric_grammar")}
                & imports)]


@pytest.fixture(scope="module")
def sources():
    return {str(path.relative_to(ROOT)): (
        ".".join(path.relative_to(ROOT).with_suffix("").parts),
        mentions(ast.parse(path.read_text(encoding="utf-8"))))
        for path in SOURCES}


@pytest.mark.parametrize("analysis", registry(), ids=lambda a: a.name)
def test_an_analysis_is_named_in_no_more_files_than_before(analysis,
                                                            sources):
    found = files_naming(analysis, sources)
    assert len(found) <= CEILING[analysis.name], found


@pytest.mark.parametrize("code", [
    'if family == "wire": pass',                  # its name
    'shown = ["wire.goodput_gbps"]',              # one of its metric ids
    'from solvers.analyses import wire',          # its module
])
def test_the_count_sees_a_new_mention(sources, code):
    # a face that branches on an analysis is counted
    wire = next(a for a in registry() if a.name == "wire")
    before = len(files_naming(wire, sources))
    sources = dict(sources, **{"app/new_face.py": (
        "app.new_face", mentions(ast.parse(code)))})
    assert len(files_naming(wire, sources)) == before + 1
