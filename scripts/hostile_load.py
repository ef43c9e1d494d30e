#!/usr/bin/env python3
"""Hostile, bounded loads against `solvedb serve --http` on loopback.

Slow, idle, flooding and lying clients, each measured against one
`solvedb` binary (docs/hostile-load.md gives the figures):

    scripts/hostile_load.py BINARY [SCENARIO ...]

Each scenario starts its own server (a fresh data directory, the
committed tables), runs a bounded load against it from this process, prints
its figures as `name: value` lines and stops the server. Attackers use
source addresses other than 127.0.0.1 (127.0.0.2, or 127.0.1.x for "many
addresses"), the measuring client 127.0.0.1: Linux routes all of 127/8 to
loopback, so per-address limits can be seen at work. Nothing here runs
unbounded: every loop has a count or a deadline, and the server runs under
`prlimit` (files, address space).

Only the Python standard library is used (a minimal WebSocket client is
below), so it runs against any build, old or new.
"""

import asyncio
import base64
import concurrent.futures
import json
import os
import random
import signal
import socket
import sqlite3
import statistics
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLES = os.path.join(ROOT, "tables")
PROBE = "/api/v1/probe?game=tictactoe&position=X../.O./..."
ME = "127.0.0.1"
ATTACKER = "127.0.0.2"


def many(i):
    """The i-th of many attacker addresses (127.0.1.1 ... 127.0.1.250)."""
    return f"127.0.1.{1 + i % 250}"


def session_body(game="tictactoe", first="person", second="random", player="hostile-load-0000000001", name=None):
    """The body that begins a game against the computer (`POST
    /api/v1/sessions`): the way a game reaches the leaderboard now, besides
    rooms (a posted move list is not taken)."""
    body = {"game": game, "first": first, "second": second, "player": player}
    if name is not None:
        body["name"] = name
    return json.dumps(body).encode()


async def record_game(port, src=None, player="hostile-load-0000000001", name=None, timeout=10.0):
    """A game against the computer begun and resigned at once, which the
    server records: (status of the resignation, its state or None, its
    seconds)."""
    src = src or ME
    status, _, rb, _ = await request(port, "POST", "/api/v1/sessions",
                                     session_body(player=player, name=name), src=src, timeout=timeout)
    if status != 201:
        return status, None, 0.0
    session = json.loads(rb)["session"]
    status, _, rb, took = await request(port, "POST", "/api/v1/sessions/resign",
                                        json.dumps({"session": session}).encode(), src=src, timeout=timeout)
    return status, (json.loads(rb) if status == 200 else None), took


def out(name, value):
    print(f"{name}: {value}", flush=True)


MISSED = []


def goal(name, met):
    """A scenario's goal, met or not; the run exits 1 if any was missed
    (scripts/test.sh runs a short form in CI)."""
    out(f"  goal: {name}", "met" if met else "MISSED")
    if not met:
        MISSED.append(name)


def free_port():
    with socket.socket() as s:
        s.bind((ME, 0))
        return s.getsockname()[1]


class Server:
    """One `solvedb serve --http` process."""

    def __init__(self, binary, files=4096, extra=(), data=None, addr=None, tables=TABLES):
        self.port = free_port()
        self.data = data or tempfile.mkdtemp(prefix="hostile-")
        self.addr = addr or f"{ME}:{self.port}"
        args = [
            "prlimit", f"--nofile={files}", f"--as={8 << 30}", "--",
            binary, "serve", "--http", "--addr", self.addr,
            "--tables", tables, "--data", self.data, *extra,
        ]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = self.proc.stdout.readline().decode()
        if not line.startswith("listening on"):
            raise SystemExit(f"server did not start: {line!r} {self.proc.stderr.read()!r}")
        self.pid = self.proc.pid

    def rss_kb(self):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def cpu_s(self):
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def open_files(self):
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def stderr_now(self):
        return self.proc.stderr.read().decode(errors="replace") if self.proc.poll() is not None else ""


async def connect(port, src=ME):
    return await asyncio.open_connection(ME, port, local_addr=(src, 0))


