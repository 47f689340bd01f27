"""A module in a grammar newer than the Python radpatch runs on (a 3.12 target's PEP 695
`type X = ...`, generic defs, nested f-string quotes, read by radpatch on 3.10 or 3.11): the
rewrite runner indexes it with libcst's parser, rewrites the definitions the running Python can
read, and reverts byte for byte; code it cannot read is refused naming radpatch's Python.
Generated here in process (radpatch's own Python is older than 3.12 in the dev venv); and once
with radpatch installed for Python 3.10 from its wheel."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from radpatch.errors import RefusedError
from radpatch.registry.model import Operation
from radpatch.rewrite import runner
from radpatch.rewrite.ops.add_import import AddImport
from radpatch.rewrite.ops.add_parameter import AddParameter
from radpatch.rewrite.ops.insert_statements import InsertStatements
from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.ops.set_constant import SetConstant
from tests.lib.generated import examples, turn_seed
from tests.lib.processes import run
from tests.lib.rewrites import patch_of

NEWER = {  # statements only Python 3.12+ parses
    "type alias": "type Pair = tuple[int, int]\n",
    "generic def": "def ident[T](x: T) -> T:\n    return x\n",
    "generic class": "class Box[T]:\n    def get(self, item: T) -> T:\n        return item\n",
    "nested f-string quotes": 'LABEL = f"{"a" + "b"}"\n',
}
PLAIN = "import os\n\nLIMIT = 4\n\n\ndef first(p):\n    return p[0] + LIMIT\n"
OPS: dict[str, Operation] = {
    "replace": Replace("first", "p[0]", "p[1]"),
    "add_import": AddImport("import sys"),
    "set_constant": SetConstant("LIMIT", "8", "4"),
    "new constant": SetConstant("NEW", "LIMIT + 1"),
    "add_parameter": AddParameter("first", "q", "None"),
    "insert_after": InsertStatements("first", "return p[0] + LIMIT", "pass", "before"),
}

needs_older = pytest.mark.skipif(sys.version_info >= (3, 12), reason="radpatch's Python reads 3.12 syntax itself")


@needs_older
@settings(max_examples=examples(60), deadline=None, derandomize=True)
@turn_seed()
@given(st.sampled_from(sorted(NEWER)), st.sampled_from(sorted(OPS)), st.booleans())
def test_a_rewrite_of_readable_code_in_a_newer_grammar_module_applies_and_reverts(
    newer: str, kind: str, first: bool
) -> None:
    source = (NEWER[newer] + "\n\n" + PLAIN if first else PLAIN + "\n\n" + NEWER[newer]).encode()
    patch = patch_of(OPS[kind])
    after = runner.forward(patch, patch.rewrites, source, "m.py")
    assert after != source and NEWER[newer].encode() in after
    assert runner.backward(patch, patch.rewrites, after, "m.py") == source


@needs_older
def test_a_rewrite_of_the_newer_code_itself_is_refused_naming_radpatchs_python() -> None:
    source = (NEWER["type alias"] + "\n\n" + PLAIN).encode()
    patch = patch_of(Replace("<module>", "type Pair = tuple[int, int]", "type Pair = tuple[int, str]"))
    with pytest.raises(RefusedError) as info:
        runner.forward(patch, patch.rewrites, source, "m.py")
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert f"radpatch's Python {version}" in info.value.message and "newer Python" in info.value.hint


@needs_older
def test_statements_inside_a_generic_def_are_rewritten() -> None:
    source = (NEWER["generic def"] + "\n\n" + PLAIN).encode()
    patch = patch_of(InsertStatements("ident", "return x", "assert x is not None", "before"))
    after = runner.forward(patch, patch.rewrites, source, "m.py")
    assert after == source.replace(b"    return x\n", b"    assert x is not None\n    return x\n")
    assert runner.backward(patch, patch.rewrites, after, "m.py") == source


def test_a_file_no_parser_reads_is_refused_naming_both() -> None:
    patch = patch_of(AddImport("import sys"))
    with pytest.raises(RefusedError) as info:
        runner.forward(patch, patch.rewrites, b"def f(:\n    pass\n", "m.py")
    assert "does not parse as Python" in info.value.message and "libcst" in info.value.message


SCRIPT = """
import json, sys
from pathlib import Path
from packaging.specifiers import SpecifierSet
from radpatch.registry.model import Patch, Rewrite
from radpatch.rewrite import runner
from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.ops.add_import import AddImport
ops = (AddImport("import sys"), Replace("first", "p[0]", "p[1]"))
rws = tuple(Rewrite(f"r{i}", "m", None, op, f"t.yaml:{i + 1}") for i, op in enumerate(ops))
patch = Patch(name="t", summary="t", description="t", distribution="d", supported=SpecifierSet(""), obsolete=None,
              knobs=(), modules=(), rewrites=rws, source=Path("t.yaml"), digest="0")
source = Path(sys.argv[1]).read_bytes()
after = runner.forward(patch, rws, source, "m.py")
print(json.dumps({"python": list(sys.version_info[:2]), "after": after.decode(),
                  "reverted": runner.backward(patch, rws, after, "m.py") == source}))
"""


@pytest.mark.processes
@pytest.mark.network  # pip installs radpatch's dependencies for Python 3.10 from the index
def test_radpatch_on_python_310_patches_a_312_module(radpatch_wheel: Path, tmp_path: Path) -> None:
    python = Path("/root/.pyenv/versions/3.10.13/bin/python")
    if not python.exists():
        pytest.skip("no Python 3.10.13 under /root/.pyenv")
    venv = tmp_path / "venv"
    run(python, "-m", "venv", venv)
    run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", radpatch_wheel)
    module = tmp_path / "m.py"
    module.write_text(NEWER["type alias"] + NEWER["nested f-string quotes"] + "\n\n" + PLAIN)
    script = tmp_path / "s.py"
    script.write_text(textwrap.dedent(SCRIPT))
    done = subprocess.run([venv / "bin" / "python", script, module], capture_output=True, text=True, check=True)
    out = json.loads(done.stdout)
    assert out["python"] == [3, 10] and out["reverted"] is True
    assert out["after"] == module.read_text().replace(
        "import os\n", "import os\nimport sys  # radpatch: added import\n"
    ).replace("p[0]", "p[1]")
