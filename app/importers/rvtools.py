"""RVTools inventory (.xlsx) -> one scenario per ESXi host.

Tabs read (RVTools documentation, "RVTools tabs"): vHost (sockets, cores,
clock), vNIC (the host's physical NICs: device, speed in Mbit/s, the switch
each is an uplink of), vSwitch (standard switches: teaming policy, MTU),
dvSwitch (distributed switches: host members, LACP mode and algorithm,
max MTU), vPort (standard-switch port groups: a teaming policy that
overrides the vSwitch's), dvPort (distributed port groups: teaming
policy, active and standby uplinks), vSC_VMK (VMkernel adapters: port group, MTU, services when the
export has them), vInfo (VMs: host, power state, memory) and vMetaData
(the RVTools version). Headers drift between RVTools versions: each
column is found by any of its known spellings (e.g. "Memory", "Memory
MiB", "Memory MB").
"""

import re
from collections import Counter

from app.importers import rvtools_cluster
from app.importers.common import (Draft, ImportProblem, add_evacuation,
                                  decimal_mark, identifier, import_each,
                                  number, open_workbook)
from models import wire

#: RVTools major versions whose layout this importer knows.
KNOWN_MAJOR_VERSIONS = (3, 4)

#: Known spellings of each column, by tab (matched after lower-casing
#: and dropping everything but letters, digits and '#').
COLUMNS = {
    "vHost": {"host": ("Host", "Name"), "sockets": ("# CPU", "CPUs",
                                                    "Sockets"),
              "cores": ("Cores per CPU", "Cores per socket"),
              "mhz": ("Speed", "CPU Speed", "Speed MHz"),
              "cluster": ("Cluster",),
              "esx_version": ("ESX Version", "ESXi Version", "Version")},
    "vNIC": {"host": ("Host",), "device": ("Network Device", "Device",
                                            "vmnic"),
             "speed": ("Speed", "Speed Mbps", "Speed (Mbps)", "Link Speed"),
             "switch": ("Switch", "vSwitch")},
    "vSwitch": {"host": ("Host",), "switch": ("Switch", "vSwitch", "Name"),
                "policy": ("Policy", "Load Balancing"),
                "mtu": ("MTU",)},
    "dvSwitch": {"switch": ("Switch", "Name"),
                 "hosts": ("Host members", "Hosts"),
                 "lacp_mode": ("LACP Mode",),
                 "lacp_alg": ("LACP Load Balance Alg.",
                              "LACP Load Balance Algorithm"),
                 "mtu": ("Max MTU", "MTU")},
    "vPort": {"host": ("Host",), "port_group": ("Port Group", "Portgroup",
                                                 "Name"),
              "switch": ("Switch", "vSwitch"),
              "policy": ("Policy", "Load Balancing")},
    "dvPort": {"switch": ("Switch",), "port": ("Port", "Port Group"),
               "policy": ("Policy", "Load Balancing"),
               "active": ("Active Uplink", "Active Uplinks"),
               "standby": ("Standby Uplink", "Standby Uplinks"),
               "uplink": ("Uplink",)},
    "vSC_VMK": {"host": ("Host",), "device": ("Device", "VMkernel"),
                "port_group": ("Port Group", "Portgroup"),
                "mtu": ("MTU",), "services": ("Services",
                                              "Enabled Services")},
    "vInfo": {"vm": ("VM", "Name"), "host": ("Host",),
              "power": ("Powerstate", "Power State"),
              "template": ("Template",),
              "memory": ("Memory", "Memory MiB", "Memory MB",
                         "Memory (MiB)", "Memory (MB)"),
              "folder": ("Folder",),
              "in_use": ("In Use MiB", "In Use MB", "In Use")},
    "vMetaData": {"version": ("RVTools version", "RVTools Version",
                              "Version")},
}
#: Columns a tab may lack (older exports, or not always present).
OPTIONAL = {("vHost", "esx_version"),
            ("dvSwitch", "lacp_mode"), ("dvSwitch", "lacp_alg"),
            ("dvSwitch", "mtu"), ("dvPort", "active"), ("dvPort", "standby"),
            ("dvPort", "uplink"), ("vSC_VMK", "services"),
            ("vSC_VMK", "mtu"), ("vInfo", "template"), ("vInfo", "power"),
            ("vInfo", "folder"), ("vInfo", "in_use"), ("vSwitch", "mtu"),
            ("vHost", "cluster")}