async def read_response(reader):
    """Status, headers (lower-case names) and body of one HTTP/1.1 answer."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
    body = b""
    if "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    elif headers.get("transfer-encoding", "").lower() == "chunked":
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip(), 16)
            chunk = await reader.readexactly(size + 2)
            if size == 0:
                break
            body += chunk[:-2]
    return status, headers, body


async def request(port, method, path, body=b"", headers=None, src=ME, timeout=60.0):
    """One request on its own connection: (status, headers, body, seconds);
    status 0 when the connection failed or closed without an answer."""
    started = time.monotonic()
    hdrs = {"Host": f"{ME}:{port}", "Connection": "close"}
    if body:
        hdrs["Content-Type"] = "application/json"
        hdrs["Content-Length"] = str(len(body))
    hdrs.update(headers or {})
    try:
        reader, writer = await asyncio.wait_for(connect(port, src), timeout)
        head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in hdrs.items()) + "\r\n"
        writer.write(head.encode() + body)
        await writer.drain()
        status, rh, rb = await asyncio.wait_for(read_response(reader), timeout)
        writer.close()
        return status, rh, rb, time.monotonic() - started
    except (OSError, asyncio.IncompleteReadError, asyncio.TimeoutError, asyncio.LimitOverrunError, ValueError):
        return 0, {}, b"", time.monotonic() - started


def pct(samples, q):
    s = sorted(samples)
    return s[min(len(s) - 1, round((len(s) - 1) * q))] if s else float("nan")


def ms(seconds):
    return f"{seconds * 1000:.1f} ms"


async def probe_latencies(port, seconds, src=ME, gap=0.05):
    """Cheap table probes, one at a time, each on a fresh connection, for
    `seconds`: (latencies of the answered, statuses)."""
    lat, statuses = [], {}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status, _, _, took = await request(port, "GET", PROBE, src=src, timeout=30)
        statuses[status] = statuses.get(status, 0) + 1
        if status == 200:
            lat.append(took)
        await asyncio.sleep(gap)
    return lat, statuses


def probe_latencies_in_process(port, seconds):
    """`probe_latencies` on an event loop of its own (for another process)."""
    return asyncio.run(probe_latencies(port, seconds, gap=0.05))


def latency_line(name, lat, statuses):
    out(name, f"p50 {ms(pct(lat, 0.5))}, p99 {ms(pct(lat, 0.99))}, max {ms(max(lat) if lat else float('nan'))}, "
              f"{len(lat)} answered, statuses {dict(sorted(statuses.items()))}")


async def hold_open(reader):
    """Seconds until the server closes the connection (or None if it stays
    open until cancelled)."""
    started = time.monotonic()
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                return time.monotonic() - started
    except (OSError, asyncio.CancelledError):
        return None


# ---- the scenarios -------------------------------------------------------------


async def slowloris(binary):
    """200 connections, a header byte every 2 s, for 40 s."""
    s = Server(binary)
    try:
        conns = []
        for i in range(200):
            r, w = await connect(s.port, many(i))
            w.write(b"GET " + PROBE.encode() + b" HTTP/1.1\r\nHost: x\r\n")
            conns.append((r, w))
        closed_at = [None] * len(conns)

        async def drip(i, r, w):
            watch = asyncio.ensure_future(hold_open(r))
            for _ in range(20):
                if watch.done():
                    break
                try:
                    w.write(b"X")
                    await w.drain()
                except OSError:
                    break
                await asyncio.sleep(2)
            if watch.done():
                closed_at[i] = watch.result()
            else:
                watch.cancel()

        started = time.monotonic()
        await asyncio.gather(*(drip(i, r, w) for i, (r, w) in enumerate(conns)))
        closed = [c for c in closed_at if c is not None]
        out("slowloris 200 connections, a byte every 2 s for 40 s",
            f"{len(closed)} closed by the server" + (f" (after {min(closed):.1f}–{max(closed):.1f} s)" if closed else "")
            + f", {time.monotonic() - started:.0f} s")
        for _, w in conns:
            w.close()
    finally:
        s.stop()


async def big_headers(binary):
    """150 connections each sending 390 KB of unfinished headers."""
    s = Server(binary)
    try:
        before = s.rss_kb()
        conns = []
        line = b"X-Pad: " + b"a" * 1000 + b"\r\n"
        for i in range(150):
            r, w = await connect(s.port, many(i))
            w.write(b"GET / HTTP/1.1\r\nHost: x\r\n")
            conns.append((r, w))

        async def send(r, w):
            try:
                for _ in range(390):
                    w.write(line)
                    await w.drain()
            except OSError:
                pass

        await asyncio.wait_for(asyncio.gather(*(send(r, w) for r, w in conns)), 60)
        await asyncio.sleep(2)
        peak = s.rss_kb()
        watches = [asyncio.ensure_future(hold_open(r)) for r, _ in conns]
        await asyncio.sleep(30)
        open_after = sum(1 for w in watches if not w.done())
        for w in watches:
            w.cancel()
        out("150 connections x 390 KB unfinished headers",
            f"RSS {before / 1024:.0f} -> {peak / 1024:.0f} MB, {open_after} of 150 still open 30 s later, RSS then {s.rss_kb() / 1024:.0f} MB")
        for _, w in conns:
            w.close()
    finally:
        s.stop()


async def idle_keepalive(binary):
    """300 idle keep-alive connections, with the server at 256 files."""
    s = Server(binary, files=256)
    try:
        conns, answered = [], 0
        for i in range(300):
            try:
                r, w = await asyncio.wait_for(connect(s.port, many(i)), 3)
                w.write(f"GET {PROBE} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
                await w.drain()
                status, _, _ = await asyncio.wait_for(read_response(r), 3)
                answered += status == 200
                conns.append((r, w))
            except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError):
                break
        out("300 idle keep-alive connections, server at 256 files",
            f"{answered} answered before a request failed, server holds {s.open_files()} files")
        status, _, _, took = await request(s.port, "GET", PROBE, timeout=5)
        out("a new client meanwhile", f"status {status} in {took:.2f} s")
        watches = [asyncio.ensure_future(hold_open(r)) for r, _ in conns]
        await asyncio.sleep(40)
        open_after = sum(1 for w in watches if not w.done())
        for w in watches:
            w.cancel()
        out("idle connections still open 40 s later", f"{open_after} of {len(conns)}")
        status, _, _, took = await request(s.port, "GET", PROBE, timeout=5)
        out("a new client then", f"status {status} in {took:.2f} s")
        for _, w in conns:
            w.close()
    finally:
        s.stop()


async def slow_posts(binary, src_of):
    """260 POSTs sending one byte a second, while a table probe is timed."""
    s = Server(binary)
    try:
        conns = []
        for i in range(260):
            try:
                r, w = await asyncio.wait_for(connect(s.port, src_of(i)), 3)
            except (OSError, asyncio.TimeoutError):
                break
            w.write(f"POST /api/v1/sessions HTTP/1.1\r\nHost: {ME}:{s.port}\r\nContent-Type: application/json\r\n"
                    f"Content-Length: 4000\r\n\r\n".encode())
            conns.append((r, w))
        stop = time.monotonic() + 25

        async def drip(r, w):
            watch = asyncio.ensure_future(hold_open(r))
            while time.monotonic() < stop and not watch.done():
                try:
                    w.write(b" ")
                    await w.drain()
                except OSError:
                    break
                await asyncio.sleep(1)
            watch.cancel()

        drips = asyncio.gather(*(drip(r, w) for r, w in conns))
        await asyncio.sleep(3)
        lat, statuses = await probe_latencies(s.port, 20, gap=0.5)
        await drips
        latency_line(f"a table probe while 260 POSTs send 1 byte/s ({'one address' if src_of(0) == src_of(1) else 'many addresses'})", lat, statuses)
        for _, w in conns:
            w.close()
    finally:
        s.stop()


async def shutdown_half_header(binary):
    s = Server(binary)
    try:
        r, w = await connect(s.port, ATTACKER)
        w.write(b"GET / HTTP/1.1\r\nHo")
        await w.drain()
        await asyncio.sleep(0.5)
        started = time.monotonic()
        s.proc.send_signal(signal.SIGTERM)
        await asyncio.sleep(1)
        status, _, _, _ = await request(s.port, "GET", PROBE, timeout=3)
        out("a new request 1 s after SIGTERM", f"status {status} (0: refused or no answer)")
        while s.proc.poll() is None and time.monotonic() - started < 60:
            await asyncio.sleep(0.1)
        exited = s.proc.poll() is not None
        out("SIGTERM with half a header held", f"exited after {time.monotonic() - started:.2f} s" if exited else "still running after 60 s")
        w.close()
    finally:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()


def dots_game(rows, cols, seed):
    edges = [f"h{r},{c}" for r in range(rows + 1) for c in range(cols)] + \
            [f"v{r},{c}" for r in range(rows) for c in range(cols + 1)]
    random.Random(seed).shuffle(edges)
    return edges


async def cpu_settles(s, since, cpu0, limit=120.0):
    """Seconds from `since` until the server's CPU use stays under 5% for
    1 s (at most `limit`), and the CPU seconds used from `cpu0` on."""
    while time.monotonic() - since < limit:
        a = s.cpu_s()
        await asyncio.sleep(1.0)
        if s.cpu_s() - a < 0.05:
            return time.monotonic() - since - 1.0, s.cpu_s() - cpu0
    return None, s.cpu_s() - cpu0


async def search_outlives(binary):
    for rows in (4, 5):
        s = Server(binary)
        try:
            # The computer at its perfect level moves first: a search of the
            # empty board, which no budget finishes.
            body = session_body(game=f"dots:{rows}x{rows}", first="perfect", second="person")
            cpu0 = s.cpu_s()
            started = time.monotonic()
            status, headers, rb, took = await request(s.port, "POST", "/api/v1/sessions", body, timeout=90)
            out(f"POST /api/v1/sessions, dots {rows}x{rows} against the perfect level moving first",
                f"status {status} in {took:.1f} s, body {rb[:120]!r}")
            settled, cpu = await cpu_settles(s, started, cpu0, 150)
            out(f"  the server's searches ran for", f"{settled:.0f} s from the post on, {cpu:.0f} CPU-s"
                if settled is not None else f"more than 150 s, {cpu:.0f} CPU-s")
        finally:
            s.stop()
    s = Server(binary)
    try:
        paths = ["/api/v1/probe?game=dots:5x5&position=5x5:", "/api/v1/mainline?game=dots:5x5&position=5x5:"]
        # Positions whose own value a search finds, but not every move's
        # and not the whole line, within one call's limit.
        for drawn in (12, 16, 20):
            edges = dots_game(4, 4, 100 + drawn)[:drawn]
            pos = "4x4:" + "%20".join(edges)
            paths += [f"/api/v1/probe?game=dots:4x4&position={pos}", f"/api/v1/mainline?game=dots:4x4&position={pos}"]
        for path in paths:
            times = []
            for _ in range(3):
                status, _, rb, took = await request(s.port, "GET", path, timeout=60)
                times.append(took)
            out(f"GET {path[:70]}", f"status {status}, {min(times):.1f}–{max(times):.1f} s (3 runs)")
    finally:
        s.stop()


async def posts_block_rooms(binary):
    """Two clients beginning 5x5 games against the perfect level (a search
    each, no table) over and over, meanwhile a dots 3x4 room (hinted, so
    the players get values): the time from a move to its values."""
    s = Server(binary)
    try:
        status, _, rb, _ = await request(s.port, "POST", "/api/v1/rooms",
                                         json.dumps({"game": "dots:3x4", "hints": True}).encode())
        made = json.loads(rb)
        first, second = await seats(s.port, made)
        a = await WebSocket.open(s.port, f"/api/v1/rooms/{made['room']}/ws?token={first}")
        b = await WebSocket.open(s.port, f"/api/v1/rooms/{made['room']}/ws?token={second}")
        state = await a.drain(1.0)
        await b.drain(0.5)
        async def searcher(i):
            while True:
                await request(s.port, "POST", "/api/v1/sessions",
                              session_body(game="dots:5x5", first="perfect", second="person",
                                           player=f"hostile-load-searcher-{i:04}"),
                              src=many(i), timeout=90)

        posts = [asyncio.ensure_future(searcher(i)) for i in range(2)]
        await asyncio.sleep(1)
        edges = dots_game(3, 4, 7)
        waits = []
        for i in range(6):
            player = a if state["to_move"] == "first" else b
            other = b if player is a else a
            mv = next(e for e in edges if e not in state["history"])
            started = time.monotonic()
            await player.send(json.dumps({"type": "move", "move": mv}))
            # The move goes out first, its values in a second state.
            seen = 0
            while seen < 2:
                msg = await player.recv_json(60)
                if msg is None:
                    raise SystemExit("the room closed")
                if msg.get("type") == "state" and len(msg["history"]) == i + 1:
                    seen += 1
                    state = msg
            waits.append(time.monotonic() - started)
            await other.drain(0.2)
        out("a dots 3x4 room's move until its values, while two clients begin 5x5 games against the perfect level",
            f"{min(waits):.2f}–{max(waits):.2f} s per move (median {statistics.median(waits):.2f} s)")
        for p in posts:
            p.cancel()
    finally:
        s.stop()


DOTS_4X4_EMPTY = "/api/v1/probe?game=dots:4x4&position=4x4:"


async def search_flood(binary, connections=300, seconds=20, path=DOTS_4X4_EMPTY, what="searches"):
    """`connections` clients loop searches (GET `path`); table probes are
    timed."""
    s = Server(binary)
    try:
        lat, statuses = await probe_latencies(s.port, 5, gap=0.05)
        latency_line("quiet: a table probe", lat, statuses)
        stop = time.monotonic() + seconds
        counts = {}

        async def loop(i):
            while time.monotonic() < stop:
                status, _, _, _ = await request(s.port, "GET", path, src=many(i), timeout=40)
                counts[status] = counts.get(status, 0) + 1
                if status in (0, 503):
                    await asyncio.sleep(0.2)

        flood = asyncio.gather(*(loop(i) for i in range(connections)))
        await asyncio.sleep(2)
        # The measuring client in a process of its own: in this one it
        # would wait for the 300 looping clients' Python work.
        with concurrent.futures.ProcessPoolExecutor(1) as pool:
            lat, statuses = await asyncio.get_running_loop().run_in_executor(
                pool, probe_latencies_in_process, s.port, seconds - 4)
        await flood
        latency_line(f"a table probe while {connections} connections loop {what}", lat, statuses)
        out("  the searches' statuses", dict(sorted(counts.items())))
    finally:
        s.stop()


# ---- rooms ----------------------------------------------------------------------


class WebSocket:
    """A minimal WebSocket client (RFC 6455): text frames, masked."""

    def __init__(self, reader, writer, status, headers):
        self.r, self.w, self.status, self.headers = reader, writer, status, headers

    @staticmethod
    async def open(port, path, src=ME, origin=None, timeout=10):
        reader, writer = await asyncio.wait_for(connect(port, src), timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        extra = f"Origin: {origin}\r\n" if origin else ""
        writer.write((f"GET {path} HTTP/1.1\r\nHost: {ME}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{extra}\r\n").encode())
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ")[1])
        headers = {l.split(":", 1)[0].lower(): l.split(":", 1)[1].strip() for l in lines[1:] if ":" in l}
        if status != 101 and "content-length" in headers:
            await reader.readexactly(int(headers["content-length"]))
        return WebSocket(reader, writer, status, headers)

    async def send_frame(self, opcode, payload):
        mask = os.urandom(4)
        n = len(payload)
        if n < 126:
            head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
        elif n < 65536:
            head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
        else:
            head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.w.write(head + mask + masked)
        await self.w.drain()

    async def send(self, text):
        await self.send_frame(1, text.encode())

    async def recv_frame(self, timeout=10):
        """(opcode, payload), or None when the connection ended."""
        try:
            b0, b1 = await asyncio.wait_for(self.r.readexactly(2), timeout)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", await self.r.readexactly(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", await self.r.readexactly(8))[0]
            return b0 & 0x0F, await self.r.readexactly(n)
        except (OSError, asyncio.IncompleteReadError):
            return None

    async def recv_json(self, timeout=10):
        while True:
            frame = await self.recv_frame(timeout)
            if frame is None or frame[0] == 8:
                return None
            if frame[0] == 1:
                return json.loads(frame[1])

    async def drain(self, seconds):
        """Reads whatever comes for `seconds`; the last JSON message."""
        last = None
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                frame = await self.recv_frame(max(0.01, deadline - time.monotonic()))
            except asyncio.TimeoutError:
                break
            if frame is None:
                break
            if frame[0] == 1:
                last = json.loads(frame[1])
        return last

    def close(self):
        self.w.close()


async def claim_async(port, made):
    invite = made["invite"].split("invite=")[1]
    status, _, rb, _ = await request(port, "POST", f"/api/v1/rooms/{made['room']}/claim",
                                     json.dumps({"invite": invite}).encode())
    return status, json.loads(rb) if rb else {}


async def seats(port, made):
    if "seats" in made and "second" in made["seats"]:
        return made["seats"]["first"], made["seats"]["second"]
    status, claimed = await claim_async(port, made)
    return made["token"], claimed.get("token")


async def rooms(binary):
    s = Server(binary)
    try:
        started = time.monotonic()
        codes = {}
        first_refusal = None
        for i in range(1001):
            status, _, rb, _ = await request(s.port, "POST", "/api/v1/rooms", b'{"game":"tictactoe"}', src=ATTACKER)
            codes[status] = codes.get(status, 0) + 1
            if status != 201 and first_refusal is None:
                first_refusal = i
        took = time.monotonic() - started
        out("1,001 room creations from one address", f"{took:.2f} s, statuses {dict(sorted(codes.items()))}, first refused: #{first_refusal}")
        status, _, rb, _ = await request(s.port, "POST", "/api/v1/rooms", b'{"game":"tictactoe"}', src=ME)
        out("then a room from another address", f"status {status} {rb[:100]!r}")
    finally:
        s.stop()
    s = Server(binary)
    try:
        status, _, rb, _ = await request(s.port, "POST", "/api/v1/rooms", b'{"game":"tictactoe"}')
        made = json.loads(rb)
        out("the create answer's fields", sorted(made.keys()) + [f"seats: {sorted(made.get('seats', {}).keys())}"])
        first, second = await seats(s.port, made)
        room = made["room"]
        a = await WebSocket.open(s.port, f"/api/v1/rooms/{room}/ws?token={first}")
        b = await WebSocket.open(s.port, f"/api/v1/rooms/{room}/ws?token={second}")
        spectators = []
        for i in range(14):
            ws = await WebSocket.open(s.port, f"/api/v1/rooms/{room}/ws", src=ATTACKER)
            spectators.append(ws)
        statuses = [ws.status for ws in spectators]
        b.close()
        await asyncio.sleep(0.5)
        squatter = await WebSocket.open(s.port, f"/api/v1/rooms/{room}/ws", src=ATTACKER)
        back = await WebSocket.open(s.port, f"/api/v1/rooms/{room}/ws?token={second}")
        out("14 spectators, the second player drops, a squatter connects",
            f"spectators {statuses.count(101)}x101, squatter {squatter.status}, the player back: {back.status}")
        for ws in spectators + [a, squatter, back]:
            ws.close()
        # A second claim of the same invite.
        if "invite" in made:
            status, _ = await claim_async(s.port, made)
            out("the invite claimed a second time", f"status {status}")
    finally:
        s.stop()


async def websocket_memory(binary, count=1000):
    s = Server(binary)
    try:
        rooms_needed = (count + 13) // 14
        made = []
        for i in range(rooms_needed):
            status, _, rb, _ = await request(s.port, "POST", "/api/v1/rooms", b'{"game":"tictactoe"}', src=many(i))
            if status == 201:
                made.append(json.loads(rb)["room"])
        await asyncio.sleep(1)
        before = s.rss_kb()
        sockets, statuses = [], {}
        for i in range(count):
            try:
                ws = await WebSocket.open(s.port, f"/api/v1/rooms/{made[i % len(made)]}/ws", src=many(i), timeout=5)
                statuses[ws.status] = statuses.get(ws.status, 0) + 1
                if ws.status == 101:
                    sockets.append(ws)
                else:
                    ws.close()
            except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError):
                statuses[0] = statuses.get(0, 0) + 1
        await asyncio.sleep(2)
        after = s.rss_kb()
        out(f"{count} spectator WebSockets in {len(made)} rooms",
            f"statuses {dict(sorted(statuses.items()))}, RSS {before / 1024:.0f} -> {after / 1024:.0f} MB, "
            f"{(after - before) / max(1, len(sockets)):.0f} KB per WebSocket")
        for ws in sockets:
            ws.close()
    finally:
        s.stop()


async def room_flood(binary, addresses=101, per_address=10, empty=None, within=60):
    """Rooms created as fast as the server answers from many addresses,
    nobody ever joining them: does a new address still get a room, and
    does the pool free itself within a minute (`within` seconds; `empty`:
    the server's `--room-empty`, default 45 s)?"""
    s = Server(binary, extra=() if empty is None else ("--room-empty", str(empty)))
    try:
        async def flood(i):
            got = 0
            for _ in range(per_address):
                status, _, _, _ = await request(s.port, "POST", "/api/v1/rooms", b'{"game":"tictactoe"}', src=many(i))
                got += status == 201
            return got
        started = time.monotonic()
        made = await asyncio.gather(*(flood(i) for i in range(addresses)))
        filled = time.monotonic()
        out(f"{addresses * per_address} room creations from {addresses} addresses",
            f"{sum(made)} made in {filled - started:.1f} s, at most {max(made)} per address")
        status, _, rb, _ = await request(s.port, "POST", "/api/v1/rooms", b'{"game":"tictactoe"}', src=ME)
        out("then a room from a new address", f"status {status} {rb[:80]!r}")
        goal("a new address gets a room after the flood", status == 201)
        # One of the flooding addresses asks again every 2 s: its room is
        # made once the flood's empty rooms are gone.
        freed = None
        give_up = 1.5 * within
        gap = min(2.0, within / 30)
        while time.monotonic() - filled < give_up:
            status, _, _, _ = await request(s.port, "POST", "/api/v1/rooms", b'{"game":"tictactoe"}', src=many(0))
            if status == 201:
                freed = time.monotonic() - filled
                break
            await asyncio.sleep(gap)
        out("a flooding address gets a room again after", f"never ({give_up:.0f} s)" if freed is None else f"{freed:.1f} s")
        goal(f"the pool frees itself within {within} s", freed is not None and freed <= within)
    finally:
        s.stop()


async def spectator_flood(binary, addresses=35, attempts=64):
    """Spectators' WebSockets opened from many addresses until refused;
    then seats, new and returning, and a spectator from a new address."""
    s = Server(binary)
    try:
        rooms_made = []
        # Enough rooms that their places (14 spectators each) exceed every
        # cap on spectators: 160 rooms, 2,240 places.
        for i in range(160):
            status, _, rb, _ = await request(s.port, "POST", "/api/v1/rooms", b'{"game":"tictactoe"}', src=many(40 + i))
            if status == 201:
                rooms_made.append(json.loads(rb)["room"])
        sockets, per_address = [], []

        async def watch(i):
            got = 0
            for k in range(attempts):
                room = rooms_made[(i * attempts + k) % len(rooms_made)]
                try:
                    ws = await WebSocket.open(s.port, f"/api/v1/rooms/{room}/ws", src=many(i), timeout=5)
                except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError):
                    continue
                if ws.status == 101:
                    sockets.append(ws)
                    got += 1
                else:
                    ws.close()
            return got
        started = time.monotonic()
        per_address = await asyncio.gather(*(watch(i) for i in range(addresses)))
        out(f"{addresses * attempts} spectator WebSockets tried from {addresses} addresses",
            f"{sum(per_address)} open in {time.monotonic() - started:.1f} s, at most {max(per_address)} per address")
        goal("no address holds more than its quota of spectators (32)", max(per_address) <= 32)
        status, _, rb, _ = await request(s.port, "POST", "/api/v1/rooms", b'{"game":"tictactoe"}', src=ME)
        made = json.loads(rb)
        room = made["room"]
        first = await WebSocket.open(s.port, f"/api/v1/rooms/{room}/ws?token={made['token']}")
        _, second = await seats(s.port, made)
        friend = await WebSocket.open(s.port, f"/api/v1/rooms/{room}/ws?token={second}")
        back = await WebSocket.open(s.port, f"/api/v1/rooms/{room}/ws?token={made['token']}")
        watcher = await WebSocket.open(s.port, f"/api/v1/rooms/{room}/ws", src=ATTACKER)
        out("then a new room's seats, a returning seat, a new address's spectator",
            f"{first.status}, {friend.status}, {back.status}, {watcher.status}")
        goal("seats, new and returning, are never refused for the spectators",
             [first.status, friend.status, back.status] == [101, 101, 101])
        goal("a new address can still watch", watcher.status == 101)
        for ws in sockets + [first, friend, back, watcher]:
            ws.close()
    finally:
        s.stop()


