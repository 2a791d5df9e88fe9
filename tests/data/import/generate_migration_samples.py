"""Writes the synthetic QEMU/libvirt migration samples of this folder.

A guest with a known dirty model (1 GiB hot set dirtied at 400 MiB/s at
first, 20 MiB/s cold rate; models.migration.dirty_bytes) migrates 8 GiB
at 1000 MiB/s with a 50 ms downtime limit (``query-migrate-parameters``
``downtime-limit``, set by the user); the snapshots are what
``query-migrate`` reports at each bitmap sync (qapi/migration.json,
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
HERE = Path(__file__).parent


def dirtied(window):
    return float(dirty_bytes(window, MEMORY, COLD_RATE, hot_set=HOT_SET,
                             hot_rate=HOT_RATE))


def page(value):
    return int(round(value / 4096)) * 4096


def main():
    replies = [{"return": {"downtime-limit": round(LIMIT * 1e3),
                           "max-bandwidth": 134217728,
                           "multifd-channels": 2}}]
    now_ms, sent, sync = 0, 0, 1
    to_send = MEMORY
    while True:
        window = to_send / RATE
        for part, status in ((0.0, "active"), (0.5, "active")):
            t = now_ms + round(part * window * 1e3)
            replies.append({"return": {
                "status": status, "total-time": t, "setup-time": 12,
                "expected-downtime": 300,
                "ram": {"transferred": page(sent + part * to_send),
                        "remaining": page(to_send * (1 - part)),
                        "total": MEMORY, "duplicate": 0, "normal": 0,
                        "normal-bytes": 0, "mbps": RATE * 8 / 1e6,
                        "dirty-sync-count": sync, "page-size": 4096}}})
        now_ms += round(window * 1e3)
        sent += to_send
        to_send = dirtied(round(window * 1e3) / 1e3)
        sync += 1
        if to_send <= RATE * LIMIT:
            break
    final = to_send / RATE
    replies.append({"return": {
        "status": "completed", "total-time": now_ms + round(final * 1e3),
        "setup-time": 12, "downtime": round(final * 1e3) + 50,
        "ram": {"transferred": page(sent + to_send), "remaining": 0,
                "total": MEMORY, "duplicate": 0, "normal": 0,
                "normal-bytes": 0, "mbps": RATE * 8 / 1e6,
                "dirty-sync-count": sync, "page-size": 4096}}})
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
