"""Writers of import sample files, shared by the tests, the benchmarks and
the committed samples in tests/data/import (``python -m
tests.app.import_samples`` rewrites those).

RVTools layout: the RVTools documentation's tab and column names (vHost,
vNIC, vSwitch, vPort, dvSwitch, dvPort, vSC_VMK, vInfo, vMetaData). esxtop layout:
the batch-mode PDH-CSV 4.0 of ``esxtop -b`` (VMware, "Using esxtop in
batch mode"): a first cell ``(PDH-CSV 4.0) (UTC)(0)``, then one quoted
column per counter, ``\\\\host\\Object(instance)\\Counter``.
"""

import csv
import json
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "import"

#: Header spellings of an RVTools 4.1 export, and the renamed ones another
#: version uses (same meaning, different words).
RVTOOLS_HEADERS = {
    "vHost": ["Host", "Datacenter", "Cluster", "# CPU", "Cores per CPU",
              "# Cores", "Speed", "# Memory", "# NICs", "ESX Version"],
    "vNIC": ["Host", "Datacenter", "Cluster", "Network Device", "Driver",
             "Speed", "Duplex", "MAC", "Switch", "Uplink port"],
    "vSwitch": ["Host", "Datacenter", "Cluster", "Switch", "# Ports",
                "Free Ports", "Policy", "Reverse Policy", "Notify Switch",
                "Rolling Order", "MTU"],
    "vPort": ["Host", "Datacenter", "Cluster", "Port Group", "Switch",
              "VLAN", "Promiscuous Mode", "Mac Changes", "Forged Transmits",
              "Traffic Shaping", "Policy", "Reverse Policy",
              "Notify Switch", "Rolling Order"],
    "dvSwitch": ["Switch", "Datacenter", "Name", "Vendor", "Version",
                 "Host members", "Max Ports", "# Ports", "LACP Name",
                 "LACP Mode", "LACP Load Balance Alg.", "Max MTU"],
    "dvPort": ["Port", "Switch", "Type", "# Ports", "VLAN", "Active Uplink",
               "Standby Uplink", "Policy", "Uplink"],
    "vSC_VMK": ["Host", "Datacenter", "Cluster", "Port Group", "Device",
                "Mac Address", "IP Address", "Subnet mask", "MTU",
                "Services"],
    "vInfo": ["VM", "Powerstate", "Template", "CPUs", "Memory", "NICs",
              "Host", "Cluster", "Folder", "In Use MiB"],
    "vMetaData": ["RVTools major version", "RVTools version",
                  "xlsx creation datetime", "Server"],
}
RENAMED = {("vHost", "# CPU"): "CPUs", ("vNIC", "Network Device"): "Device",
           ("vNIC", "Speed"): "Speed (Mbps)",
           ("vInfo", "Memory"): "Memory MiB",
           ("vPort", "Port Group"): "Portgroup",
           ("vInfo", "Powerstate"): "Power State",
           ("vInfo", "In Use MiB"): "In Use MB",
           ("dvSwitch", "LACP Load Balance Alg."):
               "LACP Load Balance Algorithm"}