async def stall(binary, extra=()):
    """A game where the player to move never moves: does it end?"""
    s = Server(binary, extra=extra)
    try:
        status, _, rb, _ = await request(s.port, "POST", "/api/v1/rooms", b'{"game":"tictactoe"}')
        made = json.loads(rb)
        first, second = await seats(s.port, made)
        a = await WebSocket.open(s.port, f"/api/v1/rooms/{made['room']}/ws?token={first}&name=ann")
        b = await WebSocket.open(s.port, f"/api/v1/rooms/{made['room']}/ws?token={second}&name=bob")
        await a.send(json.dumps({"type": "move", "move": "4"}))
        started = time.monotonic()
        result = None
        while time.monotonic() - started < 20:
            msg = await a.drain(1.0)
            if msg and msg.get("result"):
                result = msg
                break
        out("the second player never moves (20 s watched)",
            f"game over after {time.monotonic() - started:.1f} s: {result['result']}, recorded {result.get('recorded')}"
            if result else "the game is still going")
        a.close()
        b.close()
    finally:
        s.stop()


# ---- cross-site, spam and small things --------------------------------------------


async def cross_site(binary):
    s = Server(binary)
    try:
        game = session_body()
        for path, body in (("/api/v1/rooms", b'{"game":"tictactoe"}'), ("/api/v1/sessions", game)):
            status, _, rb, _ = await request(s.port, "POST", path, body, headers={
                "Content-Type": "text/plain", "Origin": "http://evil.example", "Host": "evil.example"})
            out(f"text/plain POST {path}, Origin and Host evil.example", f"status {status} {rb[:90]!r}")
            status, _, rb, _ = await request(s.port, "POST", path, body, headers={"Origin": "http://evil.example"})
            out(f"JSON POST {path}, Origin evil.example", f"status {status} {rb[:90]!r}")
            status, _, rb, _ = await request(s.port, "POST", path, body, headers={"Origin": f"http://{ME}:{s.port}"})
            out(f"JSON POST {path}, same origin", f"status {status}")
        status, _, rb, _ = await request(s.port, "POST", "/api/v1/rooms", b'{"game":"tictactoe"}')
        room = json.loads(rb)["room"]
        ws = await WebSocket.open(s.port, f"/api/v1/rooms/{room}/ws", origin="http://evil.example")
        out("WebSocket upgrade with Origin evil.example", f"status {ws.status}")
        ws.close()
        status, headers, _, _ = await request(s.port, "GET", PROBE)
        out("X-Content-Type-Options on a JSON answer", headers.get("x-content-type-options", "missing"))
        # Games recorded as fast as 8 clients on one address can (begun and
        # resigned: two writes each), 5 s.
        db = os.path.join(s.data, "leaderboard.sqlite3")
        size0 = sum(os.path.getsize(db + ext) for ext in ("", "-wal") if os.path.exists(db + ext))
        stop = time.monotonic() + 5
        codes = {}

        async def spam(i):
            while time.monotonic() < stop:
                status, _, _ = await record_game(s.port, src=ATTACKER, player=f"hostile-load-spammer-{i:04}")
                codes[status] = codes.get(status, 0) + 1

        await asyncio.gather(*(spam(i) for i in range(8)))
        size1 = sum(os.path.getsize(db + ext) for ext in ("", "-wal") if os.path.exists(db + ext))
        out("games recorded from one address, 8 clients, 5 s",
            f"{codes.get(200, 0) / 5:.0f} recorded a second, statuses {dict(sorted(codes.items()))}, "
            f"database +{(size1 - size0) / 1e6:.2f} MB ({(size1 - size0) / 5 * 60 / 1e6:.1f} MB a minute)")
    finally:
        s.stop()


