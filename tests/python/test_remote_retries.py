"""A remote file that cannot be reached is retried `retries` times in all, once per attempt of
RemoteOptions' schedule, and not once more for the open probe: the probe hands back the error
it met (lib/probe/open_probe.h). A loopback server that takes each connection and closes it at
once (an empty reply, retried as a refused connection is: docs/remote.md, "Faults") counts the
attempts of h5feed.inspect, h5feed.Loader and `h5feed inspect`."""
import socket
import subprocess
import threading

import pytest

import h5feed
from conftest import H5FEED


class ClosingServer:
    """Accepts connections on the loopback and closes each at once; counts them."""

    def __init__(self):
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(64)
        self.accepted = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return  # closed
            self.accepted += 1
            connection.close()

    def url(self, name):
        return f"http://127.0.0.1:{self.socket.getsockname()[1]}/{name}"

    def close(self):
        self.socket.close()


@pytest.fixture
def server():
    serving = ClosingServer()
    yield serving
    serving.close()


RETRIES = 2  # three attempts: 0.1 s and 0.2 s apart (+-25%)


@pytest.mark.parametrize("open_probe", [True, False])
def test_inspect_of_an_unreachable_url_tries_once_per_attempt(server, open_probe):
    with pytest.raises(h5feed.IoError) as caught:
        h5feed.inspect(server.url("train.h5"), open_probe=open_probe,
                       remote={"retries": RETRIES})
    assert server.url("train.h5") in str(caught.value)
    assert server.accepted == RETRIES + 1


def test_the_loader_of_an_unreachable_url_tries_once_per_attempt(server):
    with pytest.raises(h5feed.IoError):
        h5feed.Loader(server.url("train.h5"), batch_size=4, remote={"retries": RETRIES})
    assert server.accepted == RETRIES + 1


def test_the_inspect_command_on_an_unreachable_url_tries_once_per_attempt(server):
    result = subprocess.run([H5FEED, "inspect", server.url("train.h5"), "--retries",
                             str(RETRIES)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1, result.stderr
    assert server.url("train.h5") in result.stderr
    assert server.accepted == RETRIES + 1


def test_inspect_refuses_remote_options_out_of_range_before_reading(server):
    with pytest.raises(h5feed.InvalidArgumentError, match="connections is 0"):
        h5feed.inspect(server.url("train.h5"), remote={"connections": 0})
    assert server.accepted == 0


@pytest.mark.parametrize("remote", ["retries=2", [("retries", 2)], 5])
def test_remote_options_that_are_not_a_dict_are_a_type_error_saying_what_it_takes(server, remote):
    for call in (lambda: h5feed.Loader(server.url("train.h5"), batch_size=4, remote=remote),
                 lambda: h5feed.inspect(server.url("train.h5"), remote=remote),
                 lambda: h5feed.verify(server.url("train.h5"), remote=remote)):
        with pytest.raises(TypeError, match="remote takes a dict of the remote options"):
            call()
    assert server.accepted == 0
