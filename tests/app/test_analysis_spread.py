"""How far each analysis spreads: the source files of app/, models/ and
solvers/ outside its own analysis and model modules that name it (a string
literal of its name or of one of its metric families, ``"evacuation"`` or
``"evacuation.total_s"``; its metric-id builder, ``metric_ids.evacuation``;
or its analysis module). A dotted literal that names a file
(``"evacuation.toml"``) or a field of the document
(``"cluster.host_groups"``) and no declared metric names the document, not
the analysis, and is not counted. Issue 31 asks for at most 4 per analysis; until
the faces read everything from the declarations (solvers/analysis.py),
:data:`CEILING` records where each stands, so a change that spreads an
analysis further fails here."""

import ast
import re
import types
import typing

import pytest

from models.scenario import Scenario
from solvers import metric_ids
from solvers.analyses import registry
from tests.conftest import ROOT

#: Files naming each analysis now (issue 31's target: 4). Lower it when a
#: change removes a mention; never raise it. "host" counts every "host"
#: literal, most of them the document's host section.
CEILING = {"wire": 5, "host": 32, "migration": 10, "teaming": 12,
           "storage": 18, "pcie": 3, "evacuation": 7, "cluster": 6,
           "pfc": 0}

SOURCES = sorted(path for folder in ("app", "models", "solvers")
                 for path in (ROOT / folder).rglob("*.py"))


def mentions(tree):
    """What a parsed source file names: its string literals, the
    attributes it takes of ``metric_ids`` (builders) and the names it
    imports (``module`` and ``module.name``; a name imported only to be
    listed in ``__all__`` is re-exported, not used)."""
    strings, builders, imports = set(), set(), set()
    # a package's __all__ lists its modules' names: no branch on them
    listed = {id(constant) for node in ast.walk(tree)
              if isinstance(node, ast.Assign) and any(
                  isinstance(t, ast.Name) and t.id == "__all__"
                  for t in node.targets)
              for constant in ast.walk(node.value)}
    exported = {node.value for node in ast.walk(tree)
                if id(node) in listed and isinstance(node, ast.Constant)}
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Load)}
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
            imports.update(f"{node.module}.{a.name}" for a in node.names
                           if a.asname or a.name not in exported
                           or a.name in used)
    return strings, builders, imports


#: Suffixes of the files a dotted literal may name (templates, exports).
FILE_SUFFIXES = ("toml", "json", "csv", "pdf")


def _section_fields(name):
    """Field names of the document's top-level section ``name`` (empty
    when it is not a section of models)."""
    field = Scenario.model_fields.get(name)
    if field is None:
        return set()
    annotation = field.annotation
    if isinstance(annotation, types.UnionType) or \
            typing.get_origin(annotation) is typing.Union:
        annotation = next((a for a in typing.get_args(annotation)
                           if a is not type(None)), None)
    return set(getattr(annotation, "model_fields", ()))


def names_family(text, families):
    """Whether a string literal names one of ``families``: the family
    itself, or a dotted id of it that is neither a file name nor a
    document path (unless an analysis declares it a metric)."""
    if text in families:
        return True
    family, dot, rest = text.partition(".")
    if not dot or family not in families:
        return False
    if metric_ids.declared(text) is not None:
        return True
    field = re.match(r"\w+", rest)
    return rest not in FILE_SUFFIXES and not (
        field and field.group() in _section_fields(family))


def files_naming(analysis, sources):
    """Source files (relative paths) outside the analysis's own module
    and model modules that name it; ``sources``: path -> (module,
    :func:`mentions`)."""
    own = {analysis.module, *analysis.models}
    families = {analysis.name} | {item.name for item in analysis.items}
    return [path for path, (module, (strings, builders, imports))
            in sources.items() if module not in own and (
                any(names_family(s, families) for s in strings)
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
    'trace = "cluster.topology"',                 # one of its traces
    'from solvers.metric_grammar import cluster\n'  # its builder, used
    '__all__ = ["cluster"]\nx = cluster("a", "b")',
    'from solvers.analyses import wire',          # its module
])
def test_the_count_sees_a_new_mention(sources, code):
    # a face that branches on an analysis is counted
    named = "cluster" if "cluster" in code else "wire"
    analysis = next(a for a in registry() if a.name == named)
    before = len(files_naming(analysis, sources))
    sources = dict(sources, **{"app/new_face.py": (
        "app.new_face", mentions(ast.parse(code)))})
    assert len(files_naming(analysis, sources)) == before + 1


@pytest.mark.parametrize("code", [
    'TEMPLATE = "cluster.toml"',                  # a file's name
    'where = "cluster.failures_to_tolerate"',   # a document field
    'from solvers.metric_grammar import cluster\n'  # re-exported only
    '__all__ = ["cluster"]',
])
def test_the_count_leaves_out_the_documents_names(sources, code):
    # the document's files and fields are not a branch on the analysis
    cluster = next(a for a in registry() if a.name == "cluster")
    before = len(files_naming(cluster, sources))
    sources = dict(sources, **{"app/new_face.py": (
        "app.new_face", mentions(ast.parse(code)))})
    assert len(files_naming(cluster, sources)) == before
