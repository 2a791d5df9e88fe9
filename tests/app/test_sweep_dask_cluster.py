"""`linkplan sweep --engine dask` against real, separately started
`dask scheduler` and `dask worker` processes (issue 36 item 4), and
against peers that are not a usable scheduler (issue 38 item 6): a silent
peer, an HTTP server, a huge frame header, a malformed address and a
scheduler that cannot import Linkplan each fail with exit 2, the address
and the reason, within the connection's time bound and without a
traceback. Everything listens on 127.0.0.1 only; every wait is bounded."""

import http.server
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.app.test_cli import assert_clean_failure, run
from tests.conftest import EXAMPLES, ROOT

DASK = Path(sys.executable).parent / "dask"
#: The README's promise: a scheduler that cannot be used is reported
#: within this many seconds [s].
SCHEDULER_TIMEOUT_S = 10
EXAMPLE = str(EXAMPLES / "jumbo_10gbe.toml")

#: Longest a refused sweep may take, start-up of the CLI included: the
#: connection's bound plus the interpreter's start on a loaded machine.
REFUSED_WITHIN_S = SCHEDULER_TIMEOUT_S + 15


#: A ``sitecustomize`` for a process that stands for a machine without
#: Linkplan: `make` installs this checkout in editable mode, which puts
#: Linkplan on every interpreter of the virtualenv; site runs this after
#: the editable install's finder, and it takes the finder back out.
WITHOUT_LINKPLAN = """import sys
sys.meta_path[:] = [finder for finder in sys.meta_path
                    if not getattr(finder, "__module__", "")
                    .startswith("__editable__")]
"""


def _start(args, folder, pythonpath):
    """A `dask` CLI process in ``folder`` (its working directory, which
    Python does not put on the path of an entry point), logging there;
    without ``pythonpath`` it cannot import Linkplan."""
    env = {key: value for key, value in os.environ.items()
           if key != "PYTHONPATH"}
    if pythonpath is None:
        bare = folder / "without-linkplan"
        bare.mkdir(exist_ok=True)
        (bare / "sitecustomize.py").write_text(WITHOUT_LINKPLAN)
        pythonpath = bare
    env["PYTHONPATH"] = str(pythonpath)
    log = open(folder / f"{args[0]}.log", "wb")
    process = subprocess.Popen([str(DASK), *args], cwd=folder, env=env,
                               stdout=log, stderr=subprocess.STDOUT)
    log.close()
    return process


def _stop(processes):
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


def _cluster(folder, scheduler_path, worker_path, tls=()):
    """(address, processes): a scheduler and one worker on 127.0.0.1,
    each with its own PYTHONPATH, the worker registered; ``tls``: the
    `dask` CLI's --tls-* options (then --protocol tls)."""
    folder.mkdir(exist_ok=True)
    address_file = folder / "scheduler.json"
    protocol = ["--protocol", "tls", *tls] if tls else []
    processes = [_start(["scheduler", "--host", "127.0.0.1", "--port", "0",
                         "--no-dashboard", "--scheduler-file",
                         str(address_file), *protocol], folder,
                        scheduler_path)]
    try:
        deadline = time.monotonic() + 90
        while not address_file.exists():
            assert processes[0].poll() is None, \
                (folder / "scheduler.log").read_text()
            assert time.monotonic() < deadline, "no scheduler after 90 s"
            time.sleep(0.2)
        time.sleep(0.2)   # written whole
        address = json.loads(address_file.read_text())["address"]
        processes.append(_start(["worker", address, "--nthreads", "1",
                                 "--host", "127.0.0.1", "--no-dashboard",
                                 *tls], folder, worker_path))
        from distributed import Client
        from distributed.security import Security
        security = Security(tls_ca_file=tls[1], tls_client_cert=tls[3],
                            tls_client_key=tls[5]) if tls else None
        with Client(address, timeout=30, set_as_default=False,
                    security=security) as client:
            client.wait_for_workers(1, timeout=90)
    except BaseException:
        _stop(processes)
        raise
    return address, processes


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """Scheduler and worker with Linkplan importable, as the README says."""
    address, processes = _cluster(
        tmp_path_factory.mktemp("dask") / "good", ROOT, ROOT)
    yield address
    _stop(processes)


@pytest.fixture(scope="module")
def scheduler_without_linkplan(tmp_path_factory):
    """A scheduler started with a PYTHONPATH that lacks the repository
    (its workers have it): the README's old advice."""
    address, processes = _cluster(
        tmp_path_factory.mktemp("dask") / "mismatched", None, ROOT)
    yield address
    _stop(processes)


def test_sweep_on_separate_scheduler_and_worker_processes(tmp_path,
                                                          cluster):
    local, remote = tmp_path / "local.csv", tmp_path / "dask.csv"
    assert run("sweep", EXAMPLE, "--format", "csv", "-o",
               str(local)).returncode == 0
    process = run("sweep", EXAMPLE, "--format", "csv", "-o", str(remote),
                  "--engine", "dask", "--scheduler", cluster, timeout=120)
    assert process.returncode == 0, process.stderr
    assert remote.read_bytes() == local.read_bytes()
    assert "Traceback" not in process.stderr


def _certificates(folder):
    """A CA and one certificate it signed for 127.0.0.1 (openssl), as the
    README's TLS set-up has: (ca, certificate, key) paths."""
    folder.mkdir()

    def openssl(*args):
        subprocess.run(["openssl", *args], cwd=folder, check=True,
                       capture_output=True, timeout=60)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-keyout", "ca-key.pem", "-out", "ca.pem", "-subj",
            "/CN=Linkplan test CA")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout",
            "node-key.pem", "-out", "node.csr", "-subj", "/CN=127.0.0.1")
    (folder / "san.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "node.csr", "-CA", "ca.pem", "-CAkey",
            "ca-key.pem", "-CAcreateserial", "-out", "node.pem", "-days",
            "2", "-extfile", "san.cnf")
    return [folder / name for name in ("ca.pem", "node.pem",
                                       "node-key.pem")]


