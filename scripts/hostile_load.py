#!/usr/bin/env python3
"""Hostile, bounded loads against `solvedb serve --http` on loopback:
`scripts/hostile_load.py BINARY [SCENARIO ...]`. The scenarios are the
package `scripts/hostile/` (its `__init__` says how they work)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hostile.scenarios import main  # noqa: E402  (the path first)

if __name__ == "__main__":
    main()
