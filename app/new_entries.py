"""New list entries of a scenario document, Qt-free: a free name, the
required fields filled with the host platform's own choices, and VM ports
with hash inputs of their own; the team policy change with the switch mode
it needs. The editor and the grid tables use them."""

import copy
import re

from app.schema_fields import NAMING_FIELDS, entry_name, fields_of, next_name
from app.vm_ports import port_keys
from models import platform
from models.scenario import TEAMING_POLICIES

#: Stem of a new entry's name, by model, where it is not the model's name
#: in lower case (``Migration``: ``migration``).
NAME_STEMS = {"Flow": "vm", "StorageWorkload": "workload",
              "EvacuationVm": "vm", "Destination": "host",
              "TimeProfile": "profile", "NiocClass": "class"}

#: Values of the required fields of a new entry that are not names.
NEW_VALUES = {
    "Nic": {"speed_gbps": 10.0},
    "Migration": {"memory_gib": 16.0},
    "EvacuationVm": {"memory_gib": 16.0},
    "Destination": {"free_memory_gib": 512.0},
    "TimeProfile": {"t_s": [0.0], "scale": [1.0]},
    "StorageWorkload": {"backend": {"iops_max": 10000.0}},
}


def new_entry(model, siblings, data):
    """A valid-looking new entry of a list of ``model``: a free name and
    the required fields filled."""
    name = model.__name__
    taken = {entry_name(e) for e in siblings}
    entry = copy.deepcopy(NEW_VALUES.get(name, {}))
    stem = NAME_STEMS.get(name, name.lower())
    for spec in fields_of(model):
        if spec.name in NAMING_FIELDS and spec.required:
            entry[spec.name] = next_name(stem, taken)
            break
    if name == "Team":
        teamed = {m for t in data.get("teams", [])
                  for m in t["members"] + t["standby"]}
        free = [n["id"] for n in data["nics"] if n["id"] not in teamed]
        entry["members"] = free[:2] or [data["nics"][0]["id"]]
        # the host's own first policy (vSphere port ID, Hyper-V Port,
        # Linux active-backup): the schema's default is vSphere's
        hypervisor = (data.get("host") or {}).get("hypervisor", "vsphere")
        entry["policy"] = platform.teaming_policies(hypervisor)[0]
    elif name == "Migration":   # the host's own stop rule
        hypervisor = (data.get("host") or {}).get("hypervisor", "vsphere")
        entry["stop_rule"] = platform.stop_rules(hypervisor)[0]
    elif name == "Flow":
        entry.update(flow_keys(siblings, entry["id"]))
    elif name == "Evacuation":
        transfers = data["workloads"]["transfers"]
        entry["transfer"] = transfers[0]["name"] if transfers else ""
        entry["vms"] = [{"name": "vm1", "memory_gib": 16.0}]
        hypervisor = (data.get("host") or {}).get("hypervisor", "vsphere")
        entry["platform"] = platform.EVACUATION_PLATFORMS[hypervisor][0]
    return entry


def flow_keys(siblings, flow_id):
    """The hash inputs of a new VM port, distinct from its siblings', so
    it is valid under every teaming policy: port ID, MAC, addresses,
    TCP ports."""
    number = 1 + max((f.get("port_id") or 0 for f in siblings), default=9)
    taken = {f["mac"].lower() for f in siblings if f.get("mac")}
    return {"vm": flow_id, "port_id": number, **port_keys(number, taken),
            "src_port": 40000 + number % 20000, "dst_port": 443}


def duplicate(model, entry, siblings):
    """A copy of a list entry under a free name (a VM port with its own
    hash inputs)."""
    twin = copy.deepcopy(entry)
    taken = {entry_name(e) for e in siblings}
    for key in NAMING_FIELDS:
        if key in twin:
            stem = re.sub(r"\d+$", "", str(twin[key])) or "copy"
            twin[key] = next_name(stem, taken)
            break
    if model.__name__ == "Flow":
        twin.update(flow_keys(siblings, twin["id"]))
    return twin


def policy_changes(team_path, team, policy):
    """The changes that set a team's policy, with the switch mode it
    needs when the current one does not fit."""
    changes = {f"{team_path}.policy": policy}
    modes = TEAMING_POLICIES[policy][1]
    if team["switch_mode"] not in modes:
        changes[f"{team_path}.switch_mode"] = modes[0]
    return changes
