"""Closed-form physics of host networking as pure numpy functions.

No Qt, no I/O, no state: every function broadcasts over arrays of scenarios.
``models.scenario`` is the scenario document itself (validation, variants,
paths, formats).
"""

#: The package's modules, each imported by its own name (``from models
#: import wire``); ``from models import *`` imports them all.
__all__ = ["chain", "cluster", "compression", "cpu", "evacuation", "host",
           "migration", "migration_costs", "pcie", "pfc", "platform",
           "postcopy", "qemu_ram", "scenario", "storage", "teaming",
           "transport", "units", "wire"]
