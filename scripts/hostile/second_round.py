"""The second round: dripped bodies, unadmitted work, protocol slips, every route at once."""

import asyncio
import concurrent.futures
import json
import socket
import time

from .common import (
    ATTACKER,
    ME,
    PROBE,
    Server,
    connect,
    goal,
    latency_line,
    many,
    ms,
    out,
    pct,
    probe_latencies,
    probe_latencies_in_process,
    read_response,
    request,
    session_body,
)
from .first_round import DOTS_4X4_EMPTY, cpu_settles, dots_game
from .rooms import WebSocket, seats


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
