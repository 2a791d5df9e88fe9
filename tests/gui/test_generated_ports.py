"""VM ports added or duplicated in the editor (issue 32 item 6): their
addresses and MACs spread as a real estate's do, so IP hash is judged on
a plausible spread, not on one the generator made (10.0.0.N -> 10.1.0.N
put all 40 VMs on one uplink: 240 %, critical)."""

import ipaddress


def test_forty_duplicated_vm_ports_spread_over_the_ip_hash_team(window):
    window.show_scenario(window.scenario.with_values({
        "host.hypervisor": "vsphere",   # IP hash is a vSwitch policy
        "nics": [{"id": f"vmnic{i}", "speed_gbps": 10.0} for i in range(4)],
        "teams": [{"name": "team0", "members": [f"vmnic{i}"
                                                for i in range(4)],
                   "policy": "ip_hash", "switch_mode": "static"}],
        "workloads.transfers": [], "workloads.migrations": [],
        "workloads.flows": [{"id": "vm1", "vm": "vm1", "port_id": 10,
                             "mac": "00:50:56:80:12:34",
                             "src_ip": "10.0.0.11", "dst_ip": "10.1.3.20",
                             "tx_gbps": 1.0, "rx_gbps": 0.1}]}))
    editor = window.editor
    for _ in range(39):   # as a user does: Duplicate on the last port
        last = len(window.scenario.workloads.flows) - 1
        editor.select(f"workloads.flows[{last}]")
        editor.buttons["duplicate"].click()
    flows = window.scenario.workloads.flows
    assert len(flows) == 40
    macs = {f.mac for f in flows}
    assert len(macs) == 40
    # vCenter's VMware OUI allocation: 00:50:56:80-BF:YY:ZZ
    assert all(m.startswith("00:50:56:") and 0x80 <= int(m[9:11], 16)
               <= 0xBF for m in macs)
    # the VMs consecutive in their subnet, their peers spread over theirs
    sources = [int(ipaddress.ip_address(f.src_ip)) for f in flows[1:]]
    assert all(b - a == 1 for a, b in zip(sources, sources[1:]))
    xors = {int(f.src_ip.split(".")[3]) ^ int(f.dst_ip.split(".")[3])
            for f in flows}
    assert len(xors) > 30
    window.wait_for_results()
    base = window.results.variants[0]
    assert base.metric("teaming.ip_hash.members_used").value == 4
    # 40 x 1 Gbit/s on 4 x 10 GbE: 100 % when spread evenly; a hash of
    # evenly spread addresses comes close (10 to 12 ports an uplink), not
    # all 40 on one (400 %)
    assert base.metric("teaming.ip_hash.peak_util_pct").value <= 120
    assert not any(f.id in ("teaming.one_member",
                            "teaming.shared_hash_input")
                   for f in base.findings)


def test_added_vm_ports_get_their_own_hash_inputs(window):
    editor = window.editor
    editor.select("workloads.flows")
    for _ in range(3):
        editor.buttons["add"].click()
        editor.select("workloads.flows")
    flows = window.scenario.workloads.flows
    assert len({f.mac for f in flows}) == len({f.dst_ip for f in flows}) \
        == len(flows) == 3
