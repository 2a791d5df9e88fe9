"""What the scenario schema says about each field, for the editors (Qt-free):
its kind of value, unit, label, bounds, default, and how text typed for it
becomes a value.

Everything is read from the pydantic models of :mod:`models.scenario`, so a
field added to the schema appears in the editor without a change here.
"""

import functools
import re
import types
import typing
from dataclasses import dataclass

import annotated_types
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from models.cpu import CPU_GENERATIONS
from models.evacuation import PLATFORMS as EVACUATION_PLATFORMS
from models.scenario import TEAMING_POLICIES
from models.units import (UNIT_SUFFIXES, accepted_units, field_unit,
                          parse_quantity)

#: Words a field name spells in lower case that are written otherwise.
_WORDS = {
    "id": "ID", "ip": "IP", "mtu": "MTU", "tcp": "TCP", "udp": "UDP",
    "vlan": "VLAN", "rss": "RSS", "rdma": "RDMA", "pcie": "PCIe",
    "lbt": "LBT", "ovs": "OVS", "tlb": "TLB", "nioc": "NIOC", "vm": "VM",
    "vms": "VMs", "nics": "NICs", "smb": "SMB", "qemu": "QEMU",
    "iops": "IOPS", "raid": "RAID", "vmmq": "VMMQ", "vcpus": "vCPUs",
    "mac": "MAC", "dst": "destination", "src": "source", "pcp": "PCP",
    "lro": "LRO", "tso": "TSO", "ipv4": "IPv4", "ipv6": "IPv6",
    "vmotion": "vMotion", "max": "max.", "min": "min.", "geneve": "Geneve",
    "oio": "OIO",
}

#: Names shown for enumerated values: the vendors' words, not internal ids.
#: A calibration's base preset is one of the host stacks.
_STACK_LABELS = {"windows_host": "Windows Server host stack",
                 "vmkernel": "ESXi VMkernel (vMotion, vSAN)",
                 "linux_host": "Linux host stack",
                 "vm_guest": "Inside a VM",
                 "esxi_vnic": "ESXi VM through its vNIC"}


def _cpu_label(key, generation):
    """A CPU generation by its product name: 'Intel Skylake-SP (2017)',
    'AMD Zen 4 (EPYC 9004) (2022)', 'AWS Graviton3 (Neoverse V1)'."""
    if key == "legacy":
        return "As fitted (clock only)"
    if generation.vendor == "arm":
        product = key.removeprefix("arm_").replace("_", " ").title() \
            .replace("Graviton", "AWS Graviton")
        return f"{product} ({generation.core})"
    vendor = "AMD" if generation.vendor == "amd" else "Intel"
    return f"{vendor} {generation.core} ({generation.year})"


