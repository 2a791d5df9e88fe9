"""models/qemu_ram.py: where QEMU tests pages for zeros, what each page
costs the thread that walks it, and a multifd channel's copy cap
(issue 33)."""

import pytest

from models import qemu_ram


@pytest.mark.parametrize("setting, version, multifd, where", [
    ("auto", "9.2", True, "multifd"), ("auto", "8.2", True, "legacy"),
    ("auto", "9.2", False, "legacy"), ("multifd", "9.0", False, "legacy"),
    ("none", "9.2", True, "none"), ("legacy", "9.2", True, "legacy")])
def test_zero_page_detection_runs_where_qemu_runs_it(setting, version,
                                                     multifd, where):
    # ram.c: ram_save_target_page_legacy always calls save_zero_page;
    # multifd tests in its channels from 9.0 by default (commit 70c25c92)
    assert qemu_ram.zero_page_detection(setting, version, multifd) == where


def test_zero_pages_cost_the_thread_that_tests_them():
    page_s, legacy = qemu_ram.page_times(4.0, "legacy", 8)
    _, channels = qemu_ram.page_times(4.0, "multifd", 8)
    _, none = qemu_ram.page_times(4.0, "none", 8)
    assert page_s == pytest.approx(qemu_ram.MAIN_THREAD_PAGE_CYCLES / 4e9)
    assert legacy == pytest.approx(page_s + qemu_ram.ZERO_CHECK_CYCLES
                                   / 4e9)
    # eight channels share the tests: the migration thread's walk binds
    assert channels == pytest.approx(page_s)
    assert none == 0.0


def test_a_multifd_channel_is_bound_by_its_copy_alone():
    # the channel thread copies (c_byte); the frames are the queue core's
    assert qemu_ram.multifd_channel_cap(4.0, 0.558) == pytest.approx(
        8 * 4.0 / 0.558)

