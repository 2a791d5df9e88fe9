"""Advice an expert would sign: only what the platform can take, savings
at equal work, goals that measure what the user means."""

from models.scenario import scenario_from_dict
from solvers.advise import advise
from tests.conftest import minimal_document


def vsphere_vmotion():
    """What the RVTools import makes of a host: vMotion over its NICs."""
    return scenario_from_dict(minimal_document(
        host={"hypervisor": "vsphere"},
        nics=[{"id": "vmnic0", "speed_gbps": 10.0},
              {"id": "vmnic1", "speed_gbps": 10.0}],
        workloads={"transfers": [{"name": "vmotion",
                                  "purpose": "live_migration"}]}))


def test_vsphere_is_never_advised_a_transport_it_lacks():
    # vMotion runs over TCP between vmknics only (VMware, "vSphere vMotion
    # Networking Requirements"): SMB is Hyper-V's option
    for goal in ("max_throughput", "min_cpu"):
        result = advise(vsphere_vmotion(), goal)
        proposed = [change["new"] for r in result.recommendations
                    for path, change in r.change.items()
                    if path.endswith(".transport")]
        assert proposed == []
        # not even proposed and refused: the advice asks the matrix first
        assert not [c for c, _ in result.rejected
                    if c.startswith("advice.transport")]
