"""Real HTTP servers on the loopback for the remote-reading tests: nginx (Debian's, started here
with a config written into a temporary folder) serving a folder with Range requests, ETags and
If-Match, as a CDN or an object store's HTTPS endpoint would.

From Python: `with Nginx(root) as server: server.url("train.h5")`. From a C++ test (or a
shell): `python3 http_servers.py nginx ROOT` prints "port N log ACCESS_LOG" once nginx accepts
connections and runs until it is terminated (SIGTERM) or its stdin closes.
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"

CONFIG = """
worker_processes 1;
daemon off;
pid {state}/nginx.pid;
error_log {state}/error.log warn;
{user}
events {{ worker_connections 256; }}
http {{
  log_format ranges '$request_method $uri $http_range $status $body_bytes_sent $connection';
  access_log {state}/access.log ranges;
  client_body_temp_path {state}/tmp; proxy_temp_path {state}/tmp;
  fastcgi_temp_path {state}/tmp; uwsgi_temp_path {state}/tmp; scgi_temp_path {state}/tmp;
  keepalive_requests 100000;
  server {{
    listen 127.0.0.1:{port};
    root {root};
  }}
}}
"""


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port, process, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            time.sleep(0.02)
    return False


class Nginx:
    """nginx serving `root` on a free loopback port until stopped (a context manager)."""

    def __init__(self, root):
        self.root = os.path.abspath(str(root))
        self.state = tempfile.mkdtemp(prefix="h5feed-nginx-")
        os.makedirs(os.path.join(self.state, "tmp"))
        self.process = None
        self.port = None

    def start(self):
        if not os.path.exists(NGINX):
            raise RuntimeError("nginx is not installed: scripts/install-deps.sh installs "
                               "nginx-light, which the remote-reading tests start")
        for _ in range(5):  # a port taken between free_port() and nginx's bind: try another
            self.port = free_port()
            # nginx started as root runs its worker as `nobody`, which cannot read a test's
            # private temporary folders: keep it root there.
            user = "user root;" if os.geteuid() == 0 else ""
            path = os.path.join(self.state, "nginx.conf")
            with open(path, "w") as config:
                config.write(CONFIG.format(state=self.state, user=user, port=self.port,
                                           root=self.root))
            self.process = subprocess.Popen([NGINX, "-c", path, "-e", os.path.join(
                self.state, "error.log")], stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if wait_for_port(self.port, self.process):
                return self
            self.stop()
        raise RuntimeError("nginx did not start: " + self.errors())

    def errors(self):
        try:
            with open(os.path.join(self.state, "error.log")) as log:
                return log.read()[-2000:]
        except OSError:
            return ""

    @property
    def log(self):
        return os.path.join(self.state, "access.log")

    def url(self, name):
        return f"http://127.0.0.1:{self.port}/{name}"

    def requests(self):
        """The requests served so far, one "METHOD URI RANGE STATUS BYTES CONNECTION" line
        each (RANGE is "-" without one)."""
        try:
            with open(self.log) as log:
                return log.read().splitlines()
        except OSError:
            return []

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)  # graceful: workers finish and exit
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        shutil.rmtree(self.state, ignore_errors=True)


def serve_until_told(server):
    """Prints the port, then waits for SIGTERM or the end of stdin, and stops the server."""
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    print(f"port {server.port} log {server.log}", flush=True)
    while not stop.is_set() and (server.process is None or server.process.poll() is None):
        stop.wait(0.2)


def main(argv):
    if len(argv) != 3 or argv[1] != "nginx":
        print("usage: http_servers.py nginx ROOT", file=sys.stderr)
        return 2
    with Nginx(argv[2]) as server:
        serve_until_told(server)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
