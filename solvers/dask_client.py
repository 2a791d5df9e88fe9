"""A client of a Dask scheduler that fails in bounded time with the
address and the reason: a malformed address at once; a peer that is not a
Dask scheduler (says nothing, an HTTP server, a frame header of exabytes)
within :data:`SCHEDULER_TIMEOUT_S`; a scheduler or worker that cannot
import Linkplan, or runs another version of it, with what is missing.

Dask is imported only when a client is asked for (the local engine never
imports it).
"""

import builtins
import socket
import struct
import time
import types

#: Seconds the whole connection may take: reaching the scheduler, its
#: handshake, a worker to be there, and Linkplan checked on each.
SCHEDULER_TIMEOUT_S = 10

#: Largest handshake frame accepted from the peer [B]. A Dask scheduler's
#: handshake (compression, Python version, pickle protocol) is about 100
#: bytes; Dask itself would allocate whatever the 8-byte length asks for
#: (an HTTP reply's "HTTP/1.1" reads as 3 EiB).
MAX_HANDSHAKE_BYTES = 64 * 1024

#: Dask's frame length prefix (``distributed.comm.tcp``: native uint64).
_LENGTH = struct.Struct("Q")


class EngineUnavailable(RuntimeError):
    """The engine a sweep was asked to run on cannot be used (a Dask
    scheduler that does not answer, is not one, or cannot run Linkplan);
    the message names the address and the reason."""


def connect(scheduler, timeout=SCHEDULER_TIMEOUT_S):
    """A ``distributed.Client`` of the scheduler at ``scheduler``
    (``tcp://HOST:PORT``, ``tls://HOST:PORT`` or ``HOST:PORT``), with at
    least one worker, where scheduler and workers import this Linkplan.

    Raises
    ------
    EngineUnavailable
        Within ``timeout`` seconds (at once for a malformed address).
    """
    # imported before the clock starts: a second or more on a busy
    # machine, none of it the scheduler's
    from distributed import Client

    def failed(why):
        return EngineUnavailable(f"the Dask scheduler at {scheduler!r} "
                                 f"{why}")

    address, scheme, host, port = _parse(scheduler)
    security = _security(scheme, failed)
    deadline = time.monotonic() + timeout
    _probe(scheme, host, port, security, deadline, timeout, failed)
    try:
        client = Client(address, timeout=max(_left(deadline), 1.0),
                        set_as_default=False, security=security)
    except (OSError, TimeoutError, ValueError, TypeError) as err:
        raise failed(f"cannot be used: {err}") from None
    try:
        _check_cluster(client, deadline, timeout, failed)
    except BaseException:
        client.close()
        raise
    return client


def _left(deadline):
    return max(deadline - time.monotonic(), 0.0)


def _parse(scheduler):
    """``(address, scheme, host, port)``; a malformed address at once."""
    from distributed.comm.addressing import parse_address, parse_host_port

    def malformed(why):
        return EngineUnavailable(
            f"--scheduler {scheduler!r} is not a Dask scheduler's address "
            f"({why}; expected tcp://HOST:PORT or tls://HOST:PORT)")
    try:
        scheme, location = parse_address(str(scheduler), strict=False)
        host, port = parse_host_port(location)
    except (ValueError, TypeError) as err:
        raise malformed(err) from None
    if scheme not in ("tcp", "tls"):
        raise malformed(f"scheme {scheme!r}")
    if not host or not 0 < int(port) < 65536:
        raise malformed("no host, or a port outside 1-65535")
    return f"{scheme}://{location}", scheme, host, int(port)


def _security(scheme, failed):
    """The client's TLS settings from Dask's configuration (None for
    tcp://)."""
    if scheme != "tls":
        return None
    from distributed.security import Security

    security = Security()   # distributed.comm.tls.* of the Dask config
    if security.get_connection_args("client").get("ssl_context") is None:
        raise failed("needs TLS, and no client certificate is configured "
                     "(distributed.comm.tls.ca-file, .client.cert and "
                     ".client.key, e.g. DASK_DISTRIBUTED__COMM__TLS__"
                     "CA_FILE)")
    return security