def rvtools_rows(hosts=2, vms_per_host=3, version="4.1.4.0"):
    """Rows per tab for ``hosts`` hosts (esx01 ...): see the module doc of
    tests/app/test_import_rvtools.py for what each host holds."""
    rows = {tab: [] for tab in RVTOOLS_HEADERS}
    rows["vMetaData"].append([version.split(".")[0], version,
                              "2026-11-20 09:00:00", "vcenter.example"])
    for h in range(1, hosts + 1):
        host = f"esx{h:02d}.example"
        lacp = h % 2 == 1
        rows["vHost"].append([host, "DC1", "Prod", 2, 16, 32, 2600, 524288,
                              5, "VMware ESXi 8.0.2"])
        rows["vSwitch"].append([host, "DC1", "Prod", "vSwitch0", 128, 120,
                                "loadbalance_srcid", "True", "True",
                                "False", 1500])
        # esx02's port groups override vSwitch0's port ID with
        # explicit failover (two of three), as a vMotion/management
        # design often does
        override = "failover_explicit" if h % 2 == 0 else \
            "loadbalance_srcid"
        for name, vlan, policy in (("Management Network", 0, override),
                                   ("vMotion", 20, override),
                                   ("VM Network", 100,
                                    "loadbalance_srcid")):
            rows["vPort"].append([host, "DC1", "Prod", name, "vSwitch0",
                                  vlan, "False", "False", "False", "False",
                                  policy, "True", "True", "False"])
        rows["vNIC"].append([host, "DC1", "Prod", "vmnic0", "ixgben",
                             10000, "True", "00:00:00:00:00:01",
                             "vSwitch0", ""])
        rows["vNIC"].append([host, "DC1", "Prod", "vmnic1", "ixgben",
                             10000, "True", "00:00:00:00:00:02",
                             "vSwitch0", ""])
        dvs = "DSwitch-LACP" if lacp else "DSwitch-LBT"
        speed = 25000 if lacp else 100000
        for n in (2, 3):
            rows["vNIC"].append([host, "DC1", "Prod", f"vmnic{n}", "nmlx5",
                                 speed, "True", f"00:00:00:00:00:0{n + 1}",
                                 dvs, f"uplink{n - 1}"])
        rows["vNIC"].append([host, "DC1", "Prod", "vmnic4", "nmlx5", 0,
                             "False", "00:00:00:00:00:05", "", ""])
        rows["vSC_VMK"].append([host, "DC1", "Prod", "Management Network",
                                "vmk0", "00:50:56:00:00:01", "10.0.0.1",
                                "255.255.255.0", 1500, "Management"])
        rows["vSC_VMK"].append([host, "DC1", "Prod", "vMotion", "vmk1",
                                "00:50:56:00:00:02", "10.0.1.1",
                                "255.255.255.0", 9000, "vMotion"])
        for v in range(vms_per_host):
            power = "poweredOff" if v == vms_per_host - 1 and v else \
                "poweredOn"
            rows["vInfo"].append([f"vm-{h:02d}-{v:03d}", power, "False", 4,
                                  4096 * (1 + v % 4), 1, host, "Prod",
                                  "Prod/App" if v % 2 else "Prod/DB",
                                  40960 * (1 + v % 2)])
        rows["vInfo"].append([f"template-{h:02d}", "poweredOff", "True", 2,
                              2048, 1, host, "Prod", "Templates", 20480])
    members = ", ".join(f"esx{h:02d}.example" for h in range(1, hosts + 1))
    lacp_hosts = ", ".join(f"esx{h:02d}.example"
                           for h in range(1, hosts + 1, 2))
    lbt_hosts = ", ".join(f"esx{h:02d}.example"
                          for h in range(2, hosts + 1, 2))
    rows["dvSwitch"].append(["DSwitch-LACP", "DC1", "DSwitch-LACP",
                             "VMware, Inc.", "8.0.0", lacp_hosts or members,
                             2048, 64, "lag1", "Active",
                             "srcDestIpTcpUdpPort", 9000])
    rows["dvSwitch"].append(["DSwitch-LBT", "DC1", "DSwitch-LBT",
                             "VMware, Inc.", "8.0.0", lbt_hosts, 2048, 64,
                             "", "", "", 9000])
    rows["dvPort"].append(["DPG-VM", "DSwitch-LBT", "earlyBinding", 64,
                           "100", "uplink1, uplink2", "",
                           "loadbalance_loadbased", "False"])
    rows["dvPort"].append(["DPG-Web", "DSwitch-LBT", "earlyBinding", 64,
                           "101", "uplink1, uplink2", "",
                           "loadbalance_loadbased", "False"])
    rows["dvPort"].append(["DSwitch-LBT-Uplinks", "DSwitch-LBT",
                           "earlyBinding", 4, "0-4094", "", "",
                           "loadbalance_srcid", "True"])
    return rows


def write_rvtools(path, rows, *, renamed=False, drop=()):
    """Write an RVTools-like workbook; ``drop`` lists (tab, header) to
    leave out, ``renamed`` uses the other version's spellings."""
    import openpyxl

    workbook = openpyxl.Workbook(write_only=True)
    for tab, header in RVTOOLS_HEADERS.items():
        sheet = workbook.create_sheet(tab)
        keep = [i for i, h in enumerate(header) if (tab, h) not in drop]
        sheet.append([RENAMED.get((tab, header[i]), header[i])
                      if renamed else header[i] for i in keep])
        for row in rows[tab]:
            sheet.append([row[i] for i in keep])
    workbook.save(path)