DB15K = "/tmp/hostile-leaderboard-15k"


async def leaderboard_readers(binary, readers=30, seconds=10):
    """30 readers of the leaderboard over a database of about 15,000 games
    (made once, by the first binary run, and copied for each run)."""
    import shutil
    if not os.path.exists(os.path.join(DB15K, "leaderboard.sqlite3")):
        s = Server(binary, data=DB15K)
        stop = time.monotonic() + 180
        made = [0]

        async def fill(i):
            k = 0
            while made[0] < 15000 and time.monotonic() < stop:
                status, _, _ = await record_game(s.port, src=many(i), player=f"hostile-load-p{i:03}-{k % 50:03}")
                made[0] += status == 200
                k += 1
                if status != 201:
                    await asyncio.sleep(0.5)

        await asyncio.gather(*(fill(i) for i in range(200)))
        s.stop()
    data = tempfile.mkdtemp(prefix="hostile-readers-")
    for name in os.listdir(DB15K):
        shutil.copy(os.path.join(DB15K, name), data)
    s = Server(binary, data=data)
    try:
        stop = time.monotonic() + seconds
        lat = []

        async def read(i):
            while time.monotonic() < stop:
                status, _, _, took = await request(s.port, "GET", "/api/v1/leaderboard?per_page=100", src=many(i))
                if status == 200:
                    lat.append(took)

        async def write():
            w = []
            await asyncio.sleep(1)
            while time.monotonic() < stop - 1:
                status, _, took = await record_game(s.port)
                if status == 200:
                    w.append(took)
                await asyncio.sleep(0.5)
            return w

        results = await asyncio.gather(write(), *(read(i) for i in range(readers)))
        w = results[0]
        out(f"{readers} leaderboard readers", f"read p50 {ms(pct(lat, 0.5))}, p99 {ms(pct(lat, 0.99))}; "
            f"recording a game meanwhile p50 {ms(pct(w, 0.5))}, max {ms(max(w) if w else float('nan'))}")
    finally:
        s.stop()