VALUE_LABELS = {
    "policy": {k: label for k, (label, _) in TEAMING_POLICIES.items()},
    "compare": {k: label for k, (label, _) in TEAMING_POLICIES.items()},
    "hypervisor": {"vsphere": "VMware vSphere (ESXi)",
                   "hyperv": "Microsoft Hyper-V", "kvm": "KVM / QEMU",
                   "xen": "Xen"},
    "rdma": {"none": "None", "roce_v2": "RoCE v2", "iwarp": "iWARP",
             "infiniband": "InfiniBand"},
    "transport": {"tcp": "TCP", "compression": "TCP with compression",
                  "smb": "SMB Multichannel (TCP)",
                  "smb_direct": "SMB Direct (RDMA)", "udp": "UDP",
                  "rdma": "RDMA (QEMU's RDMA transport)"},
    "switch_mode": {"independent": "Switch independent",
                    "static": "Static EtherChannel / LAG",
                    "lacp": "LACP (802.3ad)"},
    "protocol": {"nfs3": "NFS v3", "iscsi": "iSCSI", "smb3": "SMB 3",
                 "vsan": "vSAN", "local": "Local disk", "tcp": "TCP",
                 "udp": "UDP", "nvmeof": "NVMe over Fabrics",
                 "s2d": "Storage Spaces Direct"},
    "stop_rule": {"qemu": "QEMU / KVM (downtime limit)",
                  "vmotion": "vSphere vMotion (switchover goal, SDPS)",
                  "xen_legacy": "Xen (xc_domain_save, to 4.5)",
                  "xen_v2": "Xen migration v2",
                  "hyperv": "Hyper-V (downtime budget)",
                  "fraction_left": "Fraction of memory left (generic)"},
    "throttling": {"none": "None", "sdps": "SDPS (vMotion)",
                   "auto_converge": "Auto-converge (QEMU)"},
    "encapsulation": {"none": "None", "vxlan": "VXLAN",
                      "geneve": "Geneve"},
    "kind": {"latency_target": "Meet a latency target",
             "max_iops": "Maximise IOPS",
             "max_throughput": "Maximise throughput",
             "min_cpu": "Minimise CPU",
             "min_migration_time": "Minimise migration time",
             "min_evacuation_time": "Minimise evacuation time",
             "min_peak_util": "Minimise the hottest uplink",
             "min_cluster_util": "Minimise the busiest cluster link",
             "uniform": "Uniform rate", "hot_cold": "Hot set + cold rate",
             "array": "Storage array", "nvme": "NVMe drives",
             "cloud_volume": "Cloud volume",
             "vm": "VM traffic", "storage": "Storage and its replication",
             "vmotion": "vMotion / live migration", "backup": "Backup",
             "management": "Management", "other": "Other"},
    "receive_queues": {"rss": "RSS (host NIC queues)",
                       "vmq": "VMQ (one core per vNIC)",
                       "vrss": "vRSS (VMQ + virtual RSS)",
                       "vmmq": "VMMQ (hardware queues per vNIC)",
                       "multiqueue": "Multiqueue (virtio-net queues)"},
    "platform": {key: key.replace("_", " ").capitalize()
                 for key in EVACUATION_PLATFORMS} | {
        "vsphere": "VMware vSphere", "hyperv": "Microsoft Hyper-V",
        "hyperv_cluster": "Hyper-V cluster (2022+)",
        "kubevirt": "KubeVirt", "kubevirt_legacy": "KubeVirt (legacy)",
        "qemu": "QEMU / libvirt", "proxmox": "Proxmox VE",
        "none": "No platform limit"},
    "order": {"largest_first": "Largest first",
              "smallest_first": "Smallest first",
              "hottest_last": "Hottest last", "priority": "By priority",
              "optimized": "Optimized (searched)"},
    "disks": {"shared": "Shared storage", "copied": "Copied with the VM"},
    "ip_version": {4: "IPv4", 6: "IPv6"},
    "underlay_ip_version": {4: "IPv4", 6: "IPv6"},
    "cpu": {key: _cpu_label(key, g) for key, g in CPU_GENERATIONS.items()},
    "data_path": {"socket": "One socket per stream",
                  "qemu_multifd": "QEMU multifd channels"},
    "zero_page_detection": {"auto": "QEMU's default for its version",
                            "none": "None", "legacy": "Migration thread",
                            "multifd": "In the multifd channels"},
    "purpose": {"bulk": "Bulk transfer (file copy, iperf)",
                "live_migration": "Live migration"},
    "direction": {"receive": "Host receives", "send": "Host sends"},
    "stack": _STACK_LABELS, "base": _STACK_LABELS,
    "switchover": {"precopy": "Pre-copy only",
                   "postcopy_after_first_pass":
                       "Post-copy after the first pass (libvirt)",
                   "postcopy_at_time_budget":
                       "Post-copy at the time budget (KubeVirt)"},
    "management": {"qemu": "QEMU's own default", "libvirt": "libvirt",
                   "unlimited": "Unlimited bandwidth"},
    "compression_data": {"ratio": "The given compression ratio",
                         "silesia": "Mixed data (Silesia corpus)",
                         "random": "Incompressible (random)"},
    "lbt_target_rule": {"stay_below": "Target stays below the threshold",
                        "any_better": "Any less busy uplink"},
    "tlb_order": {"descending": "Largest first", "random": "Random"},
    "nioc_reservation": {"floor": "Floor of the share",
                         "additive": "Granted before shares"},
    "ip_hash_variant": {"last_octet": "Last octets (VMware KB)",
                        "xor32": "Whole 32-bit addresses"},
    "raid": {"none": "None", "raid0": "RAID 0", "raid1": "RAID 1",
             "raid10": "RAID 10", "raid5": "RAID 5", "raid6": "RAID 6"},
    "mode": {"product": "Every combination", "zip": "Values side by side"},
    "role": {"fitted": "Fitted on", "held_out": "Held out (predicted)"},
}


