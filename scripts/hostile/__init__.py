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
in `rooms.py`), so it runs against any build, old or new. The modules:
`common` (the server under test, requests, figures), one module per round
or family of attacks, and `scenarios` (the names and the command).
"""
