"""Rooms over a minimal WebSocket client: memory, floods of rooms and of spectators, a stalled seat."""

import asyncio
import base64
import json
import os
import struct
import time

from .common import ATTACKER, ME, Server, connect, goal, many, out, request


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
