"""Real HTTP servers on the loopback for the remote-reading tests: nginx (Debian's, started here
with a config written into a temporary folder) serving a folder with Range requests, ETags and
If-Match, as a CDN or an object store's HTTPS endpoint would; and a proxy in front of it that
makes the link slow and unreliable (fault_proxy.py: round-trip time, a bandwidth cap, resets,
5xx, truncated, stalled and corrupted bodies).

From Python: `with Nginx(root) as server: server.url("train.h5")` (`Nginx(root, tls=
self_signed_certificate(folder))` serves https:// with a certificate no system trusts), and
`with Nginx(root) as server, FaultProxy(server.port, rtt_ms=20) as proxy: proxy.url(...)`.
From a C++ test (or a shell): `python3 http_servers.py nginx ROOT` or
`python3 http_servers.py proxy ROOT [--rtt-ms MS] [--mbps MB/s]` prints "port N log ACCESS_LOG"
(the port clients use, nginx's request log) once it accepts connections and runs until it is
terminated (SIGTERM) or its stdin closes.
"""
import argparse
import json
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
    listen 127.0.0.1:{port}{tls};
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


def self_signed_certificate(folder):
    """(certificate, key): a certificate for 127.0.0.1 that signs itself, made by the openssl
    program in `folder`, as a private CA's server would present one: TLS refuses it unless
    the client is told to trust it (SSL_CERT_FILE=certificate)."""
    certificate = os.path.join(str(folder), "server.crt")
    key = os.path.join(str(folder), "server.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", key, "-out", certificate], check=True, capture_output=True)
    return certificate, key


class Nginx:
    """nginx serving `root` on a free loopback port until stopped (a context manager); with
    `tls=(certificate, key)`, over https:// with that certificate."""

    def __init__(self, root, tls=None):
        self.root = os.path.abspath(str(root))
        self.tls = tls
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
                tls = "" if self.tls is None else (
                    " ssl; ssl_certificate {}; ssl_certificate_key {}".format(*self.tls))
                config.write(CONFIG.format(state=self.state, user=user, port=self.port,
                                           root=self.root, tls=tls))
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
        scheme = "http" if self.tls is None else "https"
        return f"{scheme}://127.0.0.1:{self.port}/{name}"

    def requests(self):
        """The requests served so far, one "METHOD URI RANGE STATUS BYTES CONNECTION" line
        each (RANGE is "-" without one). nginx writes a request's line after its response has
        gone out, so the log is read until it has not grown for 50 ms (at most 2 s)."""
        lines = self._read_log()
        for _ in range(40):
            time.sleep(0.05)
            again = self._read_log()
            if len(again) == len(lines):
                break
            lines = again
        return lines

    def _read_log(self):
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


def wait_until_told(alive):
    """Returns on SIGTERM, at the end of stdin, or when alive() turns false."""
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    while not stop.is_set() and alive():
        stop.wait(0.2)


def serve_until_told(server):
    """Prints the port, then serves until told to stop (wait_until_told)."""
    print(f"port {server.port} log {server.log}", flush=True)
    wait_until_told(lambda: server.process is not None and server.process.poll() is None)


class FaultProxy:
    """fault_proxy.py in a child process in front of the server on `upstream_port` (a context
    manager); its behaviour can be changed while it runs (configure)."""

    def __init__(self, upstream_port, sigv4=(), **settings):
        self.upstream_port = upstream_port
        self.sigv4 = list(sigv4)
        self.settings = settings
        self.process = None
        self.port = None

    def start(self):
        here = os.path.dirname(os.path.abspath(__file__))
        self.port = free_port()
        argv = [sys.executable, os.path.join(here, "fault_proxy.py"), "--port", str(self.port),
                "--upstream", str(self.upstream_port)]
        for key, value in self.settings.items():
            argv += ["--" + key.replace("_", "-"), str(value)]
        for credentials in self.sigv4:
            argv += ["--sigv4", credentials]
        self.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
        if not wait_for_port(self.port, self.process):
            self.stop()
            raise RuntimeError("the fault proxy did not start")
        return self

    def url(self, name):
        return f"http://127.0.0.1:{self.port}/{name}"

    def configure(self, **settings):
        """Changes the proxy's settings now (rtt_ms, mbps, faults "kind:p,kind:p", limit);
        returns its counters."""
        import urllib.parse
        import urllib.request
        query = urllib.parse.urlencode(settings)
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/__proxy/set?{query}",
                                    timeout=10) as answer:
            return json.loads(answer.read())

    def stats(self):
        return self.configure()

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=5)
        self.process = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


