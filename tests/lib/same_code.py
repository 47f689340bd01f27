"""Generated function bodies with repeated statements, a rewrite of one of them, and a next release
that inserts, removes or edits statements at random places (issue 23/20, port52): the families that
ask whether a rewrite carried to the next release lands on the same code as GNU `patch` does.

`gnu_patch(old, new, target)` is the oracle: the unified diff old -> new (3 lines of context, as
`diff -u` writes it) applied by GNU `patch` to `target`, with its default fuzz; None when it rejects."""

from __future__ import annotations

import ast
import copy
import difflib
import random
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

from radpatch.importing.rewrites import rewrites

PATCH = shutil.which("patch")
POOL = ("log.append(total)", "total += x", "log.append(x)", "total = total * 2", "x = x + 1")
LOOPS = ("for x in items:", "for x in reversed(items):", "while total < 3:")
Body = list["str | tuple[str, Body]"]


@dataclass(frozen=True)
class Case:
    seed: int
    old: str  # release 1.0's module
    new: str  # release 1.1's module
    rewrite: str  # the entry's one rewrite, as YAML under `rewrites:`


def _body(rng: random.Random, depth: int = 0) -> Body:
    out: Body = []
    for _ in range(rng.randint(2, 5)):
        if depth == 0 and rng.random() < 0.3:
            out.append((rng.choice(LOOPS), _body(rng, 1)))
        else:
            out.append(rng.choice(POOL[:3]) if rng.random() < 0.7 else rng.choice(POOL))
    return out


def render(body: Body) -> str:
    lines = ["def f(items, log):", "    total = 0", "    x = 0"]

    def walk(b: Body, indent: str) -> None:
        for item in b:
            if isinstance(item, tuple):
                lines.append(indent + item[0])
                walk(item[1], indent + "    ")
            else:
                lines.append(indent + item)

    walk(body, "    ")
    lines.append("    return total")
    return "\n".join(lines) + "\n"


def _slots(body: Body) -> list[tuple[Body, int]]:
    """Every (block, index) a statement can be inserted at."""
    out = [(body, k) for k in range(len(body) + 1)]
    for item in body:
        if isinstance(item, tuple):
            out += _slots(item[1])
    return out


def _simple(body: Body) -> list[tuple[Body, int]]:
    """Every simple statement, as (block, index), in the order they stand in the text."""
    out: list[tuple[Body, int]] = []
    for k, item in enumerate(body):
        if isinstance(item, tuple):
            out += _simple(item[1])
        else:
            out.append((body, k))
    return out


def _mutate(rng: random.Random, body: Body, target: str) -> None:
    for _ in range(rng.randint(1, 3)):
        what = rng.random()
        simple = _simple(body)
        if what < 0.5 or len(simple) < 2:
            block, k = rng.choice(_slots(body))
            block.insert(k, target if rng.random() < 0.6 else rng.choice(POOL))
        elif what < 0.75:
            block, k = rng.choice(simple)
            if len(block) > 1:
                del block[k]
        else:
            block, k = rng.choice(simple)
            block[k] = rng.choice(POOL)


def case(seed: int) -> Case:
    rng = random.Random(seed)
    body = _body(rng)
    simple = _simple(body)
    block, k = rng.choice(simple)
    target = block[k]
    assert isinstance(target, str)
    nth = sum(1 for b, i in simple[: simple.index((block, k)) + 1] if b[i] == target)
    count = sum(1 for b, i in simple if b[i] == target)
    occurrence = f"\n      occurrence: {nth}" if count > 1 else ""
    op = rng.choice(("delete", "insert_after", "replace"))
    extra = {"delete": "", "insert_after": "\n      code: total -= 1", "replace": "\n      with: total -= 1"}[op]
    if op == "replace":  # a statement's expression: its own code, so `find` picks the statement
        extra = "\n      with: log.append(-1)" if target.startswith("log.append") else extra
    rewrite = f"  - {op}:\n      scope: f\n      find: {target}{extra}{occurrence}\n"
    old = render(body)
    changed = copy.deepcopy(body)
    _mutate(rng, changed, target)
    return Case(seed, old, render(changed), rewrite)


def gnu_patch(old: str, new: str, target: str) -> str | None:
    """GNU patch's result of the diff old -> new on `target` (default fuzz), None when it rejects a hunk."""
    assert PATCH is not None
    diff = "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), "a/m.py", "b/m.py", n=3))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.py"
        path.write_text(target)
        done = subprocess.run(
            [PATCH, "--batch", "--silent", "--no-backup-if-mismatch", "-r", "-", str(path)],
            input=diff.encode(),
            capture_output=True,
        )
        return path.read_text() if done.returncode == 0 else None


def copies_above(module: str, added: list[str]) -> str:
    """The next release: `added` at the top of the function, above every copy (each count shifts)."""
    head, rest = module.split("\n", 1)
    return head + "\n" + "".join(f"    {line}\n" for line in added) + rest


def imported_entry(before: str, after: str) -> bytes:
    """The registry `radpatch import` makes of before -> after in `toy.m` (supported ==1.0)."""
    steps = [{s.op: dict(s.keys)} for s in rewrites(before, after).steps]
    doc = {"summary": "s", "description": "d", "distribution": "toy", "supported": "==1.0"}
    return yaml.safe_dump({**doc, "modules": {"m": "toy.m"}, "rewrites": steps}, sort_keys=False).encode()


def same_ast(a: str, b: str) -> bool:
    return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
