"""Mutated examples that solve also make a PDF report (issue 19, item 5:
load -> evaluate -> save -> report); the core suite takes the other steps
over thousands of documents (tests/solvers/test_fuzz.py)."""

from hypothesis import HealthCheck, given, settings
from pypdf import PdfReader

from app.report.pdf import write_report_headless
from models.scenario import scenario_from_dict
from solvers.evaluate import evaluate
from tests.fuzzing import COUNTS, check_document, mutated_documents

#: A report takes about half a second: a sample, not the whole fuzz run.
REPORT_EXAMPLES = 40


@settings(max_examples=REPORT_EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow,
                                 HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(named=mutated_documents(max_list=20))
def test_mutated_examples_that_solve_make_a_report(named, tmp_path):
    COUNTS["tried"] += 1
    outcome = check_document(named[1])
    COUNTS[outcome] += 1
    if outcome == "refused":
        return
    scenario = scenario_from_dict(named[1])
    path = tmp_path / "report.pdf"
    write_report_headless(scenario, evaluate(scenario), path)
    assert len(PdfReader(path).pages) >= 1