#: Tabs without which no scenario can be built.
REQUIRED_TABS = ("vHost", "vNIC")

#: vSphere teaming policies (API names, as RVTools shows them) ->
#: (Linkplan policy, switch mode).
POLICIES = {"loadbalance_srcid": ("port_id", "independent"),
            "loadbalance_srcmac": ("src_mac", "independent"),
            "loadbalance_ip": ("ip_hash", "static"),
            "failover_explicit": ("failover", "independent"),
            "loadbalance_loadbased": ("lbt", "independent")}


def _key(text):
    return re.sub(r"[^a-z0-9#]", "", str(text or "").lower())


class _Sheet:
    """One tab: its header mapped to the logical columns, and its rows."""

    def __init__(self, path, workbook, name):
        self.path, self.name = path, name
        rows = workbook[name].iter_rows(values_only=True)
        header = next(rows, None)
        if header is None:
            raise ImportProblem(path, f"a header row in tab {name!r}",
                                row=1)
        _refuse_repeated_names(path, name, header)
        keys = {_key(h): i for i, h in enumerate(header) if h is not None}
        self.header, self.index, self._decimal = header, {}, {}
        self._by_host = None
        for logical, spellings in COLUMNS[name].items():
            found = next((keys[_key(s)] for s in spellings
                          if _key(s) in keys), None)
            if found is None and (name, logical) not in OPTIONAL:
                raise ImportProblem(
                    path, f"a column {' or '.join(map(repr, spellings))} "
                    f"in tab {name!r}", row=1,
                    column=f"{name}!" + ", ".join(
                        str(h) for h in header if h is not None)[:80])
            if found is not None:
                self.index[logical] = found
        self.rows = [(number_, row) for number_, row in
                     enumerate(rows, 2) if any(c is not None for c in row)]

    def rows_of(self, host):
        """The rows whose host column is ``host``, from an index built on
        first use (one pass, not one per host)."""
        if self._by_host is None:
            self._by_host = {}
            for entry in self.rows:
                self._by_host.setdefault(str(self.get(entry[1], "host")),
                                         []).append(entry)
        return self._by_host.get(host, [])

    def get(self, row, logical):
        i = self.index.get(logical)
        return None if i is None or i >= len(row) else row[i]

    def column(self, logical):
        return f"{self.name}!{self.header[self.index[logical]]}"

    def number(self, row_number, row, logical, expected):
        """A cell as a number >= 0, read with the decimal mark its column
        shows (text cells: "16,384" is refused where nothing tells)."""
        if logical not in self._decimal:
            self._decimal[logical] = decimal_mark(
                self.path, self.column(logical),
                ((n, self.get(r, logical)) for n, r in self.rows))
        return number(self.path, self.get(row, logical), expected,
                      row=row_number, column=self.column(logical),
                      decimal=self._decimal[logical], minimum=0)


def _refuse_repeated_names(path, tab, header):
    """A column name twice in a header: which one holds the values?"""
    seen = {}
    for index, name in enumerate(header, 1):
        key = str(name).strip() if name is not None else ""
        if key and key in seen:
            raise ImportProblem(path, "each column name once in a tab",
                                row=1, column=f"{tab}!{key}",
                                found=f"columns {seen[key]} and {index}")
        seen[key] = index


