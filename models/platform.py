"""What each hypervisor can do: the transports and options of its live
migration, the transports of its own host stack, and the storage protocols
(with their RDMA variants) its datastores use, each with the release that
brought it and the document that says so.

The scenario validates against this matrix (a document that asks vMotion
for SMB is refused, naming the field and the value), the advice proposes
only what it offers, and the editor greys out what it lacks. Pure data and
lookups: no I/O.

A capability is ``(since, source)``: the first release that has it and
where that is documented. Releases are the vendor's names ("vSphere 7.0
U2", "Windows Server 2012 R2", "QEMU 4.0"); where the document carries
the release (``qemu_version``), :func:`qemu_release_lacks` checks it.
"""

import re

from models.host import STACK_HYPERVISORS

#: Hypervisors of ``host.hypervisor``.
HYPERVISORS = ("vsphere", "hyperv", "kvm", "xen")

#: Names shown in messages.
PLATFORM_NAMES = {"vsphere": "vSphere (ESXi)", "hyperv": "Hyper-V",
                  "kvm": "KVM/QEMU", "xen": "Xen"}

#: Transports of live migration (``workloads.migrations[].transport`` and
#: transfers of purpose ``live_migration``), per hypervisor.
MIGRATION_TRANSPORTS = {
    "vsphere": {
        # vMotion is TCP between vmknics; encryption (6.5) and the stream
        # count change how, not over what
        "tcp": ("vSphere 4.0", "VMware, 'vSphere vMotion Networking "
                "Requirements' (vMotion TCP/IP stack, port 8000/TCP)"),
    },
    "hyperv": {
        "tcp": ("Windows Server 2008 R2", "Microsoft, Set-VMHost "
                "-VirtualMachineMigrationPerformanceOption TCPIP"),
        "compression": ("Windows Server 2012 R2", "Microsoft, Set-VMHost "
                        "-VirtualMachineMigrationPerformanceOption "
                        "Compression (the default since 2012 R2)"),
        "smb": ("Windows Server 2012 R2", "Microsoft, Set-VMHost "
                "-VirtualMachineMigrationPerformanceOption SMB (SMB "
                "Multichannel over every NIC the host allows)"),
        "smb_direct": ("Windows Server 2012 R2", "Microsoft, 'Live "
                       "Migration Overview': option SMB uses SMB Direct "
                       "when the NICs are RDMA-capable"),
    },
    "kvm": {
        "tcp": ("QEMU 0.12", "QEMU, docs/devel/migration: tcp: URI"),
        "compression": ("QEMU 2.4", "QEMU: compress threads (2.4, removed "
                        "in 9.1), multifd-compression zlib/zstd (5.0), "
                        "qatzip (9.2)"),
        "rdma": ("QEMU 1.6", "QEMU, docs/rdma.txt: x-rdma: URI in 1.6, "
                 "rdma: from 2.0"),
    },
    "xen": {
        "tcp": ("Xen 3.0", "xl migrate: the save stream over ssh or a "
                "TCP socket (xg_sr_save.c); no compression, no RDMA"),
    },
}

#: Live-migration options beyond the transport, per hypervisor. Each key
#: names the document field it governs.
MIGRATION_OPTIONS = {
    "vsphere": {
        "encryption": ("vSphere 6.5", "VMware, 'Encrypted vSphere "
                       "vMotion' (Opportunistic by default)"),
        "vmotion_auto_streams": ("vSphere 7.0 U2", "N. Hagoort, "
                                 "'Auto-Tuning vMotion Streams' (VMware, "
                                 "2021): streams follow the NIC's "
                                 "bandwidth"),
        "throttling:sdps": ("vSphere 5.0", "VMware KB 2141355: Stun "
                            "During Page Send"),
    },
    "hyperv": {},
    "kvm": {
        "multifd": ("QEMU 4.0", "QEMU migration capability 'multifd' "
                    "(x-multifd 2.11-3.1)"),
        "switchover:postcopy": ("QEMU 2.6", "QEMU migration capability "
                                "'postcopy-ram' (x-postcopy-ram in 2.5)"),
        "throttling:auto_converge": ("QEMU 1.6", "QEMU migration "
                                     "capability 'auto-converge'"),
        "rdma_pin_all": ("QEMU 1.6", "QEMU capability 'rdma-pin-all' "
                         "(x-rdma-pin-all in 1.6)"),
    },
    "xen": {},
}