@dataclass(frozen=True)
class FieldSpec:
    """One field of a schema model, as an editor needs it."""

    name: str
    #: "bool", "int", "float", "str", "enum", "list", "model", "models"
    #: (a list of models), "choice" (a number or a word) or "any"
    kind: str
    #: None is allowed (the field then means "the default's own rule")
    optional: bool
    #: enum: the allowed values; list: the item kind; model(s): the class
    detail: typing.Any
    default: typing.Any
    required: bool
    description: str
    bounds: tuple

    @property
    def unit(self):
        return field_unit(self.name, self.description)

    @property
    def label(self):
        return field_label(self.name)

    def value_label(self, value):
        """How an enumerated value is shown."""
        if value is None:
            return "(default)"
        return str(VALUE_LABELS.get(self.name, {}).get(value, value))

    def tooltip(self):
        """What the field means, its bounds and its default."""
        parts = [self.description.strip()] if self.description else []
        if self.bounds:
            parts.append("Allowed: " + ", ".join(self.bounds))
        units = accepted_units(self.unit) if self.kind in ("float", "int") \
            else []
        if len(units) > 1:
            parts.append(f"In {self.unit}, or typed with a unit: "
                         + ", ".join(units))
        if self.required:
            parts.append("Required")
        elif self.kind not in ("model", "models"):
            default = "none (the rule named above)" if self.default is None \
                else self.value_label(self.default) if self.kind == "enum" \
                else show_value(self.default)
            parts.append(f"Default: {default}")
        return "\n".join(parts)


def _kind_of(annotation):
    """(kind, optional, detail) of a field's annotation."""
    optional = False
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = typing.get_args(annotation)
        rest = [a for a in args if a is not type(None)]
        optional = len(rest) < len(args)
        if len(rest) > 1:
            return "choice", optional, rest
        annotation = rest[0]
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return "enum", optional, typing.get_args(annotation)
    if origin is list:
        (item,) = typing.get_args(annotation) or (typing.Any,)
        if isinstance(item, type) and issubclass(item, BaseModel):
            return "models", optional, item
        item_kind = _kind_of(item)
        return "list", optional, item_kind
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel):
            return "model", optional, annotation
        for kind in (bool, int, float, str):
            if annotation is kind:
                return kind.__name__, optional, None
    return "any", optional, None


def _bounds(info):
    texts = []
    for item in info.metadata:
        for attr, sign in (("gt", ">"), ("ge", "≥"), ("lt", "<"),
                           ("le", "≤"), ("multiple_of", "multiple of")):
            value = getattr(item, attr, None)
            if value is not None and not isinstance(
                    item, (annotated_types.MinLen, annotated_types.MaxLen)):
                texts.append(f"{sign} {value:g}")
    return tuple(texts)


@functools.lru_cache(maxsize=None)
def fields_of(model):
    """The :class:`FieldSpec` of every field of a pydantic model class, in
    declaration order (a tuple; read once per class)."""
    specs = []
    for name, info in model.model_fields.items():
        kind, optional, detail = _kind_of(info.annotation)
        default = info.default
        if default is PydanticUndefined:
            default = None
        elif isinstance(default, BaseModel):
            default = default.model_dump(mode="json")
        specs.append(FieldSpec(name, kind, optional, detail, default,
                               info.is_required(), info.description or "",
                               _bounds(info)))
    return tuple(specs)


#: Labels of fields whose name, spelled out, would read the same as a
#: neighbour's or not say what it holds ("Device" for both a disk's IOPS
#: and its MB/s).
_LABELS = {"device_iops": "IOPS per disk",
           "device_mbps": "Throughput per disk",
           "iops_max": "IOPS max.", "mbps_max": "Throughput max.",
           "ghz": "Clock", "compressor_gbps": "Compressor rate"}


def field_label(name):
    """A field name as words: ``lbt_threshold_pct`` -> 'LBT threshold'."""
    if name in _LABELS:
        return _LABELS[name]
    for suffix, _ in UNIT_SUFFIXES:
        if name.endswith(suffix) and name != suffix.lstrip("_"):
            name = name[:-len(suffix)]
            break
    words = [_WORDS.get(w, w) for w in name.split("_") if w]
    text = " ".join(words)
    return text[:1].upper() + text[1:] if text else name


def path_label(scenario, path):
    """A parameter path in words with its unit, for an axis or a column:
    ``workloads.migrations[0].dirty.rate_mib_s`` -> 'vm01 › Dirty › Rate
    [MiB/s]' (list entries by their name); the path itself when the
    schema does not know it."""
    from models.scenario import Scenario, parse_path
    try:
        keys = parse_path(path)
    except KeyError:
        return path
    model, data, words, spec = Scenario, scenario.model_dump(mode="json"), \
        [], None
    for key in keys:
        if isinstance(key, int):
            try:
                data = data[key]
            except (IndexError, KeyError, TypeError):
                return path
            words.append(entry_name(data) or f"#{key + 1}")
            continue
        spec = next((f for f in fields_of(model) if f.name == key), None)
        if spec is None or not isinstance(data, dict):
            return path
        data = data.get(key)
        if spec.kind in ("model", "models"):
            model = spec.detail
            if spec.kind == "model" and key != "workloads":
                words.append(spec.label)
        elif key != keys[-1]:
            return path
    if spec is None:
        return path
    words.append(spec.label)
    unit = f" [{spec.unit}]" if spec.unit else ""
    return " \u203a ".join(words) + unit