@pytest.mark.skipif(shutil.which("openssl") is None,
                    reason="makes its certificates with the openssl CLI")
def test_sweep_on_a_tls_cluster_as_the_readme_says(tmp_path):
    ca, cert, key = _certificates(tmp_path / "pki")
    tls = ["--tls-ca-file", str(ca), "--tls-cert", str(cert),
           "--tls-key", str(key)]
    address, processes = _cluster(tmp_path / "tls", ROOT, ROOT, tls)
    try:
        assert address.startswith("tls://")
        local, remote = tmp_path / "local.csv", tmp_path / "dask.csv"
        assert run("sweep", EXAMPLE, "--format", "csv", "-o",
                   str(local)).returncode == 0
        # without this side's certificate: refused, with how to give it
        assert_clean_failure(
            run("sweep", EXAMPLE, "-o", str(remote), "--engine", "dask",
                "--scheduler", address, timeout=120),
            address, "no client certificate is configured")
        client_tls = dict(os.environ,
                          DASK_DISTRIBUTED__COMM__TLS__CA_FILE=str(ca),
                          DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT=str(cert),
                          DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY=str(key))
        process = run("sweep", EXAMPLE, "--format", "csv", "-o",
                      str(remote), "--engine", "dask", "--scheduler",
                      address, timeout=120, env=client_tls)
        assert process.returncode == 0, process.stderr
        assert remote.read_bytes() == local.read_bytes()
        # the TLS port asked in plain TCP: it waits for a TLS hello
        _refused_in_time(tmp_path, address.replace("tls://", "tcp://"),
                         "does it want tls://?")
    finally:
        _stop(processes)


def test_a_scheduler_without_linkplan_is_named_with_what_is_missing(
        tmp_path, scheduler_without_linkplan):
    out = tmp_path / "out.csv"
    process = run("sweep", EXAMPLE, "-o", str(out), "--engine", "dask",
                  "--scheduler", scheduler_without_linkplan, timeout=120)
    assert_clean_failure(process, scheduler_without_linkplan,
                         "the scheduler cannot import it",
                         "No module named 'solvers'", "PYTHONPATH")
    assert "internal error" not in process.stderr
    assert not out.exists()


def test_a_worker_without_linkplan_is_named_too(tmp_path):
    address, processes = _cluster(tmp_path / "worker-mismatched", ROOT,
                                  None)
    try:
        process = run("sweep", EXAMPLE, "-o", str(tmp_path / "out.csv"),
                      "--engine", "dask", "--scheduler", address,
                      timeout=120)
    finally:
        _stop(processes)
    assert_clean_failure(process, address, "its worker tcp://127.0.0.1:",
                         "No module named 'solvers'")


# -- peers that are not a Dask scheduler -------------------------------------

class _Peer:
    """A TCP server on 127.0.0.1 that answers each connection with
    ``reply(connection)`` in a thread; ``address`` its tcp:// address."""

    def __init__(self, reply):
        self._server = socket.create_server(("127.0.0.1", 0))
        self._connections = []
        self._reply = reply
        self.address = f"tcp://127.0.0.1:{self._server.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                connection, _ = self._server.accept()
            except OSError:   # closed
                return
            self._connections.append(connection)
            self._reply(connection)

    def close(self):
        self._server.close()
        for connection in self._connections:
            connection.close()


def _silent(connection):
    pass   # accepts, and says nothing


def _huge_frame(connection):
    # a frame length of 4 EiB where Dask expects its handshake
    connection.sendall(struct.pack("Q", 2 ** 62))


@pytest.fixture
def http_server():
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"tcp://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _refused_in_time(tmp_path, address, *fragments):
    out = tmp_path / "out.csv"
    started = time.monotonic()
    process = run("sweep", EXAMPLE, "-o", str(out), "--engine", "dask",
                  "--scheduler", address, timeout=REFUSED_WITHIN_S + 30)
    elapsed = time.monotonic() - started
    assert_clean_failure(process, address, *fragments)
    assert "Exception ignored" not in process.stderr   # Client.__del__
    assert elapsed < REFUSED_WITHIN_S, elapsed
    assert not out.exists()
    return elapsed


@pytest.mark.parametrize("reply, fragment", [
    (_silent, f"said nothing within {SCHEDULER_TIMEOUT_S} s"),
    (_huge_frame, "answered with a frame of 4,611,686,018,427,387,904 "
                  "bytes")], ids=["silent", "huge-frame"])
def test_a_peer_that_is_no_scheduler_fails_in_time(tmp_path, reply,
                                                   fragment):
    peer = _Peer(reply)
    try:
        _refused_in_time(tmp_path, peer.address, fragment)
    finally:
        peer.close()


def test_an_http_server_is_no_scheduler(tmp_path, http_server):
    _refused_in_time(tmp_path, http_server, "is it a Dask scheduler")


@pytest.mark.parametrize("address", [
    "tcp://", "127.0.0.1", "tcp://127.0.0.1:abc", "tcp://[::1",
    "foo://127.0.0.1:1", "tcp://127.0.0.1:99999"])
def test_a_malformed_address_fails_at_once(tmp_path, address):
    # the CLI's start-up (~3 s here) and nothing more: no connection tried
    elapsed = _refused_in_time(tmp_path, address, "is not a Dask "
                               "scheduler's address")
    assert elapsed < SCHEDULER_TIMEOUT_S, elapsed