def _esxi_release(text):
    """'VMware ESXi 7.0.3 build-20328353' -> '7.0 U3' (ESXi numbers its
    updates as the third part); None when the cell says no release."""
    match = re.search(r"(\d{1,2})\.(\d)(?:\.(\d))?", str(text or ""))
    if match is None:
        return None
    major, minor, update = match.groups()
    return f"{major}.{minor}" + (f" U{update}" if update and update != "0"
                                 else "")


def import_files(paths):
    """Import RVTools exports; one scenario per host found."""
    return import_each(paths, _import_one)


def _import_one(path, result):
    workbook = open_workbook(path, "an RVTools export")
    try:
        names = set(workbook.sheetnames)
        missing = [t for t in REQUIRED_TABS if t not in names]
        if missing:
            raise ImportProblem(path, f"RVTools tabs {', '.join(missing)} "
                                "(is this an RVTools export?)",
                                got=", ".join(sorted(names))[:80])
        sheets = {name: _Sheet(path, workbook, name) for name in COLUMNS
                  if name in names}
    finally:
        workbook.close()
    _check_version(path, sheets.get("vMetaData"), result)
    hosts = []
    for row_number, row in sheets["vHost"].rows:
        host = sheets["vHost"].get(row, "host")
        if host:
            hosts.append((row_number, row, str(host)))
    if not hosts:
        raise ImportProblem(path, "at least one host row in tab 'vHost'",
                            row=2)
    context = _Context(path, sheets, result)
    members = []
    for row_number, row, host in hosts:
        try:
            draft = context.host(row_number, row, host)
        except ImportProblem as err:
            result.problems.append(f"{err} (host {host} skipped)")
            continue
        cluster = str(sheets["vHost"].get(row, "cluster") or "").strip()
        members.append((host, cluster, draft))
    vinfo = sheets.get("vInfo")
    columns = {} if vinfo is None else {
        logical: vinfo.column(logical) for logical in ("memory", "in_use")
        if logical in vinfo.index}
    rvtools_cluster.add_clusters(path, members, context.services(), columns,
                                 result)


def _check_version(path, sheet, result):
    if sheet is None or not sheet.rows:
        result.skipped.append(f"{path}: no vMetaData tab: RVTools version "
                              "unknown, read as 4.x")
        return
    row_number, row = sheet.rows[0]
    version = str(sheet.get(row, "version") or "")
    major = re.match(r"\s*(\d+)\.", version)
    if major is None or int(major.group(1)) not in KNOWN_MAJOR_VERSIONS:
        raise ImportProblem(path, "RVTools version "
                            + " or ".join(f"{v}.x" for v in
                                          KNOWN_MAJOR_VERSIONS)
                            + " (other layouts are not known)",
                            row=row_number, column=sheet.column("version"),
                            got=version)
    result.taken.append(f"{path}: RVTools {version}")


