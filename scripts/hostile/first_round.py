"""The first round: slow, idle and flooding clients, searches that outlive their request, rooms, leaderboard readers, refusals, a kill -9."""

import asyncio
import concurrent.futures
import json
import random
import signal
import statistics
import time

from .common import (
    ATTACKER,
    ME,
    PROBE,
    Server,
    connect,
    hold_open,
    latency_line,
    many,
    out,
    probe_latencies,
    probe_latencies_in_process,
    read_response,
    request,
    session_body,
)
from .rooms import WebSocket, seats


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
            out("  the server's searches ran for", f"{settled:.0f} s from the post on, {cpu:.0f} CPU-s"
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
