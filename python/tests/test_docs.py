"""The docstring examples of the package run as doctests."""

import doctest
import os

import pyspiel

import solvedb
import solvedb.openspiel as sos
from conftest import REPO


def test_docstring_examples():
    cwd = os.getcwd()
    os.chdir(REPO)  # the examples name the tables directory "tables"
    try:
        sos.PerfectBot  # made on first use; its docstring is then found
        extraglobs = {
            "pyspiel": pyspiel,
            "oracle": solvedb.Oracle("tables"),
            "game": pyspiel.load_game("tic_tac_toe"),
        }
        attempted = 0
        for module in (solvedb, sos):
            result = doctest.testmod(module, extraglobs=extraglobs, verbose=False)
            assert result.failed == 0, module
            attempted += result.attempted
        assert attempted >= 8
    finally:
        os.chdir(cwd)