async def small(binary):
    s = Server(binary)
    try:
        status, _, rb, _ = await request(s.port, "POST", "/api/v1/rooms", b'{"game":"tictactoe"}')
        made = json.loads(rb)
        first, _ = await seats(s.port, made)
        ws = await WebSocket.open(s.port, f"/api/v1/rooms/{made['room']}/ws?token={first}")
        await ws.drain(0.5)
        await ws.send("x" * (32 * 1024))
        frame = None
        while True:
            f = await ws.recv_frame(5)
            if f is None or f[0] == 8:
                frame = f
                break
        if frame is None:
            out("an oversized WebSocket frame (32 KiB)", "the connection closed without a Close frame")
        else:
            code = struct.unpack("!H", frame[1][:2])[0] if len(frame[1]) >= 2 else None
            out("an oversized WebSocket frame (32 KiB)", f"Close frame {code} {frame[1][2:]!r}")
    finally:
        s.stop()
    port = free_port()
    proc = subprocess.Popen([binary, "serve", "--http", "--addr", f"0.0.0.0:{port}", "--tables", TABLES,
                             "--data", tempfile.mkdtemp()], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(1.5)
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=15)
    out("--addr 0.0.0.0 on standard error", repr(stderr.decode()[:300]) or "nothing")


async def timeout_body(binary):
    """A request past the server's own time limit: what does it answer?"""
    s = Server(binary)
    try:
        body = session_body(game="dots:5x5", first="perfect", second="person")
        status, headers, rb, took = await request(s.port, "POST", "/api/v1/sessions", body, timeout=60)
        out("the slowest request (5x5 against the perfect level moving first)", f"status {status} after {took:.1f} s, "
            f"content-type {headers.get('content-type')}, body {rb[:140]!r}")
    finally:
        s.stop()


# ---- what must not regress ---------------------------------------------------------


async def raw(port, data, src=ME, timeout=5):
    """Sends raw bytes; the first status line answered (or what happened)."""
    try:
        r, w = await connect(port, src)
        w.write(data)
        await w.drain()
        got = await asyncio.wait_for(r.read(4096), timeout)
        w.close()
        return got.split(b"\r\n", 1)[0].decode("latin-1") if got else "closed"
    except asyncio.TimeoutError:
        return "no answer"
    except OSError as e:
        return f"error {e}"


async def refusals(binary):
    s = Server(binary)
    try:
        port = s.port
        host = f"Host: {ME}:{port}\r\n"
        cases = {
            "malformed request line": b"GARBAGE\r\n\r\n",
            "bad header": b"GET / HTTP/1.1\r\n" + host.encode() + b"Bad Header\r\n\r\n",
            "smuggling CL+TE": (f"POST /api/v1/sessions HTTP/1.1\r\n{host}Content-Type: application/json\r\n"
                                f"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /x HTTP/1.1\r\n\r\n").encode(),
            "two Content-Lengths": (f"POST /api/v1/sessions HTTP/1.1\r\n{host}Content-Type: application/json\r\n"
                                    f"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{{}}").encode(),
            "traversal": f"GET /assets/../../../../etc/passwd HTTP/1.1\r\n{host}\r\n".encode(),
            "encoded traversal": f"GET /assets/..%2f..%2fCargo.toml HTTP/1.1\r\n{host}\r\n".encode(),
        }
        for name, data in cases.items():
            out(f"refusal: {name}", await raw(port, data))
        bomb = b"[" * 3000 + b"]" * 3000
        status, _, rb, _ = await request(port, "POST", "/api/v1/sessions", bomb)
        out("refusal: JSON bomb (3000 nested arrays)", f"{status} {rb[:80]!r}")
        big = b'{"game":"' + b"a" * 100000 + b'"}'
        status, _, rb, _ = await request(port, "POST", "/api/v1/sessions", big)
        out("refusal: a 100 KB body", f"{status} {rb[:80]!r}")
        status, _, rb, _ = await request(port, "POST", "/api/v1/rooms", b'{"game":"tictactoe"}')
        made = json.loads(rb)
        first, second = await seats(port, made)
        a = await WebSocket.open(port, f"/api/v1/rooms/{made['room']}/ws?token={first}")
        await a.drain(0.3)
        # The illegal move first, while it is this seat's turn (after its
        # move the refusal would be "not your turn", whatever the move).
        for name, msg in (("an illegal move", '{"type":"move","move":"9"}'), ("a move for the other seat", None),
                          ("not JSON", "{{{"), ("an unknown type", '{"type":"resign"}')):
            if msg is None:
                await a.send('{"type":"move","move":"0"}')
                await a.drain(0.3)
                msg = '{"type":"move","move":"1"}'
            await a.send(msg)
            reply = None
            for _ in range(5):
                m = await a.recv_json(3)
                if m is None or m.get("type") == "error":
                    reply = m
                    break
            out(f"refusal: {name}", f"{reply['kind']}: {reply['error'][:60]}" if reply else "no error message")
        await a.send_frame(2, b"\x00\x01")
        m = await a.recv_json(3)
        out("refusal: a binary frame", f"{m and m.get('kind')}: {m and m.get('error', '')[:50]}")
        # A frame without a mask (clients must mask).
        a.w.write(struct.pack("!BB", 0x81, 2) + b"{}")
        await a.w.drain()
        f = await a.recv_frame(3)
        out("refusal: an unmasked frame", "closed" if f is None else f"opcode {f[0]} {f[1][:40]!r}")
        a.close()
        out("the server after all of it", f"{(await request(port, 'GET', PROBE))[0]}")
    finally:
        s.stop()