class S3:
    """An S3-compatible store on the loopback: s3rver (from the npm registry; scripts/
    install-deps.sh installs it) holding bucket `bucket`, behind a FaultProxy that checks every
    request's AWS Signature Version 4 against KEY:SECRET, as S3 would (s3rver does not check
    them). A context manager; `endpoint` is what AWS_ENDPOINT_URL names."""

    # s3rver knows one key id, S3RVER, and checks no signature: the proxy checks them with
    # this secret.
    KEY, SECRET, REGION = "S3RVER", "h5feed-test-secret", "eu-central-1"

    def __init__(self, bucket="bucket", **proxy_settings):
        self.bucket = bucket
        self.data = tempfile.mkdtemp(prefix="h5feed-s3-")
        self.proxy_settings = proxy_settings
        self.process = None
        self.proxy = None

    def start(self):
        program = os.environ.get("H5FEED_S3RVER") or shutil.which("s3rver")
        if not program:
            raise RuntimeError("s3rver is not installed: scripts/install-deps.sh installs it "
                               "(npm install -g s3rver)")
        self.store_port = port = free_port()
        self.process = subprocess.Popen(
            [program, "-d", self.data, "-a", "127.0.0.1", "-p", str(port), "--silent",
             "--configure-bucket", self.bucket], stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if not wait_for_port(port, self.process, timeout=30):
            raise RuntimeError("s3rver did not start")
        self.proxy = FaultProxy(port, sigv4=[f"{self.KEY}:{self.SECRET}"], **self.proxy_settings)
        self.proxy.start()
        return self

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.proxy.port}"

    def url(self, key):
        return f"{self.endpoint}/{self.bucket}/{key}"

    def upload(self, path, key):
        """PUTs the file at `path` as `key` (to the store itself: the proxy forwards GETs)."""
        import hashlib
        import urllib.request
        import sigv4
        with open(path, "rb") as f:
            body = f.read()
        url = f"http://127.0.0.1:{self.store_port}/{self.bucket}/{key}"
        headers = sigv4.sign("PUT", url, self.KEY, self.SECRET, self.REGION,
                             hashlib.sha256(body).hexdigest())
        request = urllib.request.Request(url, data=body, method="PUT", headers=headers)
        with urllib.request.urlopen(request, timeout=60) as answer:
            assert answer.status == 200, answer.status

    def presign(self, key, expires=3600):
        import sigv4
        return sigv4.presign(self.url(key), self.KEY, self.SECRET, self.REGION, expires)

    def environment(self):
        """The AWS environment that reads this store."""
        return {"AWS_ACCESS_KEY_ID": self.KEY, "AWS_SECRET_ACCESS_KEY": self.SECRET,
                "AWS_REGION": self.REGION, "AWS_ENDPOINT_URL": self.endpoint}

    def stop(self):
        if self.proxy is not None:
            self.proxy.stop()
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        shutil.rmtree(self.data, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def main(argv):
    parser = argparse.ArgumentParser(prog="http_servers.py")
    parser.add_argument("kind", choices=["nginx", "proxy"])
    parser.add_argument("root")
    parser.add_argument("--rtt-ms", type=float, default=0)
    parser.add_argument("--mbps", type=float, default=0)
    args = parser.parse_args(argv[1:])
    with Nginx(args.root) as server:
        if args.kind == "nginx":
            serve_until_told(server)
            return 0
        with FaultProxy(server.port, rtt_ms=args.rtt_ms, mbps=args.mbps) as proxy:
            print(f"port {proxy.port} log {server.log}", flush=True)
            wait_until_told(lambda: proxy.process.poll() is None and
                            server.process.poll() is None)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
