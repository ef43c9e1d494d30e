"""Qubic: a strategy table, live searches outside it."""

import asyncio
import signal
import time

from .common import ATTACKER, Server, out, request
from .first_round import cpu_settles, search_flood


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