#: QEMU releases of the options above, for ``qemu_version`` checks.
QEMU_SINCE = {"multifd": (4, 0), "switchover:postcopy": (2, 6),
              "throttling:auto_converge": (1, 6), "rdma": (1, 6),
              "rdma_pin_all": (1, 6)}

#: Transports of the hypervisor's own host stack for bulk transfers
#: (VMkernel, the Hyper-V management OS, a Linux host). A VM's guest OS
#: (host.stack ``vm_guest``, ``esxi_vnic``) runs what its OS runs and is
#: not restricted here.
HOST_TRANSPORTS = {
    "vsphere": {
        "tcp": ("vSphere 4.0", "VMkernel TCP/IP stack (no SMB client)"),
        "udp": ("vSphere 4.0", "VMkernel TCP/IP stack"),
    },
    "hyperv": {
        "tcp": ("Windows Server 2008", "Windows TCP/IP stack"),
        "udp": ("Windows Server 2008", "Windows TCP/IP stack"),
        "compression": ("Windows Server 2012 R2", "as live migration"),
        "smb": ("Windows Server 2012", "Microsoft, 'SMB Multichannel'"),
        "smb_direct": ("Windows Server 2012", "Microsoft, 'SMB Direct'"),
    },
    "kvm": {
        "tcp": ("Linux", "Linux TCP/IP stack, tcp(7)"),
        "udp": ("Linux", "Linux UDP stack, udp(7)"),
        "compression": ("QEMU 2.4", "as live migration"),
        "smb": ("Linux 5.5", "cifs.ko 'multichannel' mount option"),
        "smb_direct": ("Linux 4.15", "cifs.ko 'rdma' mount option "
                       "(CONFIG_CIFS_SMB_DIRECT)"),
        "rdma": ("QEMU 1.6", "as live migration"),
    },
    "xen": {
        "tcp": ("Linux dom0", "Linux TCP/IP stack, tcp(7)"),
        "udp": ("Linux dom0", "Linux UDP stack, udp(7)"),
        "compression": ("Linux dom0", "a compressing copy in dom0"),
    },
}

#: Storage protocols of the hypervisor's datastores, and over which
#: transports (``tcp``, ``rdma``) each runs.
STORAGE_PROTOCOLS = {
    "vsphere": {
        "nfs3": (("tcp",), "vSphere 3.0", "VMware, 'NFS Datastore "
                 "Concepts' (NFS 3 and 4.1 over TCP; no NFS over RDMA)"),
        "iscsi": (("tcp", "rdma"), "vSphere 3.0 (iSER 6.7)",
                  "VMware, 'Configuring iSER Adapters' (6.7)"),
        "vsan": (("tcp", "rdma"), "vSphere 5.5 U1 (RDMA 7.0 U2)",
                 "VMware, 'vSAN Network Design Guide': vSAN's own RDT "
                 "protocol over TCP on a vSAN vmknic; vSAN over RDMA "
                 "from 7.0 U2"),
        "local": ((), "any", "VMFS on local devices"),
        "nvmeof": (("tcp", "rdma"), "vSphere 7.0 (NVMe/TCP 7.0 U3)",
                   "VMware, 'About VMware NVMe Storage'"),
    },
    "hyperv": {
        "smb3": (("tcp", "rdma"), "Windows Server 2012",
                 "Microsoft, 'Deploy Hyper-V over SMB' (SMB Direct "
                 "with RDMA NICs)"),
        "iscsi": (("tcp",), "Windows Server 2008", "Microsoft iSCSI "
                  "Initiator (TCP only: Windows has no iSER initiator)"),
        "s2d": (("tcp", "rdma"), "Windows Server 2016", "Microsoft, "
                "'Storage Spaces Direct overview' (its storage bus over "
                "SMB 3, SMB Direct with RDMA NICs)"),
        "local": ((), "any", "NTFS/ReFS on local devices"),
        "nvmeof": (("tcp", "rdma"), "Windows Server 2025",
                   "Microsoft, NVMe-oF initiator for Windows Server "
                   "2025"),
    },
    "kvm": {
        "nfs3": (("tcp", "rdma"), "Linux", "nfs(5): proto=rdma"),
        "iscsi": (("tcp", "rdma"), "Linux", "open-iscsi; iSER "
                  "(ib_iser)"),
        "smb3": (("tcp", "rdma"), "Linux", "cifs.ko (smbdirect)"),
        "local": ((), "any", "local block devices"),
        "nvmeof": (("tcp", "rdma"), "Linux 4.8 (TCP 5.0)", "nvme-cli "
                   "connect -t tcp|rdma"),
    },
    "xen": {
        "nfs3": (("tcp",), "XenServer", "Citrix, 'Storage repository "
                 "formats: NFS'"),
        "iscsi": (("tcp",), "XenServer", "Citrix, 'Storage repository "
                  "formats: iSCSI (lvmoiscsi)'"),
        "smb3": (("tcp",), "XenServer 7.0", "Citrix, 'SMB storage'"),
        "local": ((), "any", "local LVM/EXT SR"),
    },
}

