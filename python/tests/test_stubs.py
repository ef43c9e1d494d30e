"""The typing stubs name what the modules hold: classes, functions, methods."""

import ast
import inspect
import pathlib

import solvedb
import solvedb._solvedb as native
import solvedb.openspiel as sos

STUBS = pathlib.Path(solvedb.__file__).parent


def stub_names(name):
    tree = ast.parse((STUBS / name).read_text())
    names = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
        elif isinstance(node, ast.FunctionDef):
            names[node.name] = set()
        elif isinstance(node, ast.ImportFrom):
            # A re-export (`from . import x as x`) is a name of the module.
            names.update({a.asname: set() for a in node.names if a.asname == a.name})
    return names


def test_stubs_are_installed_and_match():
    assert (STUBS / "py.typed").is_file()
    stubs = stub_names("_solvedb.pyi")
    public = {n for n in dir(native) if not n.startswith("_") and callable(getattr(native, n))}
    assert set(stubs) == public
    for name, methods in stubs.items():
        if not inspect.isclass(getattr(native, name)):
            continue  # a function: its stub has no methods
        actual = {m for m in dir(getattr(native, name)) if not m.startswith("_")}
        # Dunders (`__init__`, `__len__`) are stubbed where they matter to a
        # type checker; dir() holds every class's, so only public names are
        # compared.
        public_methods = {m for m in methods if not m.startswith("_")}
        assert public_methods == actual - set(dir(Exception)), name
    open_spiel = stub_names("openspiel.pyi")
    assert set(open_spiel) == set(sos.__all__)
    for name in sos.__all__:
        assert callable(getattr(sos, name))
