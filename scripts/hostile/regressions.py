"""What must not regress: timeouts, refusals, durability across kill -9, probe memory."""

import asyncio
import json
import os
import random
import sqlite3
import struct
import tempfile
import time

from .common import ME, PROBE, Server, connect, many, out, read_response, record_game, request
from .rooms import WebSocket, seats


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
