"""Every reference note a docstring cites is in the repository (issue 31:
78 docstrings cited notes that were not)."""

import re

import pytest

from tests.conftest import ROOT

NOTES = ROOT / "docs" / "reference"
SOURCES = sorted(p for folder in ("models", "solvers", "app")
                 for p in (ROOT / folder).rglob("*.py"))
# a path of Microsoft's documentation repository, cited as such
PUBLIC = {"vrss-top.md", "vrss-faq.md"}


@pytest.mark.parametrize("path", SOURCES,
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_cited_notes_are_in_docs_reference(path):
    cited = set(re.findall(r"\b([a-z][a-z-]*\.md)\b", path.read_text()))
    missing = {name for name in cited - PUBLIC
               if not (NOTES / name).exists()
               and not (ROOT / "docs" / name).exists()
               and name != "README.md"}
    assert not missing, missing
