"""plan's proofs beyond matching: the target interpreter's grammar, shadowing, dead code.

Every case runs through plan.plan as the engine runs it; the refusals must name the rewrite,
the name and the line. Interpreters are the real ones under /root/.pyenv/versions.
"""

from __future__ import annotations

import ast
import os
import stat
import sys
import textwrap
from pathlib import Path

import pytest

from radpatch.errors import EnvironmentProblem, RefusedError
from radpatch.install.environment import PythonEnv, python_env
from radpatch.prove import analysis, compile_check, names_check, placement, plan, steps
from radpatch.prove.refusal import COMPILE_HINT, NAMES_HINT, REVERSE_HINT, Refusal
from radpatch.registry.model import Operation
from radpatch.rewrite.ops.add_import import AddImport
from radpatch.rewrite.ops.insert_definitions import InsertDefinitions
from radpatch.rewrite.ops.insert_statements import InsertStatements
from radpatch.rewrite.ops.replace import Replace
from tests.lib.rewrites import patch_of, refuse

PYENV = Path("/root/.pyenv/versions")


def interpreter(prefix: str) -> PythonEnv:
    found = sorted(PYENV.glob(f"{prefix}*/bin/python"))
    if not found:
        pytest.skip(f"no Python {prefix} under {PYENV}")
    return python_env(str(found[-1]))


def run(before: str, *ops: Operation, python: PythonEnv | None = None) -> bytes:
    patch = patch_of(*ops)
    return plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), textwrap.dedent(before).encode(), python).after


def refusal(before: str, *ops: Operation, python: PythonEnv | None = None) -> str:
    with pytest.raises(RefusedError) as info:
        run(before, *ops, python=python)
    return info.value.message


MODULE = """\
    def size(spec):
        total = len(spec)
        return total
    """


# --- class 2: the wrong Python ---------------------------------------------------------------------

EXCEPT_STAR = InsertStatements(
    "size", "total = len(spec)", "try:\n    total += 0\nexcept* ValueError:\n    pass", "after"
)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="radpatch's own parser must read except* to plan it")
def test_syntax_the_target_cannot_parse_is_refused_for_that_target_only() -> None:
    why = refusal(MODULE, EXCEPT_STAR, python=interpreter("3.10"))
    assert (
        why == "t: rewrite 'r0' (reg.yaml:1): the patched mod.py does not compile for Python 3.10: "
        "invalid syntax (line 5); the rewrite's code is valid on "
        f"Python {sys.version_info[0]}.{sys.version_info[1]} (radpatch's) but not in the target's Python 3.10 grammar"
    )
    after = run(MODULE, EXCEPT_STAR, python=interpreter("3.13"))
    assert b"except* ValueError" in after


def for_(env: PythonEnv) -> str:
    """What a message says of the target: nothing when it is radpatch's own Python version."""
    return "" if env.version == sys.version_info[:2] else f" for Python {env.version[0]}.{env.version[1]}"


def test_pep695_syntax_is_refused_for_a_310_target_and_accepted_for_312_and_later() -> None:
    before = b"X = 1\n"
    after = b"X = 1\ntype Pair = tuple[int, int]\n\n\ndef first[T](items: list[T]) -> T:\n    return items[0]\n"
    old = interpreter("3.10")
    refused = compile_check.compile_refusal(after, "m.py", old, before)
    here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    plain = f"the patched m.py does not compile{for_(old)}: invalid syntax (line 2)"
    if sys.version_info >= (3, 12):  # radpatch's own Python reads PEP 695: the refusal says it is newer syntax
        expected = Refusal(
            "compile",
            f"{plain}; the rewrite's code is valid on Python {here} (radpatch's) but not in the target's "
            "Python 3.10 grammar",
            "write the rewrite's code in Python 3.10's syntax",
        )
    else:  # radpatch's 3.10/3.11 cannot read it either: the plain refusal
        expected = Refusal("compile", plain, COMPILE_HINT)
    assert refused == expected
    for new in (interpreter("3.12"), interpreter("3.13")):
        assert compile_check.compile_refusal(after, "m.py", new, before) is None
        assert names_check.names_refusal(before, after, "m.py", new) is None
        # ... and the names check runs in that grammar: a name the type parameters do not bind
        wrong = after.replace(b"return items[0]", b"return U(items[0])")
        assert names_check.names_refusal(before, wrong, "m.py", new) == Refusal(
            "names",
            f"the patched m.py would use undefined names{for_(new)}: "
            "`U` (line 6, in first()) is defined nowhere (NameError)",
            NAMES_HINT,
        )