def _probe(scheme, host, port, security, deadline, timeout, failed):
    """Check that the peer speaks first with a Dask handshake of sane
    size, on a plain socket with a deadline, before Dask (whose reads
    neither time out nor bound the frame) talks to it."""
    try:
        peer = socket.create_connection((host, port),
                                        timeout=max(_left(deadline), 0.1))
    except socket.timeout:
        raise failed(f"does not accept a connection within {timeout} s")\
            from None
    except OSError as err:
        raise failed(f"cannot be reached: {err.strerror or err}") from None
    try:
        if security is not None:
            context = security.get_connection_args("client")["ssl_context"]
            peer = context.wrap_socket(
                peer, server_hostname=host if context.check_hostname
                else None)
        header = _receive(peer, _LENGTH.size, deadline)
        (size,) = _LENGTH.unpack(header)
        if size > MAX_HANDSHAKE_BYTES:
            raise failed(f"answered with a frame of {size:,} bytes, not a "
                         f"Dask handshake (at most {MAX_HANDSHAKE_BYTES:,}"
                         "): is it a Dask scheduler's port?")
        if b"pickle-protocol" not in _receive(peer, size, deadline):
            raise failed("answered, but not with a Dask handshake: is it "
                         "a Dask scheduler's port?")
    except socket.timeout:
        raise failed(f"said nothing within {timeout} s, and a Dask "
                     "scheduler greets first: is it a Dask scheduler's "
                     "port (an HTTP server waits for a request), and "
                     "does it want tls://?") from None
    except OSError as err:
        raise failed(f"closed the connection ({err.strerror or err}): is "
                     "it a Dask scheduler's port?") from None
    finally:
        peer.close()


def _receive(peer, size, deadline):
    """Exactly ``size`` bytes before the deadline (socket.timeout
    otherwise; OSError when the peer closes first)."""
    data = bytearray()
    while len(data) < size:
        left = _left(deadline)
        if left <= 0:
            raise socket.timeout
        peer.settimeout(left)
        part = peer.recv(min(size - len(data), 65536))
        if not part:
            raise ConnectionResetError("closed by the peer")
        data += part
    return bytes(data)


def _linkplan_here():
    """What a scheduler or worker can do: Linkplan's version, or why it
    cannot import what the tasks need. Sent by value (it is nested in no
    Linkplan module once cloudpickled), so it runs where Linkplan is
    missing."""
    try:
        # the tasks' functions (by name: this module is what sweep imports)
        return True, __import__("solvers.sweep").__version__
    except Exception as err:   # noqa: BLE001 - whatever stops the import
        return False, f"{type(err).__name__}: {err}"


def _check_cluster(client, deadline, timeout, failed):
    from solvers import __version__

    check = _by_value(_linkplan_here)
    try:
        client.wait_for_workers(1, timeout=max(_left(deadline), 0.5))
    except (TimeoutError, OSError) as err:
        raise failed(f"has no worker after {timeout} s ({err}): start "
                     "`dask worker ADDRESS` with Linkplan on its "
                     "PYTHONPATH") from None
    try:
        places = {"the scheduler": client.run_on_scheduler(
            check, callback_timeout=max(_left(deadline), 0.5))}
        places.update(client.run(
            check, callback_timeout=max(_left(deadline), 0.5)))
    except (TimeoutError, OSError) as err:
        raise failed(f"did not run Linkplan's check within {timeout} s "
                     f"({err})") from None
    except Exception as err:   # noqa: BLE001 - e.g. a scheduler that
        # refuses to run functions (distributed.scheduler.pickle off)
        raise failed(f"refused Linkplan's check ({type(err).__name__}: "
                     f"{err})") from None
    for place, (importable, what) in places.items():
        where = place if place == "the scheduler" else f"its worker {place}"
        if not importable:
            raise failed(f"cannot run Linkplan: {where} cannot import it "
                         f"({what}). Scheduler and workers need Linkplan "
                         f"{__version__} on their PYTHONPATH.")
        if what != __version__:
            raise failed(f"runs Linkplan {what} on {where}, this is "
                         f"{__version__}: use the same version everywhere.")


def _by_value(function):
    """A copy of ``function`` that cloudpickle sends with its code (as it
    does a script's ``__main__`` functions), not as a reference to its
    module, which the far side may be unable to import. ``function``
    uses no globals but builtins."""
    copy = types.FunctionType(function.__code__,
                              {"__builtins__": builtins}, function.__name__)
    copy.__module__ = "__main__"
    return copy
