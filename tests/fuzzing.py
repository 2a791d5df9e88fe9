"""Mutation fuzzing of scenario documents, shared by the test suite and
``make fuzz``.

Every example in resources/examples is mutated (keys dropped, types swapped,
extreme and tiny values, huge lists, odd unicode) and taken through
load -> evaluate -> save -> load. The only allowed outcomes are a
:class:`ScenarioError` whose problems each name a path or the document, or
results that save and load back to the same document; anything else is
counted as ``other`` and fails.

``python -m tests.fuzzing [EXAMPLES]`` runs many more documents than the
test suite and prints the counts (tried, refused, solved, other).
"""

import copy
import math
import sys
import tomllib
import warnings
from collections import Counter
from pathlib import Path

import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models.scenario import (ScenarioError, dump_scenario, parse_scenario,
                             scenario_from_dict)

#: Outcomes of the documents checked in this process, printed at the end
#: of a pytest run (tests/conftest.py) and by ``make fuzz``.
COUNTS = Counter()

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "resources"
                   / "examples").glob("*.toml"))
DOCUMENTS = {path.stem: tomllib.loads(path.read_text(encoding="utf-8"))
             for path in EXAMPLES}

#: Numbers at and past the edges: zero, denormals, the float and int64
#: limits, and values a little past common schema bounds.
EXTREME_NUMBERS = [0, -1, 1, 2, 0.0, -0.0, 5e-324, 2.2250738585072014e-308,
                   1e-300, 1e-9, 1e9, 1e15, 1e300, 1.7976931348623157e308,
                   2**31, 2**53 + 1, 2**62, 2**63 - 1, -2**63, 65, 257,
                   1025, 4097, 65536, 1e6, 1e7, 24577]
#: Strings a user or another tool could type or paste.
ODD_STRINGS = ["", " ", "x" * 300, "\u202eevil", "nic\u200b0", "ñíç",
               "\U0001d518\U0001d52b\U0001d526", "a\u0301", "\x00", "\n",
               "nics[0].speed_gbps", "Base", "tcp", "1500", "nan", "null",
               "\ud7ff", "\ufeffBOM", "名前"]


def _paths(node, prefix=()):
    """Every (path, value) below a plain-data node, containers included."""
    found = []
    items = node.items() if isinstance(node, dict) else \
        enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        path = prefix + (key,)
        found.append((path, value))
        found.extend(_paths(value, path))
    return found


def _parent(document, path):
    node = document
    for key in path[:-1]:
        node = node[key]
    return node


def _scalars():
    return st.one_of(
        st.sampled_from(EXTREME_NUMBERS),
        st.floats(allow_nan=False, allow_infinity=False),
        st.integers(min_value=-2**63, max_value=2**63 - 1),
        st.sampled_from(ODD_STRINGS), st.text(max_size=20), st.booleans())


@st.composite
def mutated_documents(draw, max_list=200):
    """An example document with one to four mutations applied."""
    name = draw(st.sampled_from(sorted(DOCUMENTS)))
    document = copy.deepcopy(DOCUMENTS[name])
    for _ in range(draw(st.integers(1, 4))):
        paths = _paths(document)
        if not paths:
            break
        path, value = draw(st.sampled_from(paths))
        parent, key = _parent(document, path), path[-1]
        kind = draw(st.sampled_from(("drop", "swap", "extreme", "tiny",
                                     "huge_list", "unicode", "near")))
        if kind == "drop":
            del parent[key]
        elif kind == "swap":
            parent[key] = draw(st.one_of(
                _scalars(), st.just([]), st.just({}), st.just([value]),
                st.just({"x": value})))
        elif kind == "extreme":
            number = draw(st.sampled_from(EXTREME_NUMBERS))
            parent[key] = draw(st.sampled_from((number, -number)))
        elif kind == "tiny":
            parent[key] = draw(st.sampled_from((5e-324, 1e-310, 1e-200,
                                                1e-12)))
        elif kind == "near" and isinstance(value, (int, float)) \
                and not isinstance(value, bool):
            factor = draw(st.sampled_from((0.5, 2, 10, 1000, 1e6)))
            parent[key] = type(value)(value * factor) \
                if isinstance(value, float) else int(value * factor)
        elif kind == "huge_list":
            # repeat a list entry: duplicates (names, ids) are refused and
            # unnamed entries must still solve in bounded time
            target = value if isinstance(value, list) and value else None
            if target is None:
                lists = [(p, v) for p, v in paths
                         if isinstance(v, list) and v]
                if not lists:
                    continue
                path, target = draw(st.sampled_from(lists))
            count = draw(st.integers(2, max_list))
            entry = draw(st.sampled_from(target))
            target.extend(copy.deepcopy(entry) for _ in range(count))
            if isinstance(entry, dict) and draw(st.booleans()):
                # make names and ids unique so the copies are accepted
                for i, item in enumerate(target):
                    for field in ("name", "id"):
                        if isinstance(item, dict) and \
                                isinstance(item.get(field), str):
                            item[field] = f"{item[field][:50]}-{i}"
        elif kind == "unicode":
            parent[key] = draw(st.sampled_from(ODD_STRINGS) | st.text())
    return name, document


def _tomlable(document):
    """The document as TOML text when it has a TOML form (no null)."""
    try:
        return tomli_w.dumps(document), "toml"
    except (TypeError, ValueError):
        return None, None


def check_document(document):
    """Take a plain-data document through load -> evaluate -> save ->
    load, raising AssertionError for any outcome but a path-named refusal
    or consistent results.

    Returns
    -------
    str
        ``'refused'`` or ``'solved'``.
    """
    from solvers.evaluate import evaluate

    text, fmt = _tomlable(document)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a printed warning is a failure
        try:
            scenario = parse_scenario(text, fmt) if text is not None \
                else scenario_from_dict(document)
        except ScenarioError as err:
            assert err.problems, "a refusal must say why"
            for path, message in err.problems:
                assert isinstance(path, str) and message, err.problems
            return "refused"
        results = evaluate(scenario)
        results.to_json()
        results.to_csv()
        for fmt in ("toml", "json"):
            again = parse_scenario(dump_scenario(scenario, fmt), fmt)
            assert again == scenario, f"{fmt} round trip changed it"
    for variant in results.variants:
        for metric in variant.metrics:
            assert math.isfinite(metric.value), (variant.name, metric)
    return "solved"


def outcome(document):
    """:func:`check_document`, with any other outcome as ``'other'``."""
    try:
        return check_document(document), None
    except Exception as err:  # every escape is what the fuzzer looks for
        return "other", f"{type(err).__name__}: {err}"[:300]


def main(argv):
    """``make fuzz``: many mutated documents, counts on stdout."""
    examples = int(argv[0]) if argv else 20_000
    counts, others = COUNTS, Counter()

    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(mutated_documents(max_list=2000))
    def run(named):
        result, error = outcome(named[1])
        counts["tried"] += 1
        counts[result] += 1
        if error:
            others[f"{named[0]}: {error}"] += 1

    run()
    print(f"fuzz: tried {counts['tried']}, refused {counts['refused']}, "
          f"solved {counts['solved']}, other {counts['other']}")
    for error, number in others.most_common(30):
        print(f"  {number:5} x {error}")
    return 1 if counts["other"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
