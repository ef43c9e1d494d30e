"""A room's WebSocket against frames that break RFC 6455 and messages that
lie: each on a connection of its own, then the room must still play."""

import asyncio
import json
import os
import struct
import time

from .common import ME, Server, goal, many, out, request
from .rooms import WebSocket, seats


def frame(opcode, payload, fin=True, rsv=0, masked=True, length=None):
    """One frame as bytes, any header a client could send: `length` lies
    about the payload's size where given."""
    n = len(payload) if length is None else length
    b0 = (0x80 if fin else 0) | rsv << 4 | opcode
    m = 0x80 if masked else 0
    if n < 126:
        head = struct.pack("!BB", b0, m | n)
    elif n < 65536:
        head = struct.pack("!BBH", b0, m | 126, n)
    else:
        head = struct.pack("!BBQ", b0, m | 127, n)
    if not masked:
        return head + payload
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


MOVE = json.dumps({"type": "move", "move": "4"}).encode()

# (name, the bytes sent after the handshake, what a server that keeps to the
# RFC does: a Close frame with its code (1002 a protocol error, 1007 text
# that is not UTF-8, 1009 too big; RFC 6455 section 7.4.1), "close" (the
# connection ends, with or without a Close) or "answer" (a message back,
# the connection open)).
BAD_FRAMES = [
    ("an unmasked frame", frame(1, MOVE, masked=False), 1002),
    ("a reserved bit set", frame(1, MOVE, rsv=4), 1002),
    ("a reserved opcode (3)", frame(3, MOVE), 1002),
    ("a reserved control opcode (11)", frame(11, b""), 1002),
    ("a continuation with nothing to continue", frame(0, MOVE), 1002),
    ("a text frame that is not UTF-8", frame(1, b'{"type":"move","move":"\xff\xfe"}'), 1007),
    ("a ping longer than 125 bytes", frame(9, b"p" * 126), 1002),
    ("a fragmented ping", frame(9, b"p", fin=False) + frame(0, b"q"), 1002),
    ("a frame that claims 2^63 - 1 bytes", frame(1, b"", length=(1 << 63) - 1), 1009),
    ("a frame that claims 64 KiB and sends 10 bytes", frame(1, b"", length=65535) + b"0123456789", 1009),
    ("a new text frame inside a fragmented one", frame(1, b'{"type"', fin=False) + frame(1, b'{}'), 1002),
    # The library answers a Close with a code no endpoint may send by
    # ending the handshake itself (a Close without a code).
    ("a close frame with code 999", frame(8, struct.pack("!H", 999)), "close"),
    ("a close frame with a reason that is not UTF-8", frame(8, struct.pack("!H", 1000) + b"\xff"), 1007),
    ("a close frame of one byte", frame(8, b"\x03"), 1002),
    ("a 1 MiB message in 1 KiB fragments",
     frame(1, b"[", fin=False) + b"".join(frame(0, b"1," * 512, fin=False) for _ in range(1024)) + frame(0, b"1]"),
     1009),
    ("a binary frame holding a move", frame(2, MOVE), "answer"),
    ("a move split over three fragments, a ping between them",
     frame(1, MOVE[:5], fin=False) + frame(9, b"hi") + frame(0, MOVE[5:10], fin=False) + frame(0, MOVE[10:]),
     "answer"),
]

# Messages that parse as frames but lie: each must get an error message
# and change nothing.
BAD_MESSAGES = [
    b"not json",
    b"",
    b"null",
    b"[]",
    b'"move"',
    b'{"type":"move"}',
    b'{"type":"move","move":null}',
    b'{"type":"move","move":4}',
    b'{"type":"move","move":["4"]}',
    b'{"type":"move","move":{"cell":"4"}}',
    b'{"type":"move","move":"9"}',
    b'{"type":"move","move":"-1"}',
    b'{"type":"move","move":"4\\u0000"}',
    b'{"type":"move","move":"' + "\u00e9".encode() * 300 + b'"}',
    b'{"type":"move","move":1e400}',
    b'{"type":"resign"}',
    b'{"type":"MOVE","move":"4"}',
    b'{"type":"move","move":"4","move":"0"}',
    b'{"type":"move","move":"4","type":"resign"}',
    b"[" * 500 + b"]" * 500,
    b'{"type":"move","move":"' + b"a" * 2000 + b'"}',
]


async def ws_protocol(binary):
    s = Server(binary)
    try:
        status, _, rb, _ = await request(s.port, "POST", "/api/v1/rooms", b'{"game":"tictactoe"}')
        made = json.loads(rb)
        room = made["room"]
        first_token, second_token = await seats(s.port, made)
        first = await WebSocket.open(s.port, f"/api/v1/rooms/{room}/ws?token={first_token}")
        second = await WebSocket.open(s.port, f"/api/v1/rooms/{room}/ws?token={second_token}")
        state = await first.drain(1.0)
        await second.drain(0.5)
        goal("both seats joined", state is not None and state.get("players", {}).get("second", {}).get("online"))

        as_expected = 0
        for i, (name, data, expected) in enumerate(BAD_FRAMES):
            ws = await WebSocket.open(s.port, f"/api/v1/rooms/{room}/ws", src=many(i))
            await ws.drain(0.3)
            started = time.monotonic()
            try:
                ws.w.write(data)
                await ws.w.drain()
            except OSError:
                pass
            seen, code = "open", None
            deadline = started + 5
            while time.monotonic() < deadline:
                try:
                    got = await ws.recv_frame(max(0.01, deadline - time.monotonic()))
                except asyncio.TimeoutError:
                    break
                if got is None:
                    seen = "close"
                    break
                if got[0] == 8:
                    seen = "close"
                    code = struct.unpack("!H", got[1][:2])[0] if len(got[1]) >= 2 else None
                    break
                if got[0] == 1:
                    seen = "answer"
                    kind = json.loads(got[1]).get("type")
                    if kind == "error":
                        break
            took = time.monotonic() - started
            if isinstance(expected, int):
                as_expected += seen == "close" and code == expected
            else:
                as_expected += seen == expected
            out(f"  {name}", f"{seen}{f' {code}' if code else ''} in {took:.2f} s (expected {expected})")
            ws.close()
        goal("every malformed frame is answered as RFC 6455 says", as_expected == len(BAD_FRAMES))

        # The seat to move lies: each message gets an error, and nothing
        # moves. (The spectators' comings and goings above were sent out as
        # states: read them first.)
        await first.drain(1.0)
        await second.drain(0.1)
        refused, kinds = 0, {}
        for message in BAD_MESSAGES:
            await first.send_frame(1, message)
            got = await first.recv_json(5)
            if got is not None and got.get("type") == "error":
                refused += 1
                kinds[got.get("kind")] = kinds.get(got.get("kind"), 0) + 1
            else:
                out(f"  no error for {message[:40]!r}", got)
            # Under the limit of 10 messages a second.
            await asyncio.sleep(0.12)
        out("lying messages from the seat to move", f"{refused} of {len(BAD_MESSAGES)} answered with an error, by kind {kinds}")
        goal("every lying message gets an error and the connection stays", refused == len(BAD_MESSAGES))

        await first.send('{"type":"move","move":"4"}')
        after = await first.recv_json(5)
        goal("the room plays on: the first seat's move is the only move",
             after is not None and after.get("type") == "state" and after.get("history") == ["4"])
        status, _, _, _ = await request(s.port, "GET", "/api/v1/games", src=ME)
        goal("the server answers after all of it", status == 200)
        first.close()
        second.close()
    finally:
        s.stop()
        err = s.stderr_now()
        goal("no panic in the server's log", "panicked" not in err)
