"""Importers: files that architects already export -> scenario documents.

One module per format; each has ``import_files(paths) -> ImportResult``
(app.importers.common). No Qt and no physics here: the documents are
validated by models.scenario, a migration check runs solvers.evaluate.
"""

import importlib
from dataclasses import dataclass, field

#: Formats by command-line name: (module, what the files are).
FORMATS = {
    "rvtools": ("rvtools", "RVTools export (.xlsx)"),
    "esxtop": ("esxtop", "esxtop/resxtop batch CSV (esxtop -b)"),
    "perfmon": ("perfmon", "Windows perfmon/typeperf CSV (PDH-CSV 4.0)"),
    "vcenter": ("vcenter", "vCenter statistics (PowerCLI Get-Stat CSV)"),
    "sar": ("sar", "sysstat sadf -j JSON"),
    "qemu": ("qemu", "QEMU QMP replies (query-migrate, query-dirty-rate)"),
    "libvirt": ("libvirt", "virsh domjobinfo / domstats --dirtyrate"),
}


@dataclass
class Outcome:
    """An import with its scenarios validated: ``scenarios`` the valid
    ones, ``checks`` (scenario, check) pairs for completed migrations,
    ``problems`` every bad input (the importer's and invalid drafts)."""

    result: object
    scenarios: list = field(default_factory=list)
    checks: list = field(default_factory=list)
    problems: list = field(default_factory=list)


def run_import(fmt, paths):
    """Import ``paths`` as format ``fmt`` and validate the scenarios."""
    # here, not at the top: the CLI's parser reads FORMATS on every start
    from models.scenario import ScenarioError

    module = importlib.import_module(f"app.importers.{FORMATS[fmt][0]}")
    result = module.import_files([str(p) for p in paths])
    outcome = Outcome(result, problems=list(result.problems))
    by_name = {}
    for draft in result.drafts:
        try:
            scenario = draft.scenario()
        except ScenarioError as err:
            outcome.problems.append(f"{draft.name}: the imported scenario "
                                    f"is not valid:\n{err}")
            continue
        outcome.scenarios.append(scenario)
        for migration in scenario.workloads.migrations:
            by_name[migration.name] = scenario
    for check in result.checks:
        if check["migration"] in by_name:
            outcome.checks.append((by_name[check["migration"]], check))
    return outcome
