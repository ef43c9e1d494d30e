"""The README's Python examples run, and print what their comments say."""

import contextlib
import io
import os
import re

from conftest import REPO


def test_readme_python_examples_print_what_they_say(tmp_path):
    readme = (REPO / "README.md").read_text()
    section = readme[readme.index("### From Python") :]
    section = section[: section.index("\n## ")]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) >= 4
    code = "".join(blocks)
    expected = [m.group(1) for m in re.finditer(r"^print\(.*\)\s+# (.*)$", code, re.M)]
    assert len(expected) >= 10
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(tmp_path)  # no tables here: the examples use the built-in ones
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    assert out.getvalue().splitlines() == expected