async def kill9(binary, rounds=3, posters=8, burst=4.0):
    """Games recorded in bursts (begun against the computer and resigned);
    the server is killed with SIGKILL during each; every game whose
    recording was acknowledged must be in the database afterwards."""
    data = tempfile.mkdtemp(prefix="hostile-kill-")
    acknowledged = []
    attempted = 0
    for r in range(rounds):
        s = Server(binary, data=data)
        stop = time.monotonic() + burst

        async def post(i):
            nonlocal attempted
            n = 0
            while time.monotonic() < stop + 5:
                attempted += 1
                n += 1
                name = f"k{r}-{i}-{n}"
                status, state, _ = await record_game(s.port, src=many(i), player=f"hostile-load-killed-{i:04}",
                                                     name=name, timeout=5)
                if status == 200 and state and state.get("recorded"):
                    acknowledged.append(name)
                elif status == 0 and s.proc.poll() is not None:
                    return
                elif status == 429 or status == 503:
                    await asyncio.sleep(0.05)

        async def killer():
            await asyncio.sleep(burst * random.uniform(0.5, 0.9))
            s.proc.kill()
            s.proc.wait()

        await asyncio.gather(killer(), *(post(i) for i in range(posters)))
    s = Server(binary, data=data)
    s.stop()
    db = sqlite3.connect(os.path.join(data, "leaderboard.sqlite3"))
    ids = {row[0] for row in db.execute("SELECT first FROM games")}
    lost = [i for i in acknowledged if i not in ids]
    out(f"kill -9 three times while games are recorded ({posters} clients, many addresses)",
        f"{len(acknowledged) - len(lost)} of {len(acknowledged)} acknowledged games kept ({attempted} posts tried, {len(ids)} in the database)")


async def probe_memory(binary, seconds=120, clients=4):
    """Random dots 3x4 probes over keep-alive connections for `seconds`,
    the server's RSS sampled: it must stay within its block cache (64 MiB)
    and what it needs besides. The 3x4 table (40 MB, not committed) comes
    from the directory in $HOSTILE_DOTS_3X4_TABLES."""
    tables = os.environ.get("HOSTILE_DOTS_3X4_TABLES")
    if not tables or not os.path.exists(os.path.join(tables, "dots-3x4.sdb")):
        out("random dots 3x4 probes", "skipped: set HOSTILE_DOTS_3X4_TABLES to a directory with dots-3x4.sdb")
        return
    s = Server(binary, tables=tables)
    try:
        rng = random.Random(23)
        stop = time.monotonic() + seconds
        counts = {}

        async def loop(i):
            r, w = await connect(s.port)
            while time.monotonic() < stop:
                bits = "".join("1" if rng.random() < 0.62 else "0" for _ in range(31))
                w.write(f"GET /api/v1/probe?game=dots:3x4&position=3x4:{bits} HTTP/1.1\r\nHost: {ME}:{s.port}\r\n\r\n".encode())
                await w.drain()
                status, _, _ = await asyncio.wait_for(read_response(r), 30)
                counts[status] = counts.get(status, 0) + 1
            w.close()

        samples = []

        async def sample():
            while time.monotonic() < stop:
                samples.append(s.rss_kb())
                await asyncio.sleep(10)

        started = time.monotonic()
        await asyncio.gather(sample(), *(loop(i) for i in range(clients)))
        rss = s.rss_kb()
        out(f"random dots 3x4 probes over HTTP, {clients} keep-alive clients, {time.monotonic() - started:.0f} s",
            f"{sum(counts.values())} answers {dict(sorted(counts.items()))}; RSS every 10 s (MB) "
            f"{[round(k / 1024) for k in samples]}, at the end {rss / 1024:.0f} MB")
    finally:
        s.stop()

# ---- Qubic: a strategy table, live searches outside it -------------------------

# X's first move on an edge, O's in a corner: outside the committed strategy
# (X starts in a corner), so every answer about it is a live search.
QUBIC_OUTSIDE = "OX.." + "." * 60
QUBIC_STRATEGY = "X" + "." * 20 + "O" + "." * 42  # X 0, O 21: X to move, in the strategy


async def qubic(binary):
    """Probes in and outside Qubic's strategy: answers within the search
    limit, searches that end with their request, a flood of them beside
    table probes, and SIGTERM while they run."""
    s = Server(binary)
    try:
        for name, pos in (("in the strategy", QUBIC_STRATEGY), ("outside the strategy", QUBIC_OUTSIDE)):
            for kind in ("probe", "mainline"):
                times, statuses = [], {}
                for _ in range(3):
                    cpu0 = s.cpu_s()
                    started = time.monotonic()
                    status, _, rb, took = await request(s.port, "GET", f"/api/v1/{kind}?game=qubic&position={pos}",
                                                        timeout=60)
                    times.append(took)
                    statuses[status] = statuses.get(status, 0) + 1
                settled, cpu = await cpu_settles(s, started, cpu0, 60)
                out(f"GET {kind} {name}", f"statuses {statuses}, {min(times):.2f}–{max(times):.2f} s (3 runs), "
                    f"the last one's searches ended {settled:.1f} s after it began, {cpu:.1f} CPU-s; "
                    f"body {rb[:100]!r}" if settled is not None else "searches still running after 60 s")
    finally:
        s.stop()
    await search_flood(binary, connections=64, seconds=20,
                       path=f"/api/v1/probe?game=qubic&position={QUBIC_OUTSIDE}", what="Qubic searches")
    s = Server(binary)
    try:
        async def one():
            return await request(s.port, "GET", f"/api/v1/probe?game=qubic&position={QUBIC_OUTSIDE}",
                                 src=ATTACKER, timeout=30)
        searches = [asyncio.create_task(one()) for _ in range(4)]
        await asyncio.sleep(0.5)
        started = time.monotonic()
        s.proc.send_signal(signal.SIGTERM)
        while s.proc.poll() is None and time.monotonic() - started < 60:
            await asyncio.sleep(0.05)
        exited = s.proc.poll() is not None
        answered = [r[0] for r in await asyncio.gather(*searches)]
        out("SIGTERM while four Qubic searches run", (f"exited after {time.monotonic() - started:.2f} s" if exited
                                                     else "still running after 60 s") + f", their statuses {answered}")
    finally:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()


# ---- the second round: drips, unadmitted work, protocol slips ---------------


class RssWatch:
    """The server's resident memory sampled every 100 ms on a thread: the
    highest seen."""

    def __init__(self, s):
        import threading
        self.s, self.peak, self.done = s, s.rss_kb(), threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.done.wait(0.1):
            try:
                self.peak = max(self.peak, self.s.rss_kb())
            except OSError:
                return

    def stop(self):
        self.done.set()
        self.thread.join()
        return self.peak


