"""The scenario document: a typed, validated, versioned description of a host.

A scenario is plain data: the host, its NICs and teams, network settings,
workloads, named variants that override the base, and sweeps. This package
parses it from TOML or JSON *text* and serialises it back; reading and
writing files is the caller's job (``app/scenario_io.py``), so the core does
no I/O.

Every error names the field path and the value, for example
``nics[1].speed_gbps: must be > 0, got -10``, and unknown keys are errors.

Parameter paths (used by variants, sweeps and recommendations) are dotted
field names with list indices: ``network.mtu``, ``nics[1].speed_gbps``.

Its modules, along the document's seams:

- ``limits``: schema version, number magnitudes, list and study sizes;
- ``errors``: :class:`ScenarioError` and the wording of its messages;
- ``base``: the strict table every other derives from, shared field kinds;
- ``host``, ``teams``, ``workloads``, ``live_migration``, ``storage``,
  ``cluster``, ``studies``, ``calibration``: the tables, each field with
  its description (unit in brackets) where it is declared;
- ``checks``: cross-field checks spanning tables;
- ``document``: :class:`Scenario` and the constructors that check variants;
- ``paths``: the parameter-path grammar, get and set;
- ``variants``: the base and each variant resolved as documents (cached);
- ``formats``: TOML/JSON text, the canonical hashed form, schema migrations.

Import from the package (``from models.scenario import Scenario``): the
names below are its public surface; the module layout may change.
"""

from models.scenario.calibration import (Calibration, CalibrationCheck,
                                         StackCalibration)
from models.scenario.cluster import (CLUSTER_CASES, CLUSTER_CLASS_KINDS,
                                     Cluster, ClusterSwitch, HostGroup,
                                     TrafficClass)
from models.scenario.document import (Scenario, json_schema, new_scenario,
                                      parse_scenario, scenario_from_dict)
from models.scenario.errors import ScenarioError
from models.scenario.formats import (MIGRATIONS, canonical_json,
                                     dump_scenario, migrate, scenario_data)
from models.scenario.host import (Host, Meta, Network, Nic, OffloadSet,
                                  Offloads)
from models.scenario.limits import (LARGEST_MAGNITUDE, MAX_CLUSTER_CELLS,
                                    MAX_CLUSTER_HOSTS, MAX_CONNECTIONS,
                                    MAX_DEVICE_CHANNELS, MAX_ENTRIES,
                                    MAX_NICS, MAX_OIO, MAX_SOLVED_ENTRIES,
                                    MAX_STORAGE_WORKLOADS, MAX_TEAMING_CELLS,
                                    MAX_TRANSFERS, SCHEMA_VERSION,
                                    SMALLEST_MAGNITUDE)
from models.scenario.live_migration import (Destination, DirtyModel,
                                            Evacuation, EvacuationVm,
                                            Migration)
from models.scenario.paths import get_path, parse_path, set_path
from models.scenario.storage import Backend, StorageWorkload
from models.scenario.studies import (GOALS, Axis, Goal, Range, Span, Sweep,
                                     Variant)
from models.scenario.teams import (HASH_POLICIES, LINUX_HASH_POLICIES,
                                   TEAMING_POLICIES, WINDOWS_HASHES,
                                   NiocClass, Team)
from models.scenario.variants import BASE_NAME
from models.scenario.workloads import (Flow, TimeProfile, Transfer,
                                       Workloads)

__all__ = [
    # the document and its constructors
    "Scenario", "ScenarioError", "scenario_from_dict", "parse_scenario",
    "new_scenario",
    # text, plain data, hashing, schema and versions
    "dump_scenario", "scenario_data", "canonical_json", "json_schema",
    "SCHEMA_VERSION", "MIGRATIONS", "migrate",
    # parameter paths and variants
    "parse_path", "get_path", "set_path", "BASE_NAME",
    # the tables
    "Meta", "Host", "OffloadSet", "Offloads", "Nic",
    "Network", "NiocClass", "Team", "TimeProfile", "Flow", "Transfer",
    "Workloads", "DirtyModel", "Migration", "EvacuationVm", "Destination",
    "Evacuation", "Backend", "StorageWorkload", "ClusterSwitch",
    "HostGroup", "TrafficClass", "Cluster", "Variant", "Span", "Range",
    "Axis", "Sweep", "Goal", "StackCalibration", "CalibrationCheck",
    "Calibration",
    # choices
    "TEAMING_POLICIES", "HASH_POLICIES", "LINUX_HASH_POLICIES",
    "WINDOWS_HASHES", "CLUSTER_CLASS_KINDS", "CLUSTER_CASES", "GOALS",
    # limits
    "SMALLEST_MAGNITUDE", "LARGEST_MAGNITUDE", "MAX_ENTRIES",
    "MAX_TRANSFERS", "MAX_STORAGE_WORKLOADS", "MAX_SOLVED_ENTRIES",
    "MAX_NICS", "MAX_OIO", "MAX_CONNECTIONS", "MAX_TEAMING_CELLS",
    "MAX_CLUSTER_CELLS", "MAX_CLUSTER_HOSTS", "MAX_DEVICE_CHANNELS",
]
