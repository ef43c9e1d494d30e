"""Shared fixtures: the repository's tables and an oracle over them."""

import pathlib

import pytest

import solvedb

REPO = pathlib.Path(__file__).resolve().parents[2]
TABLES = REPO / "tables"


@pytest.fixture(scope="session")
def tables() -> pathlib.Path:
    assert (TABLES / "tictactoe.sdb").is_file(), f"no tables in {TABLES}"
    return TABLES


@pytest.fixture(scope="session")
def oracle(tables: pathlib.Path) -> solvedb.Oracle:
    return solvedb.Oracle(tables)