def drip_one(port, src, head, body, seconds, answers):
    """A request whose body goes one byte per TCP segment over about
    `seconds` (blocking, on a thread of its own); its status is counted."""
    try:
        sock = socket.create_connection((ME, port), timeout=30, source_address=(src, 0))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall(head)
        gap = seconds / len(body)
        try:
            # A sleep every 4 bytes: 100 threads sleeping after every
            # byte take longer than the body's timeout (the GIL).
            for i in range(len(body)):
                sock.send(body[i:i + 1])
                if i % 4 == 3:
                    time.sleep(gap * 4)
        except OSError:
            pass  # answered (and closed) before the whole body: read why
        got = sock.recv(4096)
        status = int(got.split(b" ", 2)[1]) if got else 0
        if status >= 400:  # why, in a few words
            why = got.split(b'"error":"', 1)[-1][:40].decode(errors="replace")
            status = f"{status} {why}"
        sock.close()
    except (OSError, ValueError, IndexError) as e:
        status = type(e).__name__
    answers[status] = answers.get(status, 0) + 1


async def drip_bodies(binary, method="POST", path="/api/v1/sessions", connections=100, addresses=5, seconds=5.0):
    """`connections` requests from `addresses` addresses whose 4,000-byte
    bodies arrive one byte per TCP segment within the body's timeout: the
    server's resident memory before, at its highest and after; a table
    probe timed meanwhile."""
    s = Server(binary)
    try:
        body = session_body()
        body = body + b" " * (4000 - len(body))
        head = (f"{method} {path} HTTP/1.1\r\nHost: {ME}:{s.port}\r\nContent-Type: application/json\r\n"
                f"Connection: close\r\nContent-Length: {len(body)}\r\n\r\n").encode()
        before = s.rss_kb()
        watch = RssWatch(s)
        answers = {}
        loop = asyncio.get_running_loop()
        with concurrent.futures.ThreadPoolExecutor(connections) as pool:
            drips = [loop.run_in_executor(pool, drip_one, s.port, f"127.0.2.{1 + i % addresses}", head, body, seconds, answers)
                     for i in range(connections)]
            lat, statuses = await probe_latencies(s.port, seconds, gap=0.1)
            await asyncio.gather(*drips)
        peak = watch.stop()
        await asyncio.sleep(2)
        after = s.rss_kb()
        out(f"{connections} {method} {path} bodies of 4,000 bytes dripped a byte per segment from {addresses} addresses",
            f"RSS {before / 1024:.0f} MB before, {peak / 1024:.0f} MB at most, {after / 1024:.0f} MB 2 s after; "
            f"answers {dict(sorted(answers.items(), key=str))}")
        latency_line("  a table probe meanwhile", lat, statuses)
        goal("resident memory under 64 MB during and after the drip", peak < 64 * 1024 and after < 64 * 1024)
        goal("every table probe answered meanwhile", set(statuses) == {200})
    finally:
        s.stop()


CUBE_CLASSIC = "/api/v1/computer?game=cube&position=...........................&level=classic"


async def computer_flood(binary, connections=200, seconds=20):
    """`connections` clients from many addresses loop the classic computer
    on the cube's empty board; table probes are timed, the server's threads
    counted, and the CPU it spends after the flood."""
    s = Server(binary)
    try:
        lat, statuses = await probe_latencies(s.port, 4, gap=0.05)
        latency_line("quiet: a table probe", lat, statuses)
        stop = time.monotonic() + seconds
        counts, threads = {}, []

        async def loop(i):
            while time.monotonic() < stop:
                status, _, _, _ = await request(s.port, "GET", CUBE_CLASSIC, src=many(i), timeout=40)
                counts[status] = counts.get(status, 0) + 1
                if status in (0, 503):
                    await asyncio.sleep(0.2)

        async def count_threads():
            while time.monotonic() < stop:
                with open(f"/proc/{s.pid}/status") as f:
                    threads.extend(int(l.split()[1]) for l in f if l.startswith("Threads:"))
                await asyncio.sleep(0.5)

        flood = asyncio.gather(*(loop(i) for i in range(connections)), count_threads())
        await asyncio.sleep(2)
        with concurrent.futures.ProcessPoolExecutor(1) as pool:
            lat, statuses = await asyncio.get_running_loop().run_in_executor(
                pool, probe_latencies_in_process, s.port, seconds - 4)
        await flood
        ended, cpu0 = time.monotonic(), s.cpu_s()
        latency_line(f"a table probe while {connections} connections loop the cube's classic computer", lat, statuses)
        out("  the computer's statuses", dict(sorted(counts.items())))
        out("  the server's threads", f"at most {max(threads) if threads else '?'}")
        goal("table probes p99 within 50 ms", bool(lat) and pct(lat, 0.99) <= 0.050)
        settled, cpu = await cpu_settles(s, ended, cpu0, 60)
        out("  CPU after the flood", f"quiet {settled:.1f} s after, {cpu:.1f} CPU-s" if settled is not None
            else f"busy for more than 60 s, {cpu:.0f} CPU-s")
    finally:
        s.stop()


DOTS_4X4_MAINLINE = "/api/v1/mainline?game=dots:4x4&position=4x4:"
DOTS_4X4_ANALYSIS = "/api/v1/analysis?game=dots:4x4&position=4x4:"


async def loop_session(port, src, i, stop, counts):
    """Games against the perfect level on dots 5x5, a move at a time (each
    move judged by a search, the computer's answer another), a new game
    when one ends or is refused."""
    edges, session = [], None
    while time.monotonic() < stop:
        if session is None or not edges:
            body = session_body(game="dots:5x5", first="person", second="perfect",
                                player=f"every-route-{i:010d}")
            status, _, rb, _ = await request(port, "POST", "/api/v1/sessions", body, src=src, timeout=40)
            counts[status] = counts.get(status, 0) + 1
            if status != 201:
                await asyncio.sleep(0.2)
                continue
            session, edges = json.loads(rb)["session"], dots_game(5, 5, i)
        mv = json.dumps({"session": session, "move": edges.pop()}).encode()
        status, _, _, _ = await request(port, "POST", "/api/v1/sessions/move", mv, src=src, timeout=40)
        counts[status] = counts.get(status, 0) + 1
        if status != 200:
            session = None
            await asyncio.sleep(0.2)


async def loop_hints(port, src, i, stop, counts):
    """A room with hints on dots 4x4, both seats played by this client:
    every move is followed by the new position's values (a search)."""
    while time.monotonic() < stop:
        status, _, rb, _ = await request(port, "POST", "/api/v1/rooms", b'{"game":"dots:4x4","hints":true}',
                                         src=src, timeout=40)
        counts[status] = counts.get(status, 0) + 1
        if status != 201:
            await asyncio.sleep(1)
            continue
        made = json.loads(rb)
        try:
            first, second = await seats(port, made)
            room = made["room"]
            ws = [await WebSocket.open(port, f"/api/v1/rooms/{room}/ws?token={t}", src=src) for t in (first, second)]
        except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, KeyError, ValueError):
            counts[0] = counts.get(0, 0) + 1
            continue
        try:
            state = await ws[0].drain(0.3)
            for mv in dots_game(4, 4, i):
                if time.monotonic() >= stop or state is None:
                    break
                seat = 0 if state.get("to_move") == "first" else 1
                await ws[seat].send(json.dumps({"type": "move", "move": mv}))
                # The move's state, then (a search later) its values.
                state = await ws[seat].drain(3.5)
                counts["move"] = counts.get("move", 0) + 1
        except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError):
            pass
        finally:
            for w in ws:
                w.close()


