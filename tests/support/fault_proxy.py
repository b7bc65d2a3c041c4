"""An HTTP/1.1 proxy for the remote-reading tests and benchmarks that makes the link to a real
server (nginx) behave like a distant, capped, unreliable one:

- round-trip time: every request waits rtt/2 before it goes upstream and its response rtt/2
  before it comes back; a new connection costs one round trip (the TCP handshake);
- a bandwidth cap shared by all connections: response bodies stream through in pieces of at
  most 256 KiB, each taking its turn on one virtual link of `mbps` MB/s (MB = 10^6 bytes);
- faults, each response of 200/206 drawn with its probability (seeded), at most `limit` in all:
  503: "503 Service Unavailable" instead of the response;
  reset: half the body, then a TCP reset;
  truncate: the headers promise the whole body, half comes, the connection closes;
  stall: a quarter of the body, then nothing (until the client gives up);
  corrupt: the whole body with one byte flipped (only checksums can tell).

With --sigv4 KEY:SECRET it also stands for an S3 service's authentication in front of a store
that does not check signatures itself (s3rver): a request not signed with that key (AWS
Signature Version 4, in headers or a pre-signed URL's query: sigv4.py) is answered 403 with
S3's XML error, and counted.

Settings change while it runs: GET /__proxy/set?rtt_ms=20&mbps=50&faults=reset:0.2,503:0.1
&limit=10&seed=1 (every parameter optional) answers the counters as JSON: requests, faults
injected by kind, body bytes sent, and the most requests it was answering at once
(max_in_flight: read-ahead shows as requests that overlap). Standard library only (Debian's python3).

Usage: fault_proxy.py --port P --upstream U [--rtt-ms MS] [--mbps MB/s] [--faults SPEC]
[--limit N] [--seed S] [--sigv4 KEY:SECRET]
"""
import argparse
import asyncio
import json
import random
import socket
import struct
import sys
import time
import urllib.parse

import sigv4

SLICE = 256 << 10
BURST = 0.05  # seconds of link time a late sleep may catch up on (a token bucket's depth)
KINDS = ("503", "reset", "truncate", "stall", "corrupt")


class Settings:
    def __init__(self, args):
        self.rtt = args.rtt_ms / 1000.0
        self.rate = args.mbps * 1e6
        self.faults = parse_faults(args.faults)
        self.limit = args.limit
        self.random = random.Random(args.seed)

    def update(self, query):
        if "rtt_ms" in query:
            self.rtt = float(query["rtt_ms"]) / 1000.0
        if "mbps" in query:
            self.rate = float(query["mbps"]) * 1e6
        if "faults" in query:
            self.faults = parse_faults(query["faults"])
        if "limit" in query:
            self.limit = int(query["limit"])
        if "seed" in query:
            self.random = random.Random(int(query["seed"]))


def parse_faults(spec):
    faults = []
    for item in filter(None, (spec or "").split(",")):
        kind, _, probability = item.partition(":")
        if kind not in KINDS:
            raise ValueError(f"unknown fault {kind}; one of {KINDS}")
        faults.append((kind, float(probability or 1)))
    return faults