#: Teaming policies of each hypervisor's virtual switch or host bond.
TEAMING_POLICIES = {
    "vsphere": {
        "port_id": ("vSphere 4.0", "VMware, 'Teaming and Failover "
                    "Policy': Route based on originating virtual port"),
        "src_mac": ("vSphere 4.0", "VMware, 'Teaming and Failover "
                    "Policy': Route based on source MAC hash"),
        "ip_hash": ("vSphere 4.0", "VMware, 'Teaming and Failover "
                    "Policy': Route based on IP hash"),
        "failover": ("vSphere 4.0", "VMware, 'Teaming and Failover "
                     "Policy': Use explicit failover order"),
        "lbt": ("vSphere 4.1", "VMware, 'Teaming and Failover Policy': "
                "Route based on physical NIC load (vDS)"),
        "lacp": ("vSphere 5.1", "VMware, 'LACP Support on a vSphere "
                 "Distributed Switch'"),
    },
    "hyperv": {
        "hyperv_port": ("Windows Server 2012", "Microsoft, 'NIC Teaming' "
                        "(LBFO) and SET: Hyper-V Port"),
        "address_hash": ("Windows Server 2012", "Microsoft, 'NIC "
                         "Teaming' (LBFO): Address Hash"),
        "dynamic": ("Windows Server 2012 R2", "Microsoft, 'NIC Teaming' "
                    "(LBFO) and SET: Dynamic"),
        "failover": ("Windows Server 2012", "Microsoft, 'NIC Teaming': "
                     "a standby adapter"),
        "lacp": ("Windows Server 2012", "Microsoft, 'NIC Teaming': LACP "
                 "teaming mode"),
    },
    "kvm": {policy: ("Linux", "kernel Documentation/networking/"
                     "bonding.rst; Open vSwitch ovs-vswitchd.conf.db "
                     "bond_mode")
            for policy in ("failover", "balance_xor", "lacp", "balance_rr",
                           "balance_tlb", "balance_alb", "ovs_balance_slb",
                           "ovs_balance_tcp")},
    "xen": {policy: ("XenServer", "Citrix, 'Networking: NIC bonds' "
                     "(Open vSwitch active-active, active-passive, LACP; "
                     "Linux bridge bonding)")
            for policy in ("failover", "ovs_balance_slb", "ovs_balance_tcp",
                           "lacp", "balance_xor", "balance_rr",
                           "balance_tlb", "balance_alb")},
}


#: Evacuation platforms (``workloads.evacuations[].platform``, whose
#: limits and sources are models.evacuation.PLATFORMS) a hypervisor runs
#: under; ``none`` (no platform limit) on any.
EVACUATION_PLATFORMS = {
    "vsphere": ("vsphere", "none"),
    "hyperv": ("hyperv", "hyperv_cluster", "none"),
    "kvm": ("kubevirt", "kubevirt_legacy", "qemu", "proxmox", "none"),
    "xen": ("none",),
}


#: The hypervisor each live-migration stop rule is (models.migration.
#: STOP_RULES); ``fraction_left`` is generic.
STOP_RULE_PLATFORMS = {"vmotion": "vsphere", "hyperv": "hyperv",
                       "qemu": "kvm", "xen_legacy": "xen", "xen_v2": "xen"}


def stop_rules(hypervisor):
    """The stop rules a migration on ``hypervisor`` follows."""
    return tuple(rule for rule, owner in STOP_RULE_PLATFORMS.items()
                 if owner == hypervisor) + ("fraction_left",)