async def every_route(binary, connections=300, addresses=100, seconds=25):
    """`connections` clients from `addresses` addresses, each looping the
    most expensive request of one route (probe, mainline, the classic
    computer, a session's move against the perfect level, a hinted room's
    move, the analysis stream) at once; table probes are timed."""
    s = Server(binary)
    try:
        lat, statuses = await probe_latencies(s.port, 4, gap=0.05)
        latency_line("quiet: a table probe", lat, statuses)
        stop = time.monotonic() + seconds
        routes = ["probe", "mainline", "computer", "session", "hints", "analysis"]
        counts = {r: {} for r in routes}
        paths = {"probe": DOTS_4X4_EMPTY, "mainline": DOTS_4X4_MAINLINE, "computer": CUBE_CLASSIC,
                 "analysis": DOTS_4X4_ANALYSIS}

        async def loop(i):
            route, src = routes[i % len(routes)], many(i % addresses)
            if route == "session":
                return await loop_session(s.port, src, i, stop, counts[route])
            if route == "hints":
                return await loop_hints(s.port, src, i, stop, counts[route])
            while time.monotonic() < stop:
                status, _, _, _ = await request(s.port, "GET", paths[route], src=src, timeout=40)
                counts[route][status] = counts[route].get(status, 0) + 1
                if status in (0, 429, 503):
                    await asyncio.sleep(0.2)

        flood = asyncio.gather(*(loop(i) for i in range(connections)))
        await asyncio.sleep(3)
        with concurrent.futures.ProcessPoolExecutor(1) as pool:
            lat, statuses = await asyncio.get_running_loop().run_in_executor(
                pool, probe_latencies_in_process, s.port, seconds - 5)
        await flood
        ended, cpu0 = time.monotonic(), s.cpu_s()
        latency_line(f"a table probe while {connections} connections from {addresses} addresses loop every route",
                     lat, statuses)
        for route in routes:
            out(f"  {route}", dict(sorted(counts[route].items(), key=str)))
        goal("table probes p99 within 50 ms", bool(lat) and pct(lat, 0.99) <= 0.050)
        settled, cpu = await cpu_settles(s, ended, cpu0, 60)
        out("  CPU after the flood", f"quiet {settled:.1f} s after, {cpu:.1f} CPU-s" if settled is not None
            else f"busy for more than 60 s, {cpu:.0f} CPU-s")
    finally:
        s.stop()


async def keepalive_after_refusal(binary, count=30):
    """A refused write (cross-site) with its body, then a second request
    on the same kept-alive connection: is the refusal marked
    `Connection: close`, and is the second request answered?"""
    s = Server(binary)
    try:
        marked = answered = 0
        body = session_body()
        for _ in range(count):
            r, w = await connect(s.port, ATTACKER)
            # The head alone: the server answers before the body comes.
            w.write((f"POST /api/v1/sessions HTTP/1.1\r\nHost: {ME}:{s.port}\r\nContent-Type: text/plain\r\n"
                     f"Content-Length: {len(body)}\r\n\r\n").encode())
            await w.drain()
            try:
                _, headers, _ = await asyncio.wait_for(read_response(r), 5)
                closing = headers.get("connection", "").lower() == "close"
                marked += closing
                if closing:
                    answered += 1  # the client knows to use a new connection
                else:
                    w.write(body + f"GET {PROBE} HTTP/1.1\r\nHost: {ME}:{s.port}\r\n\r\n".encode())
                    await w.drain()
                    status, _, _ = await asyncio.wait_for(read_response(r), 5)
                    answered += status == 200
            except (OSError, asyncio.IncompleteReadError, asyncio.TimeoutError):
                pass
            w.close()
        out(f"{count} cross-site writes refused before their body",
            f"{marked} said Connection: close; {answered} clients got their next request answered "
            f"(on the same connection, or knowing to open a new one)")
        goal("every refusal before the body says Connection: close", marked == count)
    finally:
        s.stop()


async def malformed_while_busy(binary):
    """Both search slots and the queue taken by 5x5 searches; then
    malformed positions: answered at once, or after a wait for a slot?"""
    s = Server(binary)
    try:
        busy = [asyncio.ensure_future(request(s.port, "GET", "/api/v1/probe?game=dots:5x5&position=5x5:",
                                              src=many(i), timeout=30)) for i in range(10)]
        await asyncio.sleep(0.5)
        for path in ("/api/v1/probe?game=qubic&position=XX", "/api/v1/mainline?game=dots:4x4&position=4x4:101",
                     "/api/v1/computer?game=qubic&position=XX&level=perfect",
                     "/api/v1/computer?game=dots:5x5&position=5x5:h9,9&level=classic"):
            status, _, rb, took = await request(s.port, "GET", path, timeout=30)
            kind = json.loads(rb).get("kind") if rb else None
            out(f"malformed while the searches are full: {path[:60]}", f"{status} {kind} in {ms(took)}")
            goal(f"refused at once: {path[:60]}", status == 400 and took < 1.0)
        for b in busy:
            b.cancel()
    finally:
        s.stop()


async def session_deadline(binary):
    """A session's move on dots 5x5 against the perfect level: the person's
    move is judged by a search, the computer's answer needs another. How
    long does the move take, against the documented one deadline (3 s)?"""
    s = Server(binary)
    try:
        body = session_body(game="dots:5x5", first="person", second="perfect")
        status, _, rb, _ = await request(s.port, "POST", "/api/v1/sessions", body, timeout=60)
        sid = json.loads(rb)["session"]
        mv = json.dumps({"session": sid, "move": "h0,0"}).encode()
        status, _, rb, took = await request(s.port, "POST", "/api/v1/sessions/move", mv, timeout=60)
        out("a session's move on dots 5x5 against the perfect level", f"status {status} in {took:.2f} s")
        goal("one search deadline (3 s) for the move, with a second's margin", status == 200 and took < 4.0)
    finally:
        s.stop()


SCENARIOS = {
    "slowloris": slowloris,
    "big-headers": big_headers,
    "idle": idle_keepalive,
    "slow-posts": lambda b: slow_posts(b, lambda i: ATTACKER),
    "slow-posts-many": lambda b: slow_posts(b, many),
    "shutdown": shutdown_half_header,
    "outlive": search_outlives,
    "rooms-wait": posts_block_rooms,
    "search-flood": search_flood,
    "rooms": rooms,
    "ws-memory": websocket_memory,
    "room-flood": room_flood,
    # The short form for CI: rooms with nobody connected give way after 5 s.
    "room-flood-short": lambda b: room_flood(b, empty=5, within=15),
    "spectator-flood": spectator_flood,
    "stall": stall,
    # The default clock is 300 s: a short one shows the forfeit within the
    # 20 s watched.
    "stall-clock": lambda b: stall(b, ("--move-clock", "5")),
    "cross-site": cross_site,
    "readers": leaderboard_readers,
    "small": small,
    "timeout": timeout_body,
    "refusals": refusals,
    "kill9": kill9,
    "probe-memory": probe_memory,
    "qubic": qubic,
    "drip": drip_bodies,
    "drip-get": lambda b: drip_bodies(b, method="GET", path="/api/v1/games", connections=64, addresses=1),
    "computer-flood": computer_flood,
    "every-route": every_route,
    "keepalive-refusal": keepalive_after_refusal,
    "malformed-busy": malformed_while_busy,
    "session-deadline": session_deadline,
}


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    names = sys.argv[2:] or list(SCENARIOS)
    with open("/proc/loadavg") as f:
        out("load average at start", f.read().split()[:3])
    for name in names:
        started = time.monotonic()
        print(f"## {name}", flush=True)
        asyncio.run(SCENARIOS[name](binary))
        with open("/proc/loadavg") as f:
            out(f"({name}: {time.monotonic() - started:.0f} s, load average", f"{f.read().split()[:3]})")
    if MISSED:
        raise SystemExit(f"goals missed: {', '.join(MISSED)}")


if __name__ == "__main__":
    main()
