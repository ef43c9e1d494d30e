"""The scenarios by name, and the command that runs them."""

import asyncio
import os
import sys
import time

import hostile

from .common import ATTACKER, MISSED, many, out
from .cross_site import cross_site, leaderboard_readers, small, timeout_body
from .first_round import (
    big_headers,
    idle_keepalive,
    posts_block_rooms,
    search_flood,
    search_outlives,
    shutdown_half_header,
    slow_posts,
    slowloris,
)
from .qubic import qubic
from .regressions import kill9, probe_memory, refusals
from .rooms import room_flood, rooms, spectator_flood, stall, websocket_memory
from .second_round import (
    computer_flood,
    drip_bodies,
    every_route,
    keepalive_after_refusal,
    malformed_while_busy,
    session_deadline,
)
from .ws_protocol import ws_protocol


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
    "ws-protocol": ws_protocol,
}


def main():
    if len(sys.argv) < 2:
        raise SystemExit(hostile.__doc__)
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
