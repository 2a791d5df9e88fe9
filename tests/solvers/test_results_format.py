"""Numbers for people (issue 37 item 4): the one number and change format
the GUI, the PDF and the CLI share."""

import pytest

from solvers.results import format_change, format_number


@pytest.mark.parametrize("value, shown", [
    (0.0, "0"), (2.220446049250313e-14, "0"), (-1.8e-15, "0"),
    (1.5e-7, "0.0000001500"), (4063719.4, "4,063,719"), (94.148, "94.15"),
    (0.5, "0.5000")])
def test_numbers_keep_four_significant_digits_and_noise_is_zero(value,
                                                                shown):
    assert format_number(value) == shown


def test_a_percentage_changes_by_points_not_by_itself():
    # 0.6 % -> 9.9 % read as "+1465.3 %" before (issue 37)
    assert format_change(0.6, 9.9, "%") == "+9.300 pp"
    assert format_change(0.6, 9.9, "%", digits=1) == "+9.3 pp"
    assert format_change(40.0, 0.0, "%", digits=1) == "\u221240.0 pp"


def test_other_quantities_change_by_per_cent_of_the_base():
    assert format_change(10.0, 12.5, "Gbit/s", digits=1) == "+25.0 %"
    assert format_change(3.0, 0.0, "s") == "\u2212100.0 %"
    # from zero there is no per cent: the absolute change
    assert format_change(0.0, 2.0, "Gbit/s") == "+2.000"


def test_noise_is_no_change():
    assert format_change(0.0, 2.2e-14, "%") == ""
    assert format_change(1.0, 1.0 + 1e-12, "s") == ""
