"""Ctrl-C while Python waits in native code: a real child process, a real SIGINT. Iterating a
loader that cannot make progress, opening a remote file whose server does not answer (a
Loader, inspect, verify), and converting, all stop with KeyboardInterrupt promptly and cleanly (the loader can be destroyed;
a conversion leaves nothing at its output)."""
import os
import signal
import socket
import struct
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest


def child_command(script):
    """The command of a child python3 running `script` (dedented) with torch imported first.
    h5feed imports torch on first use (h5feed.Loader, h5feed.write), which takes seconds on a
    loaded machine; a SIGINT that lands inside torch's import can surface as a RuntimeError
    from it rather than KeyboardInterrupt, failing a test of h5feed's own Ctrl-C handling."""
    return [sys.executable, "-c", "import torch\n" + textwrap.dedent(script)]


def interrupt_when_ready(script, timeout=60):
    """Runs `script` in a child python3 (child_command: torch imported first); sends SIGINT a
    second after it prints 'ready' (by then it waits in native code). Returns (exit code,
    output after 'ready')."""
    child = subprocess.Popen(child_command(script),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=dict(os.environ))
    try:
        line = child.stdout.readline()
        assert line.strip() == "ready", line + child.stdout.read()
        time.sleep(1)
        child.send_signal(signal.SIGINT)
        output, _ = child.communicate(timeout=timeout)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return child.returncode, output


def test_ctrl_c_stops_a_loader_waiting_for_a_batch(small_file):
    # Every slot is held and another thread could free one, so the loader waits (for up to
    # the starvation limit of 5 s); the SIGINT must end the wait long before that.
    code, output = interrupt_when_ready(f"""
        import sys, time
        import h5feed
        loader = h5feed.Loader({str(small_file)!r}, 16, slots=2, dtype=None)
        iterator = iter(loader)
        held = [next(iterator) for _ in range(3)]  # slots + 1 buffers: all held
        started = time.monotonic()
        try:
            print("ready", flush=True)
            next(iterator)
        except KeyboardInterrupt:
            print(f"interrupted after {{time.monotonic() - started:.1f}} s", flush=True)
            del loader, iterator
            print("destroyed", flush=True)
            sys.exit(0)
        print("no interrupt: " + repr(sys.exc_info()), flush=True)
        sys.exit(1)
        """)
    assert code == 0, output
    assert "interrupted after" in output and "destroyed" in output
    waited = float(output.split("interrupted after ")[1].split(" s")[0])
    assert waited < 4.5, output  # the SIGINT (after 1 s), not the starvation limit (5 s)


class LoopbackServer:
    """A server on the loopback that never answers a request: "silent" takes each connection
    and says nothing, so every attempt waits out stall_seconds; "reset" resets each one at
    once, so every attempt fails and is retried after its backoff. A context manager; `url`
    names a file on it, `connections` counts the connections taken."""

    def __init__(self, behaviour):
        self.behaviour = behaviour
        self.listener = socket.create_server(("127.0.0.1", 0), backlog=64)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/train.h5"
        self.connections = 0
        self.held = []  # "silent": open, never read or answered
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:  # closed: the test is over
                return
            if self.behaviour == "reset":
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                      struct.pack("ii", 1, 0))
                connection.close()  # RST, not FIN: a reset connection
            else:
                self.held.append(connection)
            self.connections += 1

    def wait_for_connections(self, count, timeout=30):
        deadline = time.monotonic() + timeout
        while self.connections < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.connections >= count

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.listener.close()
        for connection in self.held:
            connection.close()


# What opens a remote file from Python, with the remote options of the test as REMOTE.
REMOTE_OPENS = {"loader": "h5feed.Loader(URL, 16, open_probe=False, remote=REMOTE)",
                "inspect": "h5feed.inspect(URL, open_probe=False, remote=REMOTE)",
                "verify": "h5feed.verify(URL, remote=REMOTE)"}


@pytest.mark.parametrize("call, behaviour, connections",
                         [("loader", "silent", 1), ("loader", "reset", 3),
                          ("inspect", "silent", 1), ("verify", "reset", 3)])
