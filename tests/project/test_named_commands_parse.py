"""Every `radpatch ...` command the docs, and radpatch's own messages, tell a user to type is one
radpatch's command line accepts as typed: its options where click reads them (`--python` and
`--registry` before the command; the engine-start refusal had `apply NAME --python EXE`, which
click refuses with "No such option"). A command named with only its verb (`radpatch apply`) and
one written with placeholders (`NAME...`, `[OPTIONS]`, `<file>`, `{name}` of an f-string) are read
for their options only: a missing argument is not counted."""

from __future__ import annotations

import ast
import re
import shlex

import pytest

from tests.lib import REPO
from tests.lib.hints import COMMAND, usage_error

PLACEHOLDER = re.compile(r"\.\.\.|<|>|\{|\}")


def _spans() -> list[tuple[str, str]]:
    out = []
    for f in [*sorted((REPO / "docs").glob("*.md")), REPO / "README.md"]:
        out += [(f.name, c) for c in COMMAND.findall(f.read_text(encoding="utf-8"))]
    for f in sorted((REPO / "radpatch").rglob("*.py")):
        tree = ast.parse(f.read_text(encoding="utf-8"))
        parts = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
        for node in ast.walk(tree):
            text = None
            if isinstance(node, ast.JoinedStr):  # an f-string: each {value} a placeholder word
                text = "".join(v.value if isinstance(v, ast.Constant) else "{x}" for v in node.values)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in parts:
                text = node.value
            if text is not None:
                out += [(str(f.relative_to(REPO)), c) for c in COMMAND.findall(text)]
    return out


SPANS = _spans()


def _words(command: str) -> list[str] | None:
    """The command's words after `radpatch`, each placeholder made a word of its kind: `NAME...` and
    `VERSION|SPEC` their first spelling, `[--dry-run]` the option, `<file>` and `{name}` a word,
    `[OPTIONS]` after the verb none."""
    try:
        words = shlex.split(command)[1:]
    except ValueError:
        return None
    out = []
    for w in words:
        w = w.strip("[]").removesuffix("...").split("|")[0]
        if w == "OPTIONS" and out:  # `radpatch show [OPTIONS] NAME`: any options, none written
            continue
        out.append("X" if PLACEHOLDER.search(w) or not w else w)
    return None if not out or out[0] in ("X", "OPTIONS", "COMMAND") else out


def test_there_are_commands_to_read() -> None:
    assert len(SPANS) > 50 and any(where.startswith("radpatch/") for where, _ in SPANS)


@pytest.mark.parametrize(("where", "command"), SPANS, ids=[f"{w}:{c}" for w, c in SPANS])
def test_a_named_command_parses(where: str, command: str) -> None:
    words = _words(command)
    if words is None:
        pytest.skip("not one shell command")
    said = usage_error(words)
    assert said is None or said.startswith(("Missing argument", "Missing option")), f"{where}: `{command}`: {said}"