class Proxy:
    def __init__(self, args):
        self.upstream = args.upstream
        self.settings = Settings(args)
        self.link_free_at = 0.0  # when the virtual link finishes what it has been given
        self.stats = {"requests": 0, "body_bytes": 0, "faults": {kind: 0 for kind in KINDS},
                      "refused": 0, "max_in_flight": 0}
        self.in_flight = 0
        self.secrets = dict(item.split(":", 1) for item in args.sigv4)

    def draw_fault(self):
        settings = self.settings
        injected = sum(self.stats["faults"].values())
        if settings.limit is not None and settings.limit >= 0 and injected >= settings.limit:
            return None
        for kind, probability in settings.faults:
            if settings.random.random() < probability:
                self.stats["faults"][kind] += 1
                return kind
        return None

    async def pace(self, size):
        """Waits for `size` bytes' turn on the capped link."""
        if self.settings.rate <= 0:
            return
        now = time.monotonic()
        start = max(now - BURST, self.link_free_at)
        self.link_free_at = start + size / self.settings.rate
        if self.link_free_at > now:
            await asyncio.sleep(self.link_free_at - now)

    async def forward_body(self, up_reader, writer, length, fault):
        """Streams `length` body bytes from upstream to the client; with a fault that cuts the
        body, stops where it cuts and returns False (the connection must end)."""
        cut = {"reset": length // 2, "truncate": length // 2, "stall": length // 4}.get(fault)
        middle = length // 2 if fault == "corrupt" else None
        sent = 0
        while sent < length:
            piece = await up_reader.read(min(SLICE, length - sent))
            if not piece:
                raise asyncio.IncompleteReadError(b"", length - sent)
            if middle is not None and sent <= middle < sent + len(piece):
                piece = bytearray(piece)
                piece[middle - sent] ^= 0x5A
            if cut is not None and sent + len(piece) >= cut:
                piece = piece[:cut - sent]
            await self.pace(len(piece))
            writer.write(piece)
            await writer.drain()
            self.stats["body_bytes"] += len(piece)
            sent += len(piece)
            if cut is not None and sent >= cut:
                return False
        return True

    async def control(self, writer, target):
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(target).query,
                                            keep_blank_values=True))
        self.settings.update(query)
        body = json.dumps(self.stats).encode()
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close"
                     b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        await writer.drain()

    async def refuse_unsigned(self, writer, method, target, head):
        """Answers 403 when the request is not signed with a known key; False otherwise."""
        headers = {}
        for line in head.decode("latin-1").split("\r\n")[1:]:
            name, _, value = line.partition(":")
            if name:
                headers[name.strip().lower()] = value.strip()
        why = sigv4.check(method, target, headers, self.secrets)
        if why is None:
            return False
        self.stats["refused"] += 1
        code, _, message = why.partition(": ")
        body = (f"<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>{code}</Code>"
                f"<Message>{message or code}</Message></Error>").encode()
        writer.write(b"HTTP/1.1 403 Forbidden\r\nContent-Type: application/xml\r\n"
                     b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        await writer.drain()
        return True

    async def handle(self, reader, writer):
        upstream = None
        try:
            await asyncio.sleep(self.settings.rtt)  # the handshake's round trip (control too)
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                method, target = head.decode("latin-1").split(" ", 2)[:2]
                if target.startswith("/__proxy/"):
                    await self.control(writer, target)
                    return  # one answer per control connection
                self.stats["requests"] += 1
                if self.secrets and await self.refuse_unsigned(writer, method, target, head):
                    continue
                self.in_flight += 1
                self.stats["max_in_flight"] = max(self.stats["max_in_flight"], self.in_flight)
                try:
                    await asyncio.sleep(self.settings.rtt / 2)
                    if upstream is None:
                        upstream = await asyncio.open_connection("127.0.0.1", self.upstream,
                                                                  limit=1 << 20)
                    up_reader, up_writer = upstream
                    up_writer.write(head)
                    await up_writer.drain()
                    response = await up_reader.readuntil(b"\r\n\r\n")
                    status = int(response.split(b" ", 2)[1])
                    length = 0
                    for line in response.split(b"\r\n")[1:]:
                        name, _, value = line.partition(b":")
                        if name.strip().lower() == b"content-length":
                            length = int(value.strip())
                    if method == "HEAD" or status in (204, 304):
                        length = 0  # the headers describe a body that is not sent
                    await asyncio.sleep(self.settings.rtt / 2)
                    fault = self.draw_fault() if status in (200, 206) and length else None
                    if fault == "503":
                        await up_reader.readexactly(length)  # the upstream answer, not sent
                        writer.write(b"HTTP/1.1 503 Service Unavailable\r\n"
                                     b"Content-Length: 0\r\n\r\n")
                        await writer.drain()
                        continue
                    writer.write(response)
                    if await self.forward_body(up_reader, writer, length, fault):
                        continue
                    if fault == "reset":
                        sock = writer.get_extra_info("socket")
                        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                        struct.pack("ii", 1, 0))
                        writer.transport.abort()
                    elif fault == "stall":
                        await reader.read()  # until the client gives up and closes
                    return
                finally:
                    self.in_flight -= 1
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            if upstream is not None:
                upstream[1].close()
            if not writer.transport.is_closing():
                writer.close()


async def serve(args):
    proxy = Proxy(args)
    server = await asyncio.start_server(proxy.handle, "127.0.0.1", args.port, backlog=256)
    async with server:
        await server.serve_forever()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--upstream", type=int, required=True)
    parser.add_argument("--rtt-ms", type=float, default=0)
    parser.add_argument("--mbps", type=float, default=0)
    parser.add_argument("--faults", default="")
    parser.add_argument("--limit", type=int, default=-1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sigv4", action="append", default=[], metavar="KEY:SECRET")
    args = parser.parse_args()
    try:
        asyncio.run(serve(args))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
