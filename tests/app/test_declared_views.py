"""The views the analyses declare (solvers/analysis.py, ``views``) are the
GUI tabs and report sections of app/figures/views.py, and each of those is
declared by the analysis whose metric it looks for."""

from app.figures.views import VIEWS
from solvers.analyses import registry


def test_every_view_is_declared_by_one_analysis():
    declared = [(key, a.name) for a in registry() for key in a.views]
    assert sorted(key for key, _ in declared) == sorted(v.key for v in VIEWS)
    owner = dict(declared)
    for view in VIEWS:
        present = getattr(view, "present_metric", None)
        if present is not None:
            family = present.partition(".")[0]
            assert owner[view.key] == family, view.key