def esxtop_header(host, ports, extra_columns=0):
    """The esxtop batch header: time, CPU, per port link speed and
    transmit/receive Mbit/s, then ``extra_columns`` other counters (what
    a full esxtop export carries: tens of thousands of them)."""
    header = ["(PDH-CSV 4.0) (UTC)(0)",
              f"\\\\{host}\\Physical Cpu(_Total)\\% Util Time"]
    for switch, port_id, client in ports:
        base = f"\\\\{host}\\Network Port({switch}:{port_id}:{client})"
        header += [f"{base}\\Link Speed (Mb)",
                   f"{base}\\MBits Transmitted/sec",
                   f"{base}\\MBits Received/sec"]
    header += [f"\\\\{host}\\Group Cpu({i}:vmx-vcpu-{i})\\% Used"
               for i in range(extra_columns)]
    return header


def write_esxtop(path, header, rows, *, bom=False):
    """Write a batch file; rows shorter than the header are filled with
    "0" for the other counters."""
    rows = [row + ["0"] * (len(header) - len(row)) for row in rows]
    with open(path, "w", newline="", encoding="utf-8-sig" if bom
              else "utf-8") as stream:
        writer = csv.writer(stream, quoting=csv.QUOTE_ALL)
        writer.writerow(header)
        writer.writerows(rows)


#: Ports of the esxtop sample: two uplinks on vSwitch0, two VM ports,
#: the vMotion vmknic, and a shadow port (skipped on import).
ESXTOP_PORTS = [("vSwitch0", 33554433, "vmnic0"),
                ("vSwitch0", 33554434, "vmnic1"),
                ("vSwitch0", 33554435, "shadow of vmnic0"),
                ("vSwitch0", 33554440, "1000123:web01.eth0"),
                ("vSwitch0", 33554441, "db01.eth0"),
                ("vSwitch0", 33554442, "vmk1")]


def esxtop_sample_rows(samples=24, step_s=5):
    """Rows of the esxtop sample: web01 transmits 100 + 50 * (i mod 4)
    Mbit/s and receives a tenth; db01 appears at sample 6 and sends
    400 Mbit/s; vmk1 is idle but for one 2000 Mbit/s burst at sample 10;
    sample 12 of db01 is missing and the clock skips 60 s after sample
    18 (the esxtop process was paused)."""
    rows = []
    t = 0
    for i in range(samples):
        web_tx = 100 + 50 * (i % 4)
        db_tx = "" if i < 6 else (" " if i == 12 else 400)
        vmk_tx = 2000 if i == 10 else 0
        row = [f"11/20/2026 10:{t // 60:02d}:{t % 60:02d}", 12.5 + i % 3]
        for switch, port, client in ESXTOP_PORTS:
            if client.startswith("vmnic"):
                row += [10000, 0.0, 0.0]
            elif client.startswith("shadow"):
                row += [0, 0, 0]
            elif "web01" in client:
                row += [0, web_tx, web_tx / 10]
            elif "db01" in client:
                row += [0, db_tx, "" if db_tx in ("", " ") else 40]
            else:
                row += [0, vmk_tx, 1]
        rows.append([str(c) for c in row])
        t += step_s + (60 if i == 18 else 0)
    # the two uplinks carry what the ports send (web01 and vmk1 on vmnic0,
    # db01 on vmnic1), in the decimal-comma spelling of a German locale
    for row, i in zip(rows, range(samples)):
        web_tx = 100 + 50 * (i % 4)
        row[3] = str(web_tx + (2000 if i == 10 else 0)).replace(".", ",")
        row[6] = "0" if i < 6 or i == 12 else "400,0"
    return rows


PERFMON_NICS = ["Mellanox ConnectX-4 Lx Ethernet Adapter",
                "Mellanox ConnectX-4 Lx Ethernet Adapter _2"]
PERFMON_VM = "vm-sql_Network Adapter_4E3C1A2B--0"


