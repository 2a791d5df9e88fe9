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


def test_cli_names_the_cases_behind_a_metric(capsys):
    from app.cli import main
    assert main(["accuracy", "--backing", "wire.goodput_gbps"]) == 0
    out = capsys.readouterr().out
    # V1/V2: fasterdata MTU issues, 10 GbE at MTU 9000 and 1500
    assert out.splitlines() == [
        "wire.goodput_gbps",
        "Backed by V1 (+-1 %), V2 (+0 % .. +2.5 %): held"]


def test_cli_refuses_what_is_not_a_metric_id(capsys):
    from app.cli import main
    assert main(["accuracy", "--backing", "goodput"]) == 2
    assert "--backing: not a metric id: 'goodput'" in \
        capsys.readouterr().err
