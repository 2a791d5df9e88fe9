"""Presets the scenario editor offers for a list entry: values an architect
would otherwise look up (a NIC's speed and RDMA kind, a hypervisor's
migration stop rule, a benchmark's IO pattern). Applying one sets only the
fields it names, as one undoable edit.

Each preset is ``(label, {field: value}, source)``; presets are keyed by
the schema model's class name so the editor finds them for every list of
that model.
"""

#: NICs by speed and RDMA kind; the example adapters are the vendors'
#: datasheets' (speed, RDMA support), nothing else of them is modelled.
NIC_PRESETS = (
    ("1 GbE (e.g. Intel I350)", {"speed_gbps": 1.0, "rdma": "none"},
     "Intel Ethernet Controller I350 datasheet: 1 GbE, no RDMA"),
    ("10 GbE (e.g. Intel X710)", {"speed_gbps": 10.0, "rdma": "none"},
     "Intel Ethernet Controller X710 datasheet: 10 GbE, no RDMA"),
    ("10 GbE iWARP (e.g. Intel X722)",
     {"speed_gbps": 10.0, "rdma": "iwarp"},
     "Intel Ethernet Connection X722 datasheet: 10 GbE, iWARP"),
    ("25 GbE (e.g. Intel XXV710)", {"speed_gbps": 25.0, "rdma": "none"},
     "Intel XXV710 datasheet: 25 GbE, no RDMA"),
    ("25 GbE RoCE v2 (e.g. NVIDIA ConnectX-4 Lx)",
     {"speed_gbps": 25.0, "rdma": "roce_v2"},
     "NVIDIA ConnectX-4 Lx product brief: 10/25 GbE, RoCE"),
    ("40 GbE RoCE v2 (e.g. Mellanox ConnectX-3 Pro)",
     {"speed_gbps": 40.0, "rdma": "roce_v2"},
     "Mellanox ConnectX-3 Pro product brief: 10/40 GbE, RoCE"),
    ("100 GbE RoCE v2 (e.g. NVIDIA ConnectX-5)",
     {"speed_gbps": 100.0, "rdma": "roce_v2"},
     "NVIDIA ConnectX-5 product brief: up to 100 GbE, RoCE"),
    ("100 GbE iWARP (e.g. Chelsio T62100)",
     {"speed_gbps": 100.0, "rdma": "iwarp"},
     "Chelsio T6 product brief: 100 GbE, iWARP"),
)

#: Migration settings per hypervisor: the stop rule and its throttling
#: (models.migration.STOP_RULES documents each rule's source).
MIGRATION_PRESETS = (
    ("vSphere vMotion (500 ms switchover goal, SDPS)",
     {"stop_rule": "vmotion", "throttling": None, "transport": "tcp"},
     "ESXi Migrate.PreCopySwitchoverTimeGoal, SDPS (VMware KB 2141355)"),
    ("QEMU / KVM defaults (300 ms downtime limit)",
     {"stop_rule": "qemu", "throttling": None, "management": "qemu"},
     "QEMU migration parameters downtime-limit, max-bandwidth"),
    ("QEMU via libvirt with auto-converge",
     {"stop_rule": "qemu", "throttling": "auto_converge",
      "management": "libvirt"},
     "QEMU auto-converge capability; libvirt lifts max-bandwidth"),
    ("Hyper-V over TCP", {"stop_rule": "hyperv", "transport": "tcp"},
     "Set-VMHost -VirtualMachineMigrationPerformanceOption TCPIP"),
    ("Hyper-V with compression",
     {"stop_rule": "hyperv", "transport": "compression"},
     "Set-VMHost -VirtualMachineMigrationPerformanceOption Compression"),
    ("Hyper-V over SMB (Multichannel)",
     {"stop_rule": "hyperv", "transport": "smb"},
     "Set-VMHost -VirtualMachineMigrationPerformanceOption SMB: SMB "
     "Multichannel's connections over every allowed NIC (Microsoft, 'SMB "
     "Multichannel': 4 per RSS-capable NIC)"),
    ("Hyper-V over SMB Direct",
     {"stop_rule": "hyperv", "transport": "smb_direct"},
     "Set-VMHost -VirtualMachineMigrationPerformanceOption SMB"),
    ("Xen migration v2", {"stop_rule": "xen_v2", "throttling": None},
     "xg_sr_save.c simple_precopy_policy"),
)

#: Benchmark IO patterns. Outstanding IO per disk is the tool's own
#: setting: HCIBench/Vdbench threads per disk, fio iodepth, diskspd
#: threads per target x outstanding IO per thread (-t x -o).
STORAGE_PRESETS = (
    ("HCIBench 4 KB random write, 1 thread per disk",
     {"block_kib": 4.0, "read_pct": 0.0, "random_pct": 100.0,
      "threads_per_disk": 1, "working_set_pct": 100.0},
     "VMware vSAN Performance Diagnostics blog (HCIBench example)"),
    ("HCIBench 4 KB 70/30 random, 2 threads per disk",
     {"block_kib": 4.0, "read_pct": 70.0, "random_pct": 100.0,
      "threads_per_disk": 2},
     "Vdbench (HCIBench's engine): xfersize=4k, rdpct=70, seekpct=100, "
     "threads=2"),
    ("HCIBench 256 KB sequential write",
     {"block_kib": 256.0, "read_pct": 0.0, "random_pct": 0.0,
      "threads_per_disk": 2},
     "Vdbench (HCIBench's engine): xfersize=256k, rdpct=0, seekpct=0, "
     "threads=2"),
    ("fio 4 KB random read, iodepth 32",
     {"block_kib": 4.0, "read_pct": 100.0, "random_pct": 100.0,
      "threads_per_disk": 32},
     "fio --rw=randread --bs=4k --iodepth=32"),
    ("fio 1 MiB sequential read, iodepth 8",
     {"block_kib": 1024.0, "read_pct": 100.0, "random_pct": 0.0,
      "threads_per_disk": 8},
     "fio --rw=read --bs=1m --iodepth=8"),
    ("diskspd 8 KB 70/30 random (-t4 -o8)",
     {"block_kib": 8.0, "read_pct": 70.0, "random_pct": 100.0,
      "threads_per_disk": 32},
     "diskspd -b8K -r -w30 -t4 -o8"),
    ("diskspd 64 KB sequential read (-t1 -o16)",
     {"block_kib": 64.0, "read_pct": 100.0, "random_pct": 0.0,
      "threads_per_disk": 16},
     "diskspd -b64K -si -w0 -t1 -o16"),
)

#: Presets by the schema model they fill.
PRESETS = {"Nic": NIC_PRESETS, "Migration": MIGRATION_PRESETS,
           "StorageWorkload": STORAGE_PRESETS}