def perfmon_sample(samples=12, german=False):
    """A typeperf log of HV01: two 25 GbE adapters, the management
    vEthernet (skipped), and vm-sql's adapter, which appears at sample 3
    and sends 250 MB/s (2 Gbit/s) every other sample, else 125 MB/s; it
    receives a fifth of that. ``german``: ';' separators, decimal commas
    and day-first dates, as typeperf writes them on a German Windows."""
    host = "\\\\HV01"
    header = ["(PDH-CSV 4.0) (W. Europe Standard Time)(-60)"]
    for nic in PERFMON_NICS + ["vEthernet (Management)"]:
        header += [f"{host}\\Network Interface({nic})\\{c}" for c in
                   ("Bytes Sent/sec", "Bytes Received/sec",
                    "Current Bandwidth")]
    header += [f"{host}\\Hyper-V Virtual Network Adapter({PERFMON_VM})"
               f"\\{c}" for c in ("Bytes Sent/sec", "Bytes Received/sec")]
    rows = []
    for i in range(samples):
        sent = 250e6 if i % 2 else 125e6
        stamp = (f"20.11.2026 10:{i // 4:02d}:{15 * (i % 4):02d}.125"
                 if german else
                 f"11/20/2026 10:{i // 4:02d}:{15 * (i % 4):02d}.125")
        row = [stamp]
        row += [sent + 1e6, sent / 5, 25e9, 1e3, 2e3, 25e9, 5e3, 5e3, 10e9]
        row += [" ", " "] if i < 3 else [sent, sent / 5]
        cells = [c if isinstance(c, str) else f"{c:.3f}" for c in row]
        if german:
            cells = [c.replace(".", ",") if i else c
                     for i, c in enumerate(cells)]
        rows.append(cells)
    return header, rows


def write_pdh(path, header, rows, *, delimiter=",", bom=False):
    with open(path, "w", newline="", encoding="utf-8-sig" if bom
              else "utf-8") as stream:
        csv.writer(stream, delimiter=delimiter,
                   quoting=csv.QUOTE_ALL).writerows([header] + rows)


def vcenter_sample():
    """A Get-Stat export (PowerCLI, Export-Csv with its #TYPE line): web01
    real-time (20 s) transmitting 12800 KBps (0.105 Gbit/s) rising by
    1280 KBps per sample, receiving half; web01's per-vNIC instance
    "4000" (skipped: the total is used); app01 historical (300 s) at 25600
    KBps with sample 4 missing (a 600 s gap); esx01's vmnic0 total."""
    header = ["Value", "Timestamp", "MetricId", "Unit", "Description",
              "Entity", "EntityId", "IntervalSecs", "Instance", "Uid"]
    rows = []

    def stamp(seconds):
        minutes, second = divmod(seconds, 60)
        hour, minute = divmod(minutes, 60)
        return (f"11/20/2026 {10 + hour - 12 if 10 + hour > 12 else 10 + hour}"
                f":{minute:02d}:{second:02d} "
                f"{'PM' if 10 + hour >= 12 else 'AM'}")

    for i in range(15):
        for metric, value in (("net.transmitted.average", 12800 + 1280 * i),
                              ("net.received.average", 6400 + 640 * i)):
            rows.append([value, stamp(20 * i), metric, "KBps", "",
                         "web01", "VirtualMachine-vm-101", 20, "", ""])
            rows.append([value, stamp(20 * i), metric, "KBps", "",
                         "web01", "VirtualMachine-vm-101", 20, "4000", ""])
    for i in range(8):
        if i == 4:
            continue
        for metric, value in (("net.transmitted.average", 25600),
                              ("net.received.average", 2560)):
            rows.append([value, stamp(300 * i), metric, "KBps", "",
                         "app01", "VirtualMachine-vm-102", 300, "", ""])
    for i in range(15):
        for metric, value in (("net.transmitted.average", 40000),
                              ("net.received.average", 9000)):
            rows.append([value, stamp(20 * i), metric, "KBps", "",
                         "esx01.example", "HostSystem-host-10", 20,
                         "vmnic0", ""])
    rows.append([55.5, stamp(0), "cpu.usage.average", "%", "",
                 "esx01.example", "HostSystem-host-10", 20, "", ""])
    return header, rows


