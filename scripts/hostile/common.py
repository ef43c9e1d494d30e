"""What every scenario shares: the server under test (`Server`), raw HTTP
requests from chosen loopback addresses, latency figures and goals."""

import asyncio
import json
import os
import signal
import socket
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
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
