"""Cross-site writes, spam and small things."""

import asyncio
import json
import os
import signal
import struct
import subprocess
import tempfile
import time

from .common import (
    ATTACKER,
    ME,
    PROBE,
    Server,
    TABLES,
    free_port,
    many,
    ms,
    out,
    pct,
    record_game,
    request,
    session_body,
)
from .rooms import WebSocket, seats


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