def sar_sample(samples=10):
    """sadf -j -- -n DEV output of kvm01 (60 s interval): eno1 and eno2 at
    25 Gbit/s (ifutil-percent consistent with that), bond0 and virbr0
    (skipped), lo, and the tap vnet0 of a VM that sends (tap receives)
    1 Gbit/s = 122070.3125 kB/s, then 2 Gbit/s in the second half; the
    sample at 10:05 is missing."""
    stats = []
    for i in range(samples):
        if i == 5:
            continue
        vm_kb = 1e9 / 8 / 1024 * (1 if i < samples // 2 else 2)
        eno1_tx = vm_kb + 100.0
        devices = [
            {"iface": "lo", "rxpck": 1.0, "txpck": 1.0, "rxkB": 0.5,
             "txkB": 0.5, "rxcmp": 0.0, "txcmp": 0.0, "rxmcst": 0.0,
             "ifutil-percent": 0.0},
            {"iface": "eno1", "rxpck": 10.0, "txpck": 10.0, "rxkB": 50.0,
             "txkB": eno1_tx, "rxcmp": 0.0, "txcmp": 0.0, "rxmcst": 0.0,
             "ifutil-percent": round(eno1_tx * 1024 * 8 / 25e9 * 100, 2)},
            {"iface": "eno2", "rxpck": 10.0, "txpck": 10.0, "rxkB": 30.0,
             "txkB": 3052.0, "rxcmp": 0.0, "txcmp": 0.0, "rxmcst": 0.0,
             "ifutil-percent": round(3052.0 * 1024 * 8 / 25e9 * 100, 2)},
            {"iface": "bond0", "rxpck": 20.0, "txpck": 20.0, "rxkB": 80.0,
             "txkB": eno1_tx + 3052.0, "rxcmp": 0.0, "txcmp": 0.0,
             "rxmcst": 0.0, "ifutil-percent": 0.0},
            {"iface": "vnet0", "rxpck": 10.0, "txpck": 10.0,
             "rxkB": vm_kb, "txkB": vm_kb / 10, "rxcmp": 0.0,
             "txcmp": 0.0, "rxmcst": 0.0, "ifutil-percent": 0.0}]
        stats.append({"timestamp": {"date": "2026-11-20",
                                    "time": f"10:{i:02d}:00", "utc": 1,
                                    "interval": 60},
                      "network": {"net-dev": devices}})
    return {"sysstat": {"hosts": [{
        "nodename": "kvm01", "sysname": "Linux", "release": "6.8.0",
        "machine": "x86_64", "number-of-cpus": 32,
        "file-date": "2026-11-20", "file-utc-time": "10:00:00",
        "timezone": "UTC", "statistics": stats,
        "restarts": []}]}}


def main():
    SAMPLES.mkdir(parents=True, exist_ok=True)
    write_esxtop(SAMPLES / "esxtop_batch.csv",
                 esxtop_header("esx01.example", ESXTOP_PORTS, 20),
                 esxtop_sample_rows(), bom=True)
    write_pdh(SAMPLES / "typeperf.csv", *perfmon_sample())
    (SAMPLES / "sadf_net_dev.json").write_text(
        json.dumps(sar_sample(), indent=1) + "\n")
    header, rows = vcenter_sample()
    with open(SAMPLES / "vcenter_get_stat.csv", "w", newline="",
              encoding="utf-8") as stream:
        stream.write("#TYPE VMware.VimAutomation.ViCore.Impl.V1.Stat."
                     "FloatSampleImpl\n")
        csv.writer(stream, quoting=csv.QUOTE_ALL).writerows([header] + rows)
    write_pdh(SAMPLES / "typeperf_german.csv", *perfmon_sample(german=True),
              delimiter=";", bom=True)
    write_rvtools(SAMPLES / "rvtools_4_1.xlsx", rvtools_rows())
    write_rvtools(SAMPLES / "rvtools_4_4_renamed_headers.xlsx",
                  rvtools_rows(version="4.4.2.0"), renamed=True)


if __name__ == "__main__":
    main()
