"""Writes the synthetic QEMU/libvirt migration samples of this folder.

A guest with a known dirty model (1 GiB hot set dirtied at 400 MiB/s at
first, 20 MiB/s cold rate; models.migration.dirty_bytes) migrates 8 GiB
at 1000 MiB/s with a 50 ms downtime limit (``query-migrate-parameters``
``downtime-limit``, set by the user; ``max-bandwidth`` raised to the link)
following QEMU's loop (bitmap re-synced whenever less than bandwidth x
downtime-limit is left unsent); the snapshots are what ``query-migrate``
reports just before and at each bitmap sync (qapi/migration.json,
MigrationInfo/MigrationStats) and half-way through each round. The
``query-dirty-rate`` replies sample the same model over calc-time windows
(DirtyRateInfo). The same migration is written as polled ``virsh
domjobinfo`` blocks and the dirty-rate samples as ``virsh domstats
--dirtyrate`` blocks (virsh(1); libvirt's domjobinfo prints QEMU's
dirty-sync-count as "Iteration"). Run from the repository root:
``.venv/bin/python tests/data/import/generate_migration_samples.py``.
"""

import json
from pathlib import Path

from models.migration import dirty_bytes

MIB, GIB = 2 ** 20, 2 ** 30
HOT_SET, HOT_RATE, COLD_RATE = 1 * GIB, 400 * MIB, 20 * MIB
MEMORY, RATE, LIMIT = 8 * GIB, 1000 * MIB, 0.05
ITERATION = 0.05  # QEMU ram_save_iterate MAX_WAIT [s]
HEADER = 1 + 8 / 4096  # wire bytes per RAM byte: QEMU's 8-byte page header
HERE = Path(__file__).parent


def dirtied(window):
    return float(dirty_bytes(window, MEMORY, COLD_RATE, hot_set=HOT_SET,
                             hot_rate=HOT_RATE))


def page(value):
    return int(round(value / 4096)) * 4096


def main():
    replies = [{"return": {"downtime-limit": round(LIMIT * 1e3),
                           "max-bandwidth": RATE,
                           "multifd-channels": 2}}]
    threshold = RATE * LIMIT
    # QEMU's loop (migration.c migration_iteration_run, ram.c
    # ram_save_iterate): sends in iterations of at most 50 ms; whenever
    # less than bandwidth x downtime-limit is left unsent it syncs the
    # dirty bitmap and switches over if still below
    now, sent, sync, last_sync = 0.0, 0.0, 1, 0.0
    remaining, half = float(MEMORY), MEMORY / 2

    def snapshot(status="active"):
        return {"return": {
            "status": status, "total-time": round(now * 1e3),
            "setup-time": 12, "expected-downtime": 300,
            "ram": {"transferred": page(sent), "remaining": page(remaining),
                    "total": MEMORY, "duplicate": 0, "normal": 0,
                    "normal-bytes": 0, "mbps": RATE * 8 / 1e6,
                    "dirty-sync-count": sync, "page-size": 4096}}}

    replies.append(snapshot())
    while True:
        if remaining * HEADER < threshold:
            replies.append(snapshot())   # a poll just before the sync
            remaining += dirtied(now - last_sync)
            sync, last_sync = sync + 1, now
            if remaining * HEADER < threshold:
                break
            replies.append(snapshot())
            half = remaining / 2
        step = min(ITERATION, remaining * HEADER / RATE)
        now, sent = now + step, sent + RATE * step
        remaining -= RATE * step / HEADER
        if half is not None and remaining <= half:
            replies.append(snapshot())   # a poll half-way through a round
            half = None
    final = remaining * HEADER / RATE
    sent += remaining * HEADER
    remaining = 0.0
    now += final
    sync += 1   # ram_save_complete's last-stage sync
    done = snapshot("completed")
    done["return"]["downtime"] = round(final * 1e3) + 50
    replies.append(done)
    (HERE / "qmp_query_migrate_rounds.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in replies))
    (HERE / "virsh_domjobinfo_polled.txt").write_text(
        "".join(_domjobinfo(r["return"]) for r in replies[1:]))
    samples = [{"status": "measured", "sample-pages": 512,
                "dirty-rate": round(dirtied(t) / t / MIB),
                "mode": "page-sampling", "start-time": 1693900454 + 100 * i,
                "calc-time": t, "calc-time-unit": "second"}
               for i, t in enumerate((1, 2, 4, 8, 15, 30, 60))]
    samples.append({"status": "measuring", "sample-pages": 512,
                    "mode": "page-sampling", "start-time": 1693901200,
                    "calc-time": 10, "calc-time-unit": "second"})
    (HERE / "qmp_query_dirty_rate.json").write_text(
        json.dumps([{"return": s} for s in samples], indent=1) + "\n")
    (HERE / "virsh_domstats_dirtyrate.txt").write_text("".join(
        f"Domain: 'guest1'\n  balloon.current={MEMORY // 1024}\n"
        f"  dirtyrate.calc_status=2\n"
        f"  dirtyrate.calc_start_time={s['start-time']}\n"
        f"  dirtyrate.calc_period={s['calc-time']}\n"
        f"  dirtyrate.megabytes_per_second={s['dirty-rate']}\n"
        f"  dirtyrate.calc_mode=page-sampling\n\n"
        for s in samples if s["status"] == "measured"))


def _domjobinfo(reply):
    ram, done = reply["ram"], reply["status"] == "completed"
    lines = [("Job type", "Completed" if done else "Unbounded"),
             ("Operation", "Outgoing migration"),
             ("Time elapsed", f"{reply['total-time']}        ms")]
    if done:
        lines.append(("Time elapsed w/o network",
                      f"{reply['total-time'] - 2}        ms"))
    lines += [("Data processed", _size(ram["transferred"])),
              ("Data remaining", _size(ram["remaining"])),
              ("Data total", _size(ram["total"])),
              ("Memory processed", _size(ram["transferred"])),
              ("Memory remaining", _size(ram["remaining"])),
              ("Memory total", _size(ram["total"])),
              ("Memory bandwidth", f"{ram['mbps'] * 1e6 / 8 / MIB:.3f} MiB/s"),
              ("Dirty rate", "0            pages/s"),
              ("Page size", "4096         bytes"),
              ("Iteration", str(ram["dirty-sync-count"])),
              ("Postcopy requests", "0"),
              ("Constant pages", str(ram["duplicate"])),
              ("Normal pages", str(ram["normal"])),
              ("Normal data", _size(ram["normal-bytes"]))]
    if done:
        lines += [("Total downtime", f"{reply['downtime']}           ms"),
                  ("Downtime w/o network",
                   f"{reply['downtime'] - 7}           ms"),
                  ("Setup time", f"{reply['setup-time']}           ms")]
    return "".join(f"{k + ':':<18}{v}\n" for k, v in lines) + "\n"


def _size(value):
    # virsh prints sizes scaled to a binary unit with three decimals
    for unit, scale in (("GiB", GIB), ("MiB", MIB), ("KiB", 1024)):
        if value >= scale:
            return f"{value / scale:.3f} {unit}"
    return f"{value:.3f} B"


if __name__ == "__main__":
    main()