class _Context:
    def __init__(self, path, sheets, result):
        self.path, self.sheets, self.result = path, sheets, result

    def host(self, row_number, row, host):
        path, sheets = self.path, self.sheets
        vhost = sheets["vHost"]
        draft = Draft(f"{host} (RVTools {path})")
        doc = draft.document
        doc["host"] = {"hypervisor": "vsphere"}
        for field, logical, expected, scale in (
                ("sockets", "sockets", "a whole number of sockets", 1),
                ("cores_per_socket", "cores", "a whole number of cores", 1),
                ("ghz", "mhz", "a clock in MHz", 1e-3)):
            value = vhost.number(row_number, row, logical, expected)
            if value is None:
                continue
            value = int(value) if scale == 1 else value * scale
            doc["host"][field] = draft.measured(f"host.{field}", value,
                                                path, vhost.column(logical))
        release = _esxi_release(vhost.get(row, "esx_version"))
        if release is not None:
            # the release decides what the host offers and its defaults
            # (models.platform: vMotion's automatic streams from 7.0 U2)
            doc["host"]["release"] = draft.measured(
                "host.release", release, path, vhost.column("esx_version"))
        uplinks = self._nics(draft, host)
        self._teams(draft, host, uplinks)
        self._vmkernel(draft, host)
        self._vms(draft, host)
        self.result.drafts.append(draft)
        teams = ", ".join(f"{t['name']} ({t.get('policy', 'port_id')}, "
                          f"{len(t['members'])} uplinks)"
                          for t in doc["teams"]) or "no team"
        self.result.taken.append(
            f"{path}: host {host}: {len(doc['nics'])} NICs, {teams}, MTU "
            f"{doc['network'].get('mtu', 1500)}, "
            f"{len(doc['workloads']['migrations'])} VMs as migration "
            "candidates")
        return draft

    def services(self):
        """Host -> the lower-cased VMkernel services it runs (vSC_VMK)."""
        sheet, found = self.sheets.get("vSC_VMK"), {}
        for _, row in sheet.rows if sheet is not None else ():
            text = str(sheet.get(row, "services") or "").lower()
            found.setdefault(str(sheet.get(row, "host")), set()).update(
                word for word in ("vmotion", "vsan") if word in text)
        return found

    def _nics(self, draft, host):
        sheet, doc = self.sheets["vNIC"], draft.document
        uplinks = {}  # switch -> [nic ids]
        for row_number, row in sheet.rows_of(host):
            device = str(sheet.get(row, "device") or "").strip()
            speed = sheet.number(row_number, row, "speed",
                                 "a link speed in Mbit/s")
            if not device:
                continue
            if not speed:
                self.result.skipped.append(
                    f"{self.path}: row {row_number}, column "
                    f"{sheet.column('speed')!r}: {host} {device} has no "
                    "link speed (link down?): not imported")
                continue
            index = len(doc["nics"])
            nic_id = identifier(device, {n["id"] for n in doc["nics"]})
            doc["nics"].append({"id": nic_id, "speed_gbps": draft.measured(
                f"nics[{index}].speed_gbps", speed / 1000, self.path,
                sheet.column("speed"))})
            switch = str(sheet.get(row, "switch") or "").strip()
            if switch:
                uplinks.setdefault(switch, []).append(nic_id)
        if not doc["nics"]:
            raise ImportProblem(self.path, f"rows for host {host} with a "
                                "link speed in tab 'vNIC'",
                                column=sheet.column("speed"))
        return uplinks

    def _teams(self, draft, host, uplinks):
        doc, mtus = draft.document, []
        standard = self._standard_switches(host)
        distributed = self._distributed_switches(host)
        for switch, members in uplinks.items():
            team = {"name": identifier(switch, {t["name"] for t in
                                                doc["teams"]}),
                    "members": members}
            where = f"teams[{len(doc['teams'])}]"
            if switch in standard:
                row_number, row, sheet = standard[switch]
                self._policy(draft, team, where, sheet, row_number, row)
                self._standard_port_groups(draft, team, where, host, switch)
            elif switch in distributed:
                row_number, row, sheet = distributed[switch]
                self._distributed_policy(draft, team, where, switch,
                                         row_number, row)
            else:
                self.result.skipped.append(
                    f"{self.path}: host {host}: switch {switch!r} of the "
                    "vNIC tab is in neither vSwitch nor dvSwitch: its team "
                    "keeps the default policy (port_id)")
            if switch in standard or switch in distributed:
                row_number, row, sheet = standard.get(switch) \
                    or distributed[switch]
                mtu = sheet.number(row_number, row, "mtu", "an MTU in "
                                   "bytes") if "mtu" in sheet.index else None
                if mtu:
                    mtus.append((int(mtu), sheet.column("mtu")))
            doc["teams"].append(team)
        if mtus:
            mtu, column = max(mtus)
            doc["network"]["mtu"] = draft.measured("network.mtu", mtu,
                                                   self.path, column)
            if mtu > wire.MTU_LIMITS[1]:
                doc["network"]["mtu_max"] = mtu
            if len({m for m, _ in mtus}) > 1:
                draft.assumptions.append(
                    "Switches with different MTUs ("
                    + ", ".join(sorted({str(m) for m, _ in mtus}))
                    + f"): the scenario uses the largest, {mtu}")

    def _standard_switches(self, host):
        sheet = self.sheets.get("vSwitch")
        if sheet is None:
            return {}
        return {str(sheet.get(row, "switch")): (n, row, sheet)
                for n, row in sheet.rows_of(host)}

    def _distributed_switches(self, host):
        sheet = self.sheets.get("dvSwitch")
        if sheet is None:
            return {}
        found = {}
        for n, row in sheet.rows:
            members = re.split(r"[,;]\s*", str(sheet.get(row, "hosts")
                                               or ""))
            if host in members:
                found[str(sheet.get(row, "switch"))] = (n, row, sheet)
        return found

    def _policy(self, draft, team, where, sheet, row_number, row):
        text = str(sheet.get(row, "policy") or "").strip()
        if not text:
            return
        if text not in POLICIES:
            self.result.problems.append(
                f"{self.path}: row {row_number}, column "
                f"{sheet.column('policy')!r}: expected one of "
                f"{', '.join(POLICIES)}, got {text!r}: team {team['name']}"
                " keeps the default policy (port_id)")
            return
        policy, mode = POLICIES[text]
        team["policy"] = draft.measured(f"{where}.policy", policy,
                                        self.path, sheet.column("policy"))
        team["switch_mode"] = mode

    def _distributed_policy(self, draft, team, where, switch, row_number,
                            row):
        sheet = self.sheets["dvSwitch"]
        mode = str(sheet.get(row, "lacp_mode") or "").strip().lower()
        if mode in ("active", "passive"):
            team["policy"] = draft.measured(f"{where}.policy", "lacp",
                                            self.path,
                                            sheet.column("lacp_mode"))
            team["switch_mode"] = "lacp"
            algorithm = str(sheet.get(row, "lacp_alg") or "").strip()
            if algorithm:
                from models.teaming import UNIFORM_HASH_FIELDS
                if algorithm in UNIFORM_HASH_FIELDS:
                    team["hash"] = draft.measured(
                        f"{where}.hash", algorithm, self.path,
                        sheet.column("lacp_alg"))
                else:
                    self.result.problems.append(
                        f"{self.path}: row {row_number}, column "
                        f"{sheet.column('lacp_alg')!r}: unknown LACP "
                        f"algorithm {algorithm!r}: the default hash is used")
            return
        ports = self.sheets.get("dvPort")
        if ports is None:
            return
        self._port_group_policy(
            draft, team, where, switch, ports,
            [(n, r) for n, r in ports.rows
             if str(ports.get(r, "switch")) == switch
             and str(ports.get(r, "uplink") or "").lower() != "true"])

    def _standard_port_groups(self, draft, team, where, host, switch):
        """A standard switch's port groups may override its policy (vPort
        tab): the team follows what its port groups use."""
        ports = self.sheets.get("vPort")
        if ports is None:
            return
        self._port_group_policy(
            draft, team, where, switch, ports,
            [(n, r) for n, r in ports.rows_of(host)
             if str(ports.get(r, "switch")) == switch])

    def _port_group_policy(self, draft, team, where, switch, ports, rows):
        rows = [(n, r) for n, r in rows if ports.get(r, "policy")]
        if not rows:
            return
        # port groups of one switch may differ: the most common policy
        common = Counter(str(ports.get(r, "policy")) for _, r in rows)
        policy = common.most_common(1)[0][0]
        n, r = next((n, r) for n, r in rows
                    if str(ports.get(r, "policy")) == policy)
        self._policy(draft, team, where, ports, n, r)
        if len(common) > 1:
            draft.assumptions.append(
                f"Port groups of {switch} use different teaming policies "
                f"({', '.join(common)}): team {team['name']} takes the most "
                f"common, {policy}")

    def _vmkernel(self, draft, host):
        sheet = self.sheets.get("vSC_VMK")
        if sheet is None:
            return
        for row_number, row in sheet.rows_of(host):
            services = str(sheet.get(row, "services") or "").strip()
            self.result.taken.append(
                f"{self.path}: vSC_VMK row {row_number}: host {host} "
                f"{sheet.get(row, 'device')} on port group "
                f"{sheet.get(row, 'port_group')!r}, MTU "
                f"{sheet.get(row, 'mtu')}"
                + (f", services {services}" if services else ""))
            if "vmotion" in services.lower() and not \
                    draft.document["workloads"]["transfers"]:
                draft.document["workloads"]["transfers"].append(
                    {"name": "vmotion", "purpose": "live_migration",
                     "multipath": True})
                draft.assumptions.append(
                    f"vMotion runs over {sheet.get(row, 'device')} "
                    "(vSC_VMK services); over all NICs of the host, as "
                    "multi-NIC vMotion")

    def _vms(self, draft, host):
        sheet = self.sheets.get("vInfo")
        if sheet is None:
            self.result.skipped.append(f"{self.path}: no vInfo tab: no "
                                       "VMs imported")
            return
        migrations = draft.document["workloads"]["migrations"]
        transfers = draft.document["workloads"]["transfers"]
        evacuating = []
        names = set()
        for row_number, row in sheet.rows_of(host):
            vm = str(sheet.get(row, "vm") or "")
            power = str(sheet.get(row, "power") or "poweredOn")
            if str(sheet.get(row, "template") or "").lower() == "true":
                continue
            if power.lower() != "poweredon":
                self.result.skipped.append(
                    f"{self.path}: vInfo row {row_number}: VM {vm} is {power}: "
                    "not a live-migration candidate")
                continue
            memory = sheet.number(row_number, row, "memory",
                                  "memory in MiB")
            if not memory:
                self.result.problems.append(
                    f"{self.path}: row {row_number}, column "
                    f"{sheet.column('memory')!r}: VM {vm} has no memory "
                    "size: skipped")
                continue
            name = identifier(vm, names)
            names.add(name)
            migration = {"name": name, "memory_gib": draft.measured(
                f"workloads.migrations[{len(migrations)}].memory_gib",
                memory / 1024, self.path, sheet.column("memory"))}
            if transfers:
                migration["transfer"] = transfers[0]["name"]
            migrations.append(migration)
            evacuating.append(self._evacuating_vm(
                draft, len(evacuating), name, memory, row_number, row))
        self._evacuation(draft, host, evacuating)

    def _evacuating_vm(self, draft, index, name, memory, row_number, row):
        """One VM of the host's evacuation: its memory, its folder as the
        group, its disk in use (copied only without shared storage)."""
        sheet = self.sheets["vInfo"]
        path = f"workloads.evacuations[0].vms[{index}]"
        vm = {"name": name, "memory_gib": draft.measured(
            f"{path}.memory_gib", memory / 1024, self.path,
            sheet.column("memory"))}
        folder = sheet.get(row, "folder")
        if folder:
            vm["group"] = str(folder)[:200]
        if "in_use" in sheet.index:
            in_use = sheet.number(row_number, row, "in_use",
                                  "disk in use in MiB")
            if in_use:
                vm["disk_gib"] = draft.measured(
                    f"{path}.disk_gib", in_use / 1024, self.path,
                    sheet.column("in_use"))
        return vm

    def _evacuation(self, draft, host, vms):
        """The host's powered-on VMs as its evacuation (maintenance mode)
        over its vMotion transfer, vCenter's limits."""
        transfers = draft.document["workloads"]["transfers"]
        if not vms:
            return
        if not transfers:
            self.result.skipped.append(
                f"{self.path}: host {host}: no vMotion vmknic (vSC_VMK "
                "services): no evacuation")
            return
        add_evacuation(
            draft, host, vms, "vsphere",
            f"Evacuation of {host}: its {len(vms)} powered-on VMs over "
            "vMotion with vCenter's limits, on shared storage (set "
            "disks = 'copied' to move their disks in use too)")