def teaming_policies(hypervisor):
    """Teaming policies ``hypervisor`` offers, in order."""
    return _names(TEAMING_POLICIES[hypervisor])


def migration_streams_settable(hypervisor, transport, *, multifd=False,
                               auto_streams=False):
    """Whether a live migration's stream count is a setting of the
    platform: vMotion's streams are the vmknics an administrator adds
    (multi-NIC vMotion; from 7.0 U2 vSphere sets them itself: N. Hagoort,
    'Auto-Tuning vMotion Streams'); QEMU has several only as multifd
    channels (``multifd-channels``); Hyper-V over SMB sets its
    Multichannel connections (ConnectionCountPerRssNetworkInterface),
    over TCP one connection per VM; Xen's save stream is one."""
    if hypervisor == "vsphere":
        return not auto_streams
    if hypervisor == "kvm":
        return multifd
    if hypervisor == "hyperv":
        return transport in ("smb", "smb_direct")
    return False


#: Storage protocols that are a platform's own data path, not sessions a
#: user opens (vSAN's DOM/RDT traffic, the S2D Software Storage Bus): no
#: ``sessions_per_path`` to set, and no one-core-per-session bound
#: (models.storage.EVERY_CORE_PROTOCOLS).
OWN_DATA_PATHS = {
    "vsan": "VMware, 'vSAN Network Design Guide': vSAN's distributed "
            "object manager sends its RDT traffic from the host's "
            "worlds over the vSAN vmknic; there is no per-session "
            "setting",
    "s2d": "Microsoft, 'Storage Spaces Direct overview': the Software "
           "Storage Bus runs over SMB 3 Multichannel between every pair "
           "of nodes",
}

#: Host stacks that are a VM's guest OS, not the hypervisor's.
GUEST_STACKS = ("vm_guest", "esxi_vnic")


def _names(table):
    return tuple(table)


def migration_transports(hypervisor):
    """Live-migration transports ``hypervisor`` offers, in order."""
    return _names(MIGRATION_TRANSPORTS[hypervisor])


def host_transports(hypervisor, stack=None):
    """Transports of a bulk transfer on ``hypervisor``'s host stack; every
    transport for a guest stack (None: all transports are allowed)."""
    if stack in GUEST_STACKS:
        return None
    return _names(HOST_TRANSPORTS[hypervisor])


def transfer_transports(hypervisor, purpose, stack=None):
    """Transports a transfer of ``purpose`` may use on ``hypervisor``
    (None: not restricted)."""
    if purpose == "live_migration":
        return migration_transports(hypervisor)
    return host_transports(hypervisor, stack)


def storage_protocols(hypervisor):
    """Storage protocols of ``hypervisor``'s datastores, in order."""
    return _names(STORAGE_PROTOCOLS[hypervisor])


def storage_transports(hypervisor, protocol):
    """Transports ``protocol`` runs over on ``hypervisor`` (empty for local
    IO; None if the protocol is not offered)."""
    entry = STORAGE_PROTOCOLS[hypervisor].get(protocol)
    return None if entry is None else entry[0]


def source_of(hypervisor, kind, value):
    """``(since, source)`` of a capability, or None if not offered;
    ``kind`` is 'migration', 'host', 'option', 'teaming' or 'storage'."""
    table = {"migration": MIGRATION_TRANSPORTS, "host": HOST_TRANSPORTS,
             "option": MIGRATION_OPTIONS,
             "teaming": TEAMING_POLICIES}.get(kind)
    if table is not None:
        return table[hypervisor].get(value)
    entry = STORAGE_PROTOCOLS[hypervisor].get(value)
    return None if entry is None else entry[1:]


def offering(kind, value):
    """The hypervisors that offer ``value`` of ``kind``, for messages."""
    return tuple(h for h in HYPERVISORS if source_of(h, kind, value))


def release_tuple(text):
    """'9.2' -> (9, 2)."""
    return tuple(int(x) for x in text.split("."))


def qemu_release_lacks(option, qemu_version):
    """Problem text when QEMU ``qemu_version`` predates ``option`` (a key
    of :data:`QEMU_SINCE`), else None."""
    since = QEMU_SINCE[option]
    if release_tuple(qemu_version) >= since:
        return None
    source = (MIGRATION_OPTIONS["kvm"].get(option)
              or MIGRATION_TRANSPORTS["kvm"][option])[1]
    return (f"{option.split(':')[-1]} exists from QEMU "
            f"{since[0]}.{since[1]} ({source}), got qemu_version "
            f"{qemu_version!r}")


