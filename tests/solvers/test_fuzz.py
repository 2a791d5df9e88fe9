"""Mutated examples through load -> evaluate -> save -> load: each is
refused with a message naming a path, or solves with finite metrics and
saves back to the same document (issue 19). ``make fuzz`` runs many more
(tests/fuzzing.py)."""

import pytest
from hypothesis import HealthCheck, given, settings

from tests.fuzzing import COUNTS, check_document, mutated_documents

#: At least 2,000 documents per run of the suite (issue 19), about a
#: minute on one core; no deadline: a document of 200 copied entries is
#: slower than the default 200 ms without being wrong.
FUZZ_EXAMPLES = 2_000


# a minute of CPU, four on a loaded machine: beyond the suite's 300 s
@pytest.mark.timeout(1200)
@settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(mutated_documents())
def test_mutated_examples_are_refused_with_a_path_or_solve(named):
    COUNTS["tried"] += 1
    try:
        COUNTS[check_document(named[1])] += 1
    except BaseException:
        COUNTS["other"] += 1
        raise
