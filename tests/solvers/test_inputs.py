"""solvers/inputs: the package keeps its public names, each module stays
small, and each quantity the families share is derived once (the wire,
transfer and storage columns agree on the network's framing)."""

from pathlib import Path

import numpy as np

import solvers.inputs as inputs
from app.scenario_io import load_scenario
from models import wire
from models.scenario import scenario_from_dict
from tests.conftest import EXAMPLES, minimal_document


def _documents(name):
    return [("Base", load_scenario(EXAMPLES / name))]


def test_every_public_name_is_importable():
    for name in inputs.__all__:
        assert hasattr(inputs, name), name


def test_each_module_is_small():
    package = Path(inputs.__file__).parent
    for module in package.glob("*.py"):
        assert len(module.read_text().splitlines()) < 700, module.name


def test_families_share_the_network_columns():
    # a transfer and a storage workload over one VXLAN network with a
    # raised MTU ceiling
    built = inputs.Inputs([("Base", scenario_from_dict(minimal_document(
        network={"mtu": 1600, "mtu_max": 9600, "encapsulation": "vxlan"},
        workloads={"transfers": [{"name": "t", "transport": "tcp"}],
                   "storage": [{"name": "s", "protocol": "iscsi",
                                "backend": {"iops_max": 5e4}}]})))])
    network = built.documents[0].network
    encap = inputs.encapsulation_bytes(network)
    assert built.wire.encap.tolist() == [encap]
    for columns in (built.transfers.columns, built.storage.columns):
        assert set(columns["encap"].tolist()) == {encap}
        assert set(columns["mtu"].tolist()) == {network.mtu}
        assert inputs.mtu_limits(columns) == built.wire.limits
    assert built.transfers.mtu_limits == built.wire.limits
    assert encap == 50   # VXLAN over IPv4 (RFC 7348)
    assert built.wire.limits == wire.limits_covering(network.mtu_min,
                                                     network.mtu_max) \
        == (network.mtu_min, 9600)


def test_link_rate_sums_every_nic():
    built = inputs.Inputs(_documents("jumbo_10gbe.toml"))
    doc = built.documents[0]
    assert built.wire.link_gbps.tolist() == [
        sum(n.speed_gbps for n in doc.nics)]


def test_speed_helpers_broadcast_over_column_values():
    # a column sweep hands NIC speeds as arrays
    class Nic:
        def __init__(self, speed_gbps):
            self.speed_gbps = speed_gbps

    nics = [Nic(np.array([10.0, 25.0])), Nic(np.array([25.0, 10.0]))]
    from solvers.inputs.common import (fastest_speed, slowest_speed,
                                       total_speed)
    assert slowest_speed(nics).tolist() == [10.0, 10.0]
    assert fastest_speed(nics).tolist() == [25.0, 25.0]
    assert total_speed(nics).tolist() == [35.0, 35.0]