def refusal(hypervisor, kind, value, offered):
    """The sentence that refuses ``value`` on ``hypervisor``: what it
    offers and which platforms have the value."""
    others = offering(kind, value)
    where = (f"; {value!r} is "
             + " and ".join(PLATFORM_NAMES[h] for h in others) + "'s"
             if others else "")
    return (f"{value!r} is not offered by host.hypervisor {hypervisor!r} "
            f"({PLATFORM_NAMES[hypervisor]} offers "
            f"{', '.join(map(repr, offered)) or 'none'}{where})")


def allowed_values(document, path):
    """The values the platform offers for the enumerated field at
    ``path`` of a document given as plain data (the editor greys out the
    rest), or None when the platform does not restrict it."""
    host = document.get("host") or {}
    hypervisor = host.get("hypervisor", "vsphere")
    stack = host.get("stack")
    parts = path.replace("]", "").split(".")
    if path.startswith("workloads.migrations[") and \
            path.endswith(".transport"):
        return migration_transports(hypervisor)
    if path.startswith("workloads.transfers[") and \
            path.endswith(".transport"):
        index = int(parts[1].split("[")[1])
        items = (document.get("workloads") or {}).get("transfers") or []
        purpose = items[index].get("purpose", "bulk") \
            if index < len(items) else "bulk"
        return transfer_transports(hypervisor, purpose, stack)
    if path.startswith("workloads.storage[") and path.endswith(".protocol"):
        return storage_protocols(hypervisor)
    if path.startswith("teams[") and path.endswith(".policy"):
        return teaming_policies(hypervisor)
    if path.startswith("workloads.evacuations[") and \
            path.endswith(".platform"):
        return EVACUATION_PLATFORMS[hypervisor]
    if path.endswith(".stop_rule") and path.startswith(
            ("workloads.migrations[", "workloads.evacuations[")):
        return stop_rules(hypervisor)
    return None


#: The protocol of another platform's datastore that plays the same part
#: (a hyper-converged pool, a file share).
STORAGE_ANALOGUES = {"vsan": "s2d", "s2d": "vsan", "smb3": "nfs3",
                     "nfs3": "smb3"}


#: Releases a capability needs, per hypervisor, as :func:`parse_release`
#: gives them (the sources are the tables above): vSphere (major, minor,
#: update), Windows Server (year, R2).
RELEASE_NEEDED = {
    "vsphere": {
        "teaming:lbt": (4, 1, 0), "teaming:lacp": (5, 1, 0),
        "storage:vsan": (5, 5, 1), "storage:vsan+rdma": (7, 0, 2),
        "storage:iscsi+rdma": (6, 7, 0), "storage:nvmeof+rdma": (7, 0, 0),
        "storage:nvmeof+tcp": (7, 0, 3),
        "vmotion_auto_streams": (7, 0, 2),
    },
    "hyperv": {
        "migration:compression": (2012, 1), "migration:smb": (2012, 1),
        "migration:smb_direct": (2012, 1), "teaming:dynamic": (2012, 1),
        "storage:s2d+tcp": (2016, 0), "storage:s2d+rdma": (2016, 0),
        "storage:nvmeof+tcp": (2025, 0), "storage:nvmeof+rdma": (2025, 0),
    },
}

#: Release texts by hypervisor, for messages.
RELEASE_FORMS = {"vsphere": "'6.7', '7.0 U2', '8.0 U1'",
                 "hyperv": "'2012 R2', '2016', '2019', '2022', '2025' "
                           "(Windows Server)"}


def parse_release(hypervisor, text):
    """A release as a comparable tuple: vSphere '7.0 U2' -> (7, 0, 2),
    Windows Server '2012 R2' -> (2012, 1).

    Raises
    ------
    ValueError
        A hypervisor without releases here, or a text not of its form.
    """
    if hypervisor not in RELEASE_FORMS:
        raise ValueError(
            f"releases are read for vSphere and Hyper-V hosts; "
            f"{PLATFORM_NAMES[hypervisor]} capabilities follow "
            "workloads.migrations[].qemu_version, got "
            f"{text!r}")
    if hypervisor == "vsphere":
        match = re.fullmatch(r"(\d{1,2})\.(\d)(?:\s*U(\d))?", text.strip())
        if match:
            return tuple(int(g or 0) for g in match.groups())
    else:
        match = re.fullmatch(r"(20\d\d)(\s*R2)?", text.strip())
        if match:
            return int(match.group(1)), int(bool(match.group(2)))
    raise ValueError(f"not a {PLATFORM_NAMES[hypervisor]} release: give "
                     f"one like {RELEASE_FORMS[hypervisor]}, got {text!r}")


