"""A finding when flows share a hash input by construction (issue 32
item 6): 10.0.0.N to 10.1.0.N gives every flow the same last-octet XOR,
so vSphere IP hash (active[(sip ^ dip) & 0xFF mod n], teaming.md section
2.4) puts all of them on one uplink."""

import pytest

from app.vm_ports import port_keys
from models.scenario import scenario_from_dict
from solvers.evaluate import evaluate


def team_of_four(flows, policy="ip_hash"):
    return scenario_from_dict({
        "schema_version": 1, "meta": {"name": "ip hash"},
        "nics": [{"id": f"vmnic{i}", "speed_gbps": 10.0} for i in range(4)],
        "teams": [{"name": "t", "members": [f"vmnic{i}" for i in range(4)],
                   "policy": policy,
                   "switch_mode": "lacp" if policy == "lacp" else "static"}],
        "workloads": {"flows": flows}})


def flow(n, **keys):
    return {"id": f"vm{n}", "vm": f"vm{n}", "port_id": n, "tx_gbps": 1.0,
            "rx_gbps": 0.1, **keys}


def shared(result):
    return [f for f in result.findings if f.id == "teaming.shared_hash_input"]


def test_same_last_octet_on_both_ends_is_named_as_the_cause():
    flows = [flow(n, mac=f"00:50:56:00:00:{n:02x}", src_ip=f"10.0.0.{n}",
                  dst_ip=f"10.1.0.{n}") for n in range(10, 50)]
    result = evaluate(team_of_four(flows)).variants[0]
    assert result.metric("teaming.ip_hash.members_used").value == 1
    (finding,) = shared(result)
    assert finding.severity == "warning"
    assert "40 different address sets give only 1 value(s)" in \
        finding.message
    assert "(0x0)" in finding.message and "10.0.0.N" in finding.message
    assert finding.evidence["metric"] == "teaming.ip_hash.members_used"


def test_generated_ports_spread_and_raise_no_such_finding():
    flows = [flow(n, **port_keys(n)) for n in range(10, 50)]
    result = evaluate(team_of_four(flows)).variants[0]
    assert result.metric("teaming.ip_hash.members_used").value == 4
    assert result.metric("teaming.src_mac.members_used").value == 4
    assert not shared(result)


def test_one_conversation_split_in_flows_is_not_flagged():
    # two ports of one VM pair share the IP hash input because they are
    # one conversation, not by construction of the addresses
    flows = [flow(n, mac=f"00:50:56:80:00:{n:02x}", src_ip="10.0.0.5",
                  dst_ip="10.1.7.9") for n in (10, 11)]
    assert not shared(evaluate(team_of_four(flows)).variants[0])


@pytest.mark.parametrize("policy", ["ip_hash", "lacp"])
def test_the_configured_and_compared_policies_are_checked(policy):
    flows = [flow(n, mac=f"00:50:56:00:00:{n:02x}", src_ip=f"10.0.0.{n}",
                  dst_ip=f"10.1.0.{n}", src_port=40000, dst_port=443)
             for n in range(10, 20)]
    result = evaluate(team_of_four(flows, policy)).variants[0]
    assert any("IP hash" in f.message for f in shared(result))
