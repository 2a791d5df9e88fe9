"""Real iperf3 and fio runs for the calibration tests (Debian packages
iperf3 and fio, .ci/system-deps): an iperf3 server on 127.0.0.1 with the
client in several settings, fio on a temporary file at several queue
depths. ``python -m tests.app.benchmark_runs`` re-records the fixtures in
tests/data/import/ (runs-*).
"""

import contextlib
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "import"

#: iperf3 client settings: file stem -> arguments. Message sizes below
#: 64 KiB (-l) separate per-byte from per-traversal costs; -P, -R and
#: -M vary what the fit must predict.
IPERF3_SETTINGS = {
    "iperf3_l8k": ["-l", "8K"],
    "iperf3_l16k": ["-l", "16K"],
    "iperf3_l32k": ["-l", "32K"],
    "iperf3_l128k": ["-l", "128K"],
    "iperf3_p4_l16k": ["-P", "4", "-l", "16K"],
    "iperf3_r_l32k": ["-R", "-l", "32K"],
    "iperf3_mss1448_l32k": ["-M", "1448", "-l", "32K"],
}

#: iperf3 -A: the client on core 0, the server on core 1 (where there
#: are two), so that neither end migrates between cores mid-run.
PIN = ["-A", "0,1"] if (os.cpu_count() or 1) >= 2 else []

#: fio queue depths of the series (4 KiB random reads, direct IO).
FIO_DEPTHS = (1, 2, 4, 8, 16)


def available():
    return shutil.which("iperf3") is not None and \
        shutil.which("fio") is not None


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def iperf3_server(server_json=None):
    """An iperf3 server on 127.0.0.1 for the duration; its port. With
    ``server_json`` a one-off server (-1) writing its own -J output
    there."""
    port = _free_port()
    command = ["iperf3", "-s", "-B", "127.0.0.1", "-p", str(port)]
    if server_json:
        command += ["-1", "-J"]
    out = open(server_json, "w") if server_json else subprocess.DEVNULL
    server = subprocess.Popen(command, stdout=out,
                              stderr=subprocess.DEVNULL)
    try:
        # no probe connection: iperf3 would take it for a client whose
        # control message never comes; the client retries instead
        time.sleep(0.5)
        yield port
    finally:
        if server_json:
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.terminate()
        else:
            server.terminate()
        server.wait()
        if server_json:
            out.close()


def iperf3_client(port, arguments, target, seconds=2, attempts=5):
    """One client run writing its -J output to ``target``; a run the
    server was not ready for (refused, reset: a loaded machine starts it
    late) is made again."""
    for _ in range(attempts):
        done = subprocess.run(
            ["iperf3", "-c", "127.0.0.1", "-p", str(port), "-t",
             str(seconds), "-J", *arguments], capture_output=True,
            text=True, check=False, timeout=60)
        if '"error"' not in done.stdout:
            break
        time.sleep(0.5)
    Path(target).write_text(done.stdout)
    return target


def record_iperf3(folder, settings=IPERF3_SETTINGS, seconds=2, repeats=1,
                  pin=()):
    """Every setting's client output in ``folder`` (``STEM.json``, or
    ``STEM_rN.json`` for ``repeats`` rounds: each round runs every
    setting once, so a drift of the machine's load reaches all settings
    alike); ``pin``: iperf3 arguments added to each (:data:`PIN`); the
    paths."""
    paths = []
    with iperf3_server() as port:
        for round_ in range(1, repeats + 1):
            for stem, arguments in settings.items():
                name = stem if repeats == 1 else f"{stem}_r{round_}"
                paths.append(iperf3_client(port, [*arguments, *pin],
                                           Path(folder) / f"{name}.json",
                                           seconds))
    return paths


def fio_run(folder, depth, *, name=None, seconds=1, extra=()):
    """One fio run (4 KiB random reads, libaio, direct IO) on a 64 MiB
    file in ``folder``; its JSON output's path."""
    name = name or f"fio_qd{depth}"
    target = Path(folder) / f"{name}.json"
    with open(target, "w") as out:
        subprocess.run(
            ["fio", f"--name=qd{depth}", f"--filename={folder}/fio.dat",
             "--size=64M", "--rw=randread", "--bs=4k", "--ioengine=libaio",
             "--direct=1", f"--iodepth={depth}", f"--runtime={seconds}",
             "--time_based", "--output-format=json", *extra],
            # stdout whole: fio prints its notes there before the JSON
            stdout=out, stderr=subprocess.DEVNULL, check=False, timeout=120)
    return target


def record_fio(folder, depths=FIO_DEPTHS, seconds=1):
    return [fio_run(folder, depth, seconds=seconds) for depth in depths]


if __name__ == "__main__":
    record_iperf3(SAMPLES)
    # five pinned repeats of each setting, 3 s each (the median of each)
    (SAMPLES / "iperf3_repeats").mkdir(exist_ok=True)
    record_iperf3(SAMPLES / "iperf3_repeats", seconds=3, repeats=5, pin=PIN)
    for path in record_fio(SAMPLES):
        print(path)
    with iperf3_server(SAMPLES / "iperf3_server_side.json") as port:
        iperf3_client(port, ["-l", "32K"], "/dev/null", 1)
    with iperf3_server() as port:
        iperf3_client(port, ["-u", "-b", "1G", "-l", "8000"],
                      SAMPLES / "iperf3_udp.json", 1)
        iperf3_client(port, ["--bidir", "-l", "32K"],
                      SAMPLES / "iperf3_bidir.json", 1)
    # two clones without group_reporting: two job entries of one name
    fio_run(SAMPLES, 2, name="fio_numjobs2_qd2", extra=["--numjobs=2"])
    # a synchronous engine: fio caps iodepth 8 at 1 and says so on stdout
    fio_run(SAMPLES, 8, name="fio_psync_iodepth8", extra=[
        "--ioengine=psync", "--direct=0"])
    (SAMPLES / "fio.dat").unlink()