def test_builtins_are_the_targets() -> None:
    before = b"def f():\n    return 1\n"
    after = b"def f():\n    return ExceptionGroup\n"  # a builtin from 3.11 on
    assert names_check.names_refusal(before, after, "m.py", interpreter("3.13")) is None
    py310 = interpreter("3.10")
    refused = names_check.names_refusal(before, after, "m.py", py310)
    assert refused is not None and refused.why == (
        f"the patched m.py would use undefined names{for_(py310)}: `ExceptionGroup` (line 2, in f()) is defined "
        "nowhere (NameError)"
    )


def test_a_match_statement_is_refused_for_39(tmp_path: Path) -> None:
    """The grammar check itself, on a 3.9 interpreter (which `--python` refuses up front, see below)."""
    found = sorted(PYENV.glob("3.9*/bin/python"))
    if not found:
        pytest.skip(f"no Python 3.9 under {PYENV}")
    with pytest.raises(EnvironmentProblem, match="older than the oldest Python radpatch supports"):
        python_env(str(found[-1]))
    py39 = PythonEnv(str(found[-1]), (), tmp_path, (3, 9))
    op = InsertStatements("size", "total = len(spec)", "match spec:\n    case []:\n        total = 0", "after")
    assert "does not compile for Python 3.9: invalid syntax (line 3)" in refusal(MODULE, op, python=py39)
    assert b"match spec:" in run(MODULE, op, python=interpreter("3.10"))