def release_lacks(hypervisor, release, capability):
    """Problem text when ``release`` (text; None: not stated, the latest
    assumed) predates ``capability`` (a key of :data:`RELEASE_NEEDED`),
    else None."""
    needed = RELEASE_NEEDED.get(hypervisor, {}).get(capability)
    if release is None or needed is None or \
            parse_release(hypervisor, release) >= needed:
        return None
    if hypervisor == "vsphere":
        since = f"{needed[0]}.{needed[1]}" + (f" U{needed[2]}"
                                              if needed[2] else "")
    else:
        since = f"{needed[0]}" + (" R2" if needed[1] else "")
    return (f"{capability.split(':')[-1].replace('+', ' over ')} needs "
            f"{PLATFORM_NAMES[hypervisor]} {since} or later, got "
            f"host.release {release!r}")


def vmotion_auto_streams(hypervisor, release, setting):
    """Whether vMotion opens its streams itself: the setting when given;
    else from the release (7.0 U2 and later), and as up to 7.0 U1 when
    the release is not stated."""
    if setting is not None:
        return setting
    return hypervisor == "vsphere" and release is not None and \
        release_lacks(hypervisor, release, "vmotion_auto_streams") is None


def follow_hypervisor(document, hypervisor):
    """The changes that carry a document (plain data) to ``hypervisor``:
    every choice the new platform lacks goes to its first one (a team's
    policy, a migration transport, an evacuation platform), so that
    changing the hypervisor is one valid edit. ``{path: value}``."""
    changes = {}
    for i, team in enumerate(document.get("teams") or []):
        if team.get("policy", "port_id") not in \
                TEAMING_POLICIES[hypervisor]:
            changes[f"teams[{i}].policy"] = teaming_policies(hypervisor)[0]
    workloads = document.get("workloads") or {}
    stack = (document.get("host") or {}).get("stack")
    if (document.get("host") or {}).get("release") is not None:
        changes["host.release"] = None   # another vendor's release
    if stack is not None and hypervisor not in STACK_HYPERVISORS[stack]:
        changes["host.stack"] = None   # the new hypervisor's default
        stack = None
    for i, item in enumerate(workloads.get("transfers") or []):
        offered = transfer_transports(
            hypervisor, item.get("purpose", "bulk"), stack)
        if offered is not None and item.get("transport", "tcp") \
                not in offered:
            changes[f"workloads.transfers[{i}].transport"] = "tcp"
    rules = stop_rules(hypervisor)
    for i, item in enumerate(workloads.get("migrations") or []):
        if item.get("transport", "tcp") not in \
                MIGRATION_TRANSPORTS[hypervisor]:
            changes[f"workloads.migrations[{i}].transport"] = "tcp"
        if item.get("stop_rule", "vmotion") not in rules:
            changes[f"workloads.migrations[{i}].stop_rule"] = rules[0]
    for i, item in enumerate(workloads.get("storage") or []):
        protocol = item.get("protocol", "iscsi")
        if protocol not in STORAGE_PROTOCOLS[hypervisor]:
            protocol = STORAGE_ANALOGUES.get(protocol, "iscsi")
            changes[f"workloads.storage[{i}].protocol"] = protocol
            if item.get("sessions_per_path") is not None:
                changes[f"workloads.storage[{i}].sessions_per_path"] = None
        over = storage_transports(hypervisor, protocol)
        if item.get("transport") is not None and over is not None and \
                item["transport"] not in over:
            changes[f"workloads.storage[{i}].transport"] = None
    for i, item in enumerate(workloads.get("evacuations") or []):
        if item.get("platform", "vsphere") not in \
                EVACUATION_PLATFORMS[hypervisor]:
            changes[f"workloads.evacuations[{i}].platform"] = \
                EVACUATION_PLATFORMS[hypervisor][0]
    return changes
