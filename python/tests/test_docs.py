"""Every example in the package's docstrings and typing stubs runs as a
doctest, each self-contained (no names from elsewhere) and from a
directory without tables (the examples use the built-in ones)."""

import ast
import doctest
import importlib
import pathlib

import pytest

import solvedb

PACKAGE = pathlib.Path(solvedb.__file__).parent
MODULES = ["solvedb", "solvedb._boards", "solvedb.datasets", "solvedb.huggingface",
           "solvedb.openspiel", "solvedb.envs"]
STUBS = ["_solvedb.pyi", "openspiel.pyi"]


def run(test: doctest.DocTest) -> doctest.TestResults:
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    return runner.summarize(verbose=False)


@pytest.mark.parametrize("name", MODULES)
def test_module_docstring_examples(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    module = importlib.import_module(name)
    if name == "solvedb.openspiel":
        module.PerfectBot  # made on first use; its docstring is then found
    tests = [t for t in doctest.DocTestFinder().find(module) if t.examples]
    assert tests, f"{name} has no example"
    for test in tests:
        # The module's own namespace only (no extra globals): each example
        # imports what else it needs.
        result = run(test)
        assert result.failed == 0, test.name


def stub_docstrings(stub: str):
    """Each docstring of a stub, with its qualified name."""
    tree = ast.parse((PACKAGE / stub).read_text())

    def walk(node, prefix):
        for child in getattr(node, "body", []):
            if isinstance(child, (ast.ClassDef, ast.FunctionDef)):
                doc = ast.get_docstring(child, clean=True)
                if doc:
                    yield f"{prefix}{child.name}", doc
                yield from walk(child, f"{prefix}{child.name}.")

    yield from walk(tree, "")


@pytest.mark.parametrize("stub", STUBS)
def test_stub_examples(stub, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    parser = doctest.DocTestParser()
    examples = 0
    for name, doc in stub_docstrings(stub):
        # The stubs' names are the package's: run with them in scope.
        globs = {k: getattr(solvedb, k) for k in solvedb.__all__}
        test = parser.get_doctest(doc, globs, f"{stub}:{name}", stub, 0)
        if test.examples:
            examples += len(test.examples)
            assert run(test).failed == 0, name
    if stub == "_solvedb.pyi":
        assert examples >= 10