def test_an_interpreter_that_cannot_answer_is_an_environment_problem(tmp_path: Path) -> None:
    py2 = next(iter(sorted(PYENV.glob("2.7*/bin/python"))), None)
    if py2 is not None:
        env = PythonEnv(str(py2), (), tmp_path, (2, 7))
        with pytest.raises(EnvironmentProblem) as info:
            compile_check.compile_refusal(b"X = 1\n", "m.py", env, b"X = 1\n")
        assert info.value.message.startswith(f"the target interpreter {py2} could not compile m.py for radpatch (exit ")
        assert "3.10 or newer" in info.value.hint
    liar = tmp_path / "python3.7"
    liar.write_text("#!/bin/sh\ncat >/dev/null\necho 'Python 3.7: hello'\n")
    liar.chmod(liar.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(EnvironmentProblem) as info:
        compile_check.compile_refusal(b"X = 2\n", "m.py", PythonEnv(str(liar), (), tmp_path, (3, 7)), b"X = 1\n")
    assert "gave an unexpected answer to radpatch's compile probe" in info.value.message
    with pytest.raises(EnvironmentProblem, match="does not exist"):
        compile_check.compile_refusal(
            b"X = 3\n", "m.py", PythonEnv(str(tmp_path / "nope"), (), tmp_path, (3, 7)), b"X = 1\n"
        )


def test_the_probe_runs_isolated_from_the_targets_site_packages(tmp_path: Path) -> None:
    """-I -S: a .pth file or sitecustomize of the target environment never runs."""
    env = interpreter("3.10")
    marker = tmp_path / "ran"
    os.environ["RP_MARKER"] = str(marker)
    try:
        venv = tmp_path / "venv"
        import subprocess

        subprocess.run([env.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        site = next(venv.glob("lib/python*/site-packages"))
        (site / "evil.pth").write_text("import os; open(os.environ['RP_MARKER'], 'w').write('x')\n")
        target = python_env(str(venv / "bin" / "python"))
        marker.unlink(missing_ok=True)  # python_env's own probe is another helper's business
        assert compile_check.compile_refusal(b"X = 2\n", "m.py", target, b"X = 1\n") is None
        assert not marker.exists()
    finally:
        del os.environ["RP_MARKER"]


# --- class 3: shadowing and dead code ---------------------------------------------------------------

PAYLOAD = b"def _rp_helper(x):\n    return x + 1\n"


def helper(anchor: str = "size") -> InsertDefinitions:
    return InsertDefinitions(Path("payload.py"), PAYLOAD, ("_rp_helper",), anchor, "after")


@pytest.mark.parametrize(
    ("binding", "kind", "line"),
    [
        ("from os.path import join as _rp_helper\n", "import", 1),
        ("_rp_helper = None\n", "assignment", 1),
        ("try:\n    from fast import _rp_helper\nexcept ImportError:\n    pass\n", "import", 2),
    ],
)
def test_a_payload_definition_may_not_replace_a_name_the_module_binds(binding: str, kind: str, line: int) -> None:
    before = binding + "\n\n" + textwrap.dedent(MODULE)
    why = refusal(before, helper())
    # the operation (payload clash) or the proof step refuses, naming the rewrite, the name and the binding's line
    assert why.startswith("t: rewrite 'r0' (reg.yaml:1) on mod.py: "), why
    assert "_rp_helper" in why and f"line {line}" in why, why
    # and the proof step, which also guards definitions another way could add, says the same
    found = placement.shadowed(
        placement.placement(ast.parse(before)),
        placement.placement(ast.parse(before + "\n\ndef _rp_helper(x):\n    return x + 1\n")),
    )
    assert found and f"{kind} `_rp_helper` the module has at line {line}" in found[0], found


def test_a_payload_with_fresh_names_is_not_shadowing() -> None:
    assert b"def _rp_helper" in run(MODULE, helper())


LATER_IMPORT = """\
    def size(spec):
        total = len(spec)
        return total


    from fastsize import size
    """

METHODS = """\
    class Planner:
        def run(self, spec):
            return len(spec)

        def walk(self, spec):
            return 0

        run = walk
    """


def test_a_rewrite_in_a_function_the_module_replaces_later_is_refused() -> None:
    why = refusal(LATER_IMPORT, InsertStatements("size", "total = len(spec)", "total += 1", "after"))
    assert why == (
        "t: rewrite 'r0' (reg.yaml:1) on mod.py: it changes `size` (line 1, at module level), which line 7 replaces: "
        "the running code is the later one"
    )


def test_a_rewrite_in_a_method_the_class_replaces_is_refused_and_names_the_rewrite() -> None:
    ops = (Replace("Planner.walk", "0", "1"), Replace("Planner.run", "len(spec)", "len(spec) + 1"))
    assert refusal(METHODS, *ops) == (
        "t: rewrite 'r1' (reg.yaml:2) on mod.py: it changes `run` (line 2, in Planner), which line 8 "
        "replaces: the running code is the later one"
    )
    assert b"return 1" in run(METHODS, ops[0])  # the method that runs


def test_a_definition_its_redefinition_reads_is_alive() -> None:
    wrapped = """\
        def size(spec):
            return len(spec)


        size = cache(size)
        """
    assert b"len(spec) + 1" in run(wrapped, Replace("size", "len(spec)", "len(spec) + 1"))


def test_code_the_files_encoding_lacks_names_the_rewrite() -> None:
    latin1 = "# -*- coding: latin-1 -*-\n" + textwrap.dedent(MODULE)
    patch = patch_of(
        Replace("size", "total = len(spec)", "total = len(spec) + 1"),
        Replace("size", "return total", "return '€', total"),
    )
    with pytest.raises(RefusedError) as info:
        plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), latin1.encode("latin-1"))
    assert info.value.message.startswith(
        "t: rewrite 'r1' (reg.yaml:2) on mod.py: its code cannot be written in the file's encoding iso-8859-1: '€'"
    ), info.value.message
    assert "escapes" in info.value.hint


def test_a_clash_names_every_line_the_patched_module_binds_the_name_at() -> None:
    before = "import os\n\n\ndef f():\n    return os.sep\n"
    after = "import os\n\n\ndef f():\n    return 2\n\n\ndef f():\n    return os.sep\n"  # the added one comes first
    (why,) = placement.shadowed(placement.placement(ast.parse(before)), placement.placement(ast.parse(after)))
    assert "the def `f` the module has at line 4 (the patched module binds it at lines 4 and 8)" in why, why


def test_code_that_does_not_compile_names_the_rewrite_that_broke_it() -> None:
    err = refuse("class C:\n    x = 1\n", AddImport("import os"), InsertStatements("C", "x = 1", "return 3", "after"))
    assert "rewrite 'r1' (reg.yaml:2)" in err.message and "'return' outside function" in err.message
    assert "rewrite's code" in err.hint


def test_a_reverse_refusal_is_typed_and_names_the_rewrite_that_cannot_undo_once() -> None:
    source = "def f():\n    c(0)\n    a(1)\n    a(2)\n    a(1)\n"
    ambiguous = Replace("f", "a(1)", "a(2)", occurrence=2)  # a(2) a(2): which one was a(1)?
    patch = patch_of(Replace("f", "c(0)", "c(1)"), ambiguous)
    before = source.encode()
    after = analysis.forward(patch, patch.rewrites, before, "mod.py")
    case = steps.Case(patch, patch.rewrites, before, after, "mod.py")
    step = next(s for s in steps.STEPS if s.name == "reverse")
    refused = step.check(case)
    assert refused is not None and refused.step == "reverse" and refused.rewrite == "r1", refused
    assert refused.hint == REVERSE_HINT
    said = step.refuse(case, refused)
    assert said.message == (
        "t: rewrite 'r1' (reg.yaml:2): cannot undo: the replacement (`with`) matches 2 times in f (ambiguous): "
        "lines 4, 5"
    )
    assert said.message.count("rewrite ") == 1  # blamed once: the reason already names it
    # a reason that names no rewrite is blamed on the one given, once
    plain = Refusal("compile", "the patched mod.py does not compile: invalid syntax (line 2)", COMPILE_HINT)
    blamed = plain.blame(patch.rewrites[0])
    assert blamed.rewrite == "r0" and blamed.blame(patch.rewrites[1]) == blamed
    assert blamed.error(patch).message == (
        "t: rewrite 'r0' (reg.yaml:1): the patched mod.py does not compile: invalid syntax (line 2)"
    )
    assert plain.blame(None) == plain


PEP701 = (  # f-strings only Python 3.12's grammar reads, and what a 3.10 target reads for each
    ('f"{d["k"]}"', "f\"{d['k']}\""),
    ("f'{d['k']}'", "f'{d[\"k\"]}'"),
    ('f"{", ".join(d)}"', "f\"{', '.join(d)}\""),
    ("f'{'\\n'.join(d)}'", "f'{chr(10).join(d)}'"),
    ('f"{d["k"]!r:>{d["w"]}}"', "f\"{d['k']!r:>{d['w']}}\""),
)


@pytest.mark.skipif(sys.version_info < (3, 12), reason="radpatch's own parser must read PEP 701 f-strings")
@pytest.mark.parametrize(("newer", "older"), PEP701)
def test_a_pep701_f_string_for_a_310_target_is_refused_as_312_syntax(newer: str, older: str) -> None:
    """att21 F7b: the target's grammar decides (correctly refused), and the refusal says why and what
    to write instead; the same value in 3.10's spelling applies."""
    before = "def f(d):\n    return d\n"
    old = interpreter("3.10")
    with pytest.raises(RefusedError) as info:
        run(before, Replace("f", "d", newer, within="return d"), python=old)
    assert "Python 3.12+ syntax" in info.value.message and "Python 3.10 does not read" in info.value.message
    assert "use the other quotes" in info.value.hint
    assert older.encode() in run(before, Replace("f", "d", older, within="return d"), python=old)