def test_ctrl_c_stops_a_remote_open_waiting_for_its_server(call, behaviour, connections):
    # Unanswered, the open would wait 4 attempts x 20 s (silent), or 40 retries, most 2 s
    # apart (reset): a minute or more. Once the open waits on the server (a request
    # unanswered, or a retry due), the SIGINT must end it within about a second.
    retries = 3 if behaviour == "silent" else 40
    with LoopbackServer(behaviour) as server:
        opening = REMOTE_OPENS[call].replace("URL", repr(server.url)).replace(
            "REMOTE", repr({"stall_seconds": 20, "retries": retries}))
        child = subprocess.Popen(child_command(f"""
            import sys
            import h5feed
            try:
                {opening}
            except KeyboardInterrupt:
                print("interrupted", flush=True)
                sys.exit(0)
            except Exception as error:
                print(f"no interrupt: {{error!r}}", flush=True)
            sys.exit(1)
            """), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            assert server.wait_for_connections(connections), child.stdout.read()
            sent = time.monotonic()
            child.send_signal(signal.SIGINT)
            line = child.stdout.readline()
            waited = time.monotonic() - sent
            output = line + child.communicate(timeout=30)[0]
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
        taken = server.connections
    assert child.returncode == 0 and line == "interrupted\n", output
    assert waited < 1.5, output  # not the server's stall (20 s) or the retries' backoff
    # Nothing more was asked of the server after the SIGINT.
    assert taken == connections or behaviour == "reset" and taken == connections + 1, taken


# A file HDF5 1.10.8 spins on while opening it (test_open_probe.py): only the probe's stall
# limit ends its open.
HANG = os.path.join(os.environ["H5FEED_SOURCE_DIR"], "tests", "fuzz", "regressions",
                    "open_file", "hdf5_hang_global_heap_object0_size0")


@pytest.mark.parametrize("call", ["h5feed.Loader(HANG, 4, open_probe_stall_seconds=60)",
                                  "h5feed.inspect(HANG, open_probe_stall_seconds=60)"])
def test_a_sigint_to_the_process_alone_stops_the_open_probe(call):
    # `kill -INT PID` (not Ctrl-C at a terminal, which the probe's process group gets too):
    # the open waited out the probe's 60 s stall limit before KeyboardInterrupt.
    code, output = interrupt_when_ready(f"""
        import glob, sys, time
        import h5feed
        HANG = {HANG!r}
        started = time.monotonic()
        print("ready", flush=True)
        try:
            {call}
        except KeyboardInterrupt:
            print(f"interrupted after {{time.monotonic() - started:.1f}} s", flush=True)
            children = [pid for name in glob.glob("/proc/self/task/*/children")
                        for pid in open(name).read().split()]
            print(f"children: {{children}}", flush=True)
            sys.exit(0)
        except Exception as error:
            print(f"no interrupt: {{error!r}}", flush=True)
        sys.exit(1)
        """)
    assert code == 0, output
    waited = float(output.split("interrupted after ")[1].split(" s")[0])
    assert waited < 4, output  # the SIGINT (after 1 s), not the stall limit (60 s)
    assert "children: []" in output, output  # the probe was killed and reaped


def test_ctrl_c_stops_a_conversion_and_leaves_no_output(tmp_path):
    images = np.random.default_rng(0).integers(0, 256, (6000, 64, 64, 3), dtype=np.uint8)
    np.save(tmp_path / "big.npy", images)
    out = tmp_path / "big.h5"
    code, output = interrupt_when_ready(f"""
        import sys
        import h5feed
        try:
            print("ready", flush=True)
            h5feed.convert_npy({str(tmp_path / "big.npy")!r}, {str(out)!r},
                               compression="zstd:19", threads=1)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(0)
        print("finished", flush=True)
        sys.exit(1)
        """, timeout=120)
    assert code == 0, output
    assert "interrupted" in output
    assert not out.exists()
    assert not [p.name for p in tmp_path.iterdir() if "partial" in p.name]