def changes_label(scenario, changes):
    """Changes ``{path: new value}`` in words for an undo step or a
    dialog: 'hcibench › Threads per disk → 2' (never a raw path)."""
    return "; ".join(f"{path_label(scenario, path)} \u2192 "
                     f"{show_value(value)}" for path, value in changes.items())


def show_value(value):
    """A value as it is typed in a field: numbers short and exact, lists
    comma-separated, None empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return f"{value:.12g}"
    if isinstance(value, list):
        return ", ".join(show_value(v) for v in value)
    return str(value)


def _parse_scalar(text, kind, detail=None):
    if kind == "int":
        try:
            return int(text.replace(",", "").replace("_", ""))
        except ValueError:
            raise ValueError(f"expected a whole number, got {text!r}") \
                from None
    if kind == "float":
        try:
            return float(text.replace(",", "").replace("_", ""))
        except ValueError:
            raise ValueError(f"expected a number, got {text!r}") from None
    if kind == "bool":
        if text.lower() in ("true", "yes", "on", "1"):
            return True
        if text.lower() in ("false", "no", "off", "0"):
            return False
        raise ValueError(f"expected on or off, got {text!r}")
    if kind == "enum":
        for value in detail:
            if str(value) == text:
                return value
        raise ValueError(f"expected one of {', '.join(map(str, detail))}, "
                         f"got {text!r}")
    if kind in ("choice", "any"):
        for parse in (int, float):
            try:
                return parse(text)
            except ValueError:
                pass
    return text


#: Text that starts as a number does: perhaps a quantity with its unit.
_NUMBER_FIRST = re.compile(r"[-+]?\.?\d")


def parse_text(spec, text):
    """The value typed as ``text`` for the field ``spec``.

    Raises
    ------
    ValueError
        With a message naming what was expected.
    """
    text = text.strip()
    if text == "" and spec.optional:
        return None
    if spec.kind == "list":
        item_kind, _, item_detail = spec.detail
        return [_parse_scalar(part.strip(), item_kind, item_detail)
                for part in text.split(",") if part.strip()]
    if spec.kind == "float" and text == "":
        raise ValueError("expected a number, got nothing")
    try:
        return _parse_scalar(text, spec.kind, spec.detail)
    except ValueError:
        if spec.kind not in ("float", "int") or not spec.unit or \
                not _NUMBER_FIRST.match(text):
            raise
    # a quantity with its unit ("1.5 GB/s"), in the field's own unit
    value = parse_quantity(text, spec.unit, field=spec.label)
    if spec.kind == "int":
        if value != round(value):
            raise ValueError(f"{spec.label}: {text!r} is {value:g} "
                             f"{spec.unit}; give a whole number of "
                             f"{spec.unit}")
        return int(round(value))
    return value


#: Field that names an entry of a list, in the order looked for.
NAMING_FIELDS = ("id", "name", "traffic_class")


def entry_name(entry):
    """The name an entry of a list goes by (its id or name), or ''."""
    for key in NAMING_FIELDS:
        if isinstance(entry, dict) and entry.get(key):
            return str(entry[key])
    return ""


def next_name(stem, taken):
    """``stem`` and the number after the highest one ``taken`` names
    with it: nic0, nic1 -> nic2; vm1 .. vm39 -> vm40 (never nic22)."""
    pattern = re.compile(re.escape(stem) + r"(\d+)$")
    numbers = [int(m.group(1)) for name in taken
               if (m := pattern.match(str(name)))]
    return f"{stem}{max(numbers, default=0) + 1}"


def free_name(stem, taken, *, separator=""):
    """``stem`` or ``stem2``, ``stem3``… (numbers after ``separator``):
    the first not in ``taken``."""
    if stem not in taken:
        return stem
    number = 2
    while f"{stem}{separator}{number}" in taken:
        number += 1
    return f"{stem}{separator}{number}"


def without_none(value):
    """Plain data without the None values (TOML has no null; every
    optional field's default is None, so nothing is lost)."""
    if isinstance(value, dict):
        return {k: without_none(v) for k, v in value.items()
                if v is not None}
    if isinstance(value, list):
        return [without_none(v) for v in value]
    return value
