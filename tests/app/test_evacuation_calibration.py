"""Hyper-V's time per migration off the link
(:data:`models.evacuation.HYPERV_SETUP_S`) is calibrated once across every
published Hyper-V drain of resources/validation/ (never per case): re-solve
them all with each candidate set-up and check the default is the smallest
candidate that holds the most of them (parsimony: no time off the link the
published drains do not call for; the median error is not the objective,
it would trade held cases for smaller misses). A new drain added to the
set, or a change of the transport chain, that moves the optimum fails
here."""

import dataclasses

import pytest

from app.validation_io import load_cases
from models.evacuation import HYPERV_SETUP_S
from models.scenario import scenario_data, scenario_from_dict
from solvers.accuracy import solve_case

#: Candidate set-up times [s]: from none to past the 2.4 s that Finn's one
#: idle VM on 1 GbE alone implies (7 s against a 4.6 s copy).
CANDIDATES_S = (0.0, 0.2, 0.5, 1.0, 2.0, 3.0)


def _hyperv_drains():
    cases = [case for case in load_cases() if case.area == "evacuation"
             and case.status != "not_modelled"
             and any(e.platform == "hyperv"
                     for e in case.scenario.workloads.evacuations)]
    if not cases:
        pytest.skip("no published Hyper-V drain in the validation set")
    return cases


def _with_setup(scenario, setup_s):
    """The scenario with every Hyper-V evacuation that states no measured
    set-up of its own at ``setup_s``."""
    data = scenario_data(scenario)
    for evacuation in data["workloads"]["evacuations"]:
        if evacuation.get("platform", "vsphere") == "hyperv" \
                and evacuation.get("setup_s") is None:
            evacuation["setup_s"] = setup_s
    return scenario_from_dict(data)


def _held(cases, setup_s):
    """Checks of the cases held at one set-up."""
    scenarios, cache, held = {}, {}, 0
    for case in cases:
        key = id(case.scenario)
        if key not in scenarios:
            scenarios[key] = _with_setup(case.scenario, setup_s)
        result = solve_case(dataclasses.replace(
            case, scenario=scenarios[key]), cache)
        assert not result.error, result.error
        held += sum(check.passed for check in result.checks)
    return held


def test_hyperv_setup_default_is_the_optimum_over_all_published_drains():
    cases = _hyperv_drains()
    held = {s: _held(cases, s) for s in sorted(
        {*CANDIDATES_S, HYPERV_SETUP_S})}
    most = max(held.values())
    assert HYPERV_SETUP_S == min(s for s, n in held.items() if n == most), \
        held
