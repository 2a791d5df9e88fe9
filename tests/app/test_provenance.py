"""The bundled validation set backs the metrics the app shows."""

import pytest

from app.validation_io import provenance_index


@pytest.mark.parametrize("metric, case", [
    ("wire.goodput_gbps", "V1"),                    # fasterdata MTU 9000
    ("transfer.gen.packets_per_s", "OSTINATO-40G-1518"),
    ("host.throughput_gbps", "ESNET-UDP-40G"),
])
def test_the_bundled_set_backs_its_metrics(metric, case):
    assert case in {b.case for b in provenance_index()(metric).direct}
