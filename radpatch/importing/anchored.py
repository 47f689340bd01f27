"""A rewrite the importer picks by a bare `occurrence:` (a `set_keyword`, an insertion, a `replace`,
a `delete` of code that repeats in its scope), anchored by its context instead (issue 20, imp53): a
count shifts when a release adds a copy of the code above it; the statements next to it, like the
context of GNU patch's hunk, do not. In order: `within:` an enclosing statement (the statement
the change is in, a `for`/`if`/`with` header, innermost first) that picks it alone, which keeps
the rewrite as narrow as it was; for a step of whole statements (an insertion, a `delete`, a
`replace` of statements) a `replace` of the change with up to two simple neighbours on each side
(as importing.runs anchors a deletion; a keyword, an element or an expression keeps its narrow
form, as the importer's narrowest-rewrite rule asks); `within:` a header with the count among the matches there;
else the bare count stays. Each candidate is kept only where apply's own
runner, on the installed module, makes exactly the edit the count made, and undoes it."""

from __future__ import annotations

import ast
import tempfile
from collections.abc import Iterator
from pathlib import Path

import yaml

from radpatch.errors import RadpatchError
from radpatch.importing.import_steps import ImportStep
from radpatch.importing.scope_walk import scope_body
from radpatch.registry.loader import load_bytes
from radpatch.rewrite.runner import backward, forward, steps

HEADERS = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)
MOST = 6  # candidates tried per rewrite: the statements around it, innermost first


class _Trial:
    """The entry's steps run by apply's runner on the installed module (payloads written beside)."""

    def __init__(self, root: Path, before: str) -> None:
        self.root, self.before = root, before.encode()

    def _patch(self, chosen: list[ImportStep]):  # type: ignore[no-untyped-def]
        items = []
        for n, s in enumerate(chosen):
            fields = dict(s.keys)
            if s.op == "insert_definitions":
                name = f"p{n}.py"
                (self.root / name).write_text(s.payload or "")
                fields["payload"] = name
            items.append({s.op: fields})
        doc = {"summary": "s", "description": "d", "distribution": "d", "supported": ">=0"}
        data = yaml.safe_dump({**doc, "modules": {"m": "m"}, "rewrites": items}, sort_keys=False).encode()
        return load_bytes(self.root / "e.yaml", data)

    def run(self, chosen: list[ImportStep]) -> bytes | None:
        """What the steps make of the installed module, where they also undo to it; else None."""
        try:
            patch = self._patch(chosen)
            done = forward(patch, patch.rewrites, self.before, "m.py")
            undone = backward(patch, patch.rewrites, done, "m.py")
        except (RadpatchError, SyntaxError, ValueError):
            return None
        return done if ast.dump(ast.parse(undone)) == ast.dump(ast.parse(self.before)) else None

    def trace(self, chosen: list[ImportStep]) -> list[tuple[str, str]]:
        patch = self._patch(chosen)
        return [(was, now) for _, was, now in steps(patch, patch.rewrites, self.before, "m.py")]


def anchored(before: str, chosen: tuple[ImportStep, ...]) -> tuple[ImportStep, ...]:
    """`chosen` with each bare `occurrence:` replaced by a `within:` that picks the same code alone."""
    counted = [i for i, s in enumerate(chosen) if isinstance(s.get("occurrence"), int) and _free(s)]
    if not counted:
        return chosen
    with tempfile.TemporaryDirectory() as tmp:
        trial = _Trial(Path(tmp), before)
        want = trial.run(list(chosen))
        if want is None:
            return chosen
        texts = trial.trace(list(chosen))
        installed = {line.strip() for line in before.splitlines()}
        out = list(chosen)
        for i in counted:
            scope = str(chosen[i].get("scope"))
            around = [w for w in _around(*texts[i], scope) if w in installed]  # what a reader finds there
            nth = int(chosen[i].get("occurrence") or 0)
            # a narrow step (a keyword, an element, an expression) keeps its form: `within:` only
            narrow = not _whole(chosen[i], texts[i][0])
            # counted within a header that does not hold the code itself (one that does counts the same)
            headers = [w for w in around if w.endswith(":") and str(chosen[i].get("find") or "\n") not in w]
            tiers = (
                [_within(chosen[i], w) for w in around],
                [] if narrow else _beside(*texts[i], scope),
                [_within(chosen[i], w, n) for w in headers for n in range(1, min(nth, MOST) + 1)],
            )
            for step in (s for tier in tiers for s in tier):
                candidate = [*out[:i], step, *out[i + 1 :]]
                if trial.run(candidate) == want:
                    out = candidate
                    break
        return tuple(out)


def _free(step: ImportStep) -> bool:
    """A step that may take `within:` (not one already anchored, not a definition's header)."""
    return step.get("within") is None and step.get("header") is None


def _whole(step: ImportStep, was: str) -> bool:
    """A step of whole statements (an insertion, a `delete`, a `replace` of statements), not a
    narrower one (a keyword, an element, an expression)."""
    if step.op in ("insert_after", "insert_before", "delete"):
        return True
    head = str(step.get("find") or "").strip().splitlines()[:1]
    return step.op == "replace" and bool(head) and any(line.strip() == head[0] for line in was.splitlines())


def _within(step: ImportStep, within: str, nth: int | None = None) -> ImportStep:
    """The step picked `within:` the statement (and, with `nth`, by its count among the matches there)."""
    keys = [(k, v) for k, v in step.keys if k != "occurrence"]
    counted = () if nth is None else (("occurrence", nth),)
    return ImportStep(step.op, (*keys, ("within", within), *counted), step.payload, step.note)


def _around(was: str, now: str, scope: str) -> list[str]:
    """The statements around the first line the step changes (in `was`, the module as the steps
    before it leave it), innermost first, as `within:` writes them: a compound statement's header,
    the simple statement the change is in."""
    old, new = was.splitlines(), now.splitlines()
    first = next((k for k, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
    lines = {first, first + 1}  # 1-based: the line above the change (an insertion's anchor) and its own
    try:
        body = scope_body(ast.parse(was), scope)
    except SyntaxError:
        return []
    found: list[tuple[int, str]] = []
    for node in _statements(body or []):
        end = node.end_lineno or node.lineno
        if not any(node.lineno <= n <= end for n in lines):
            continue
        text = _header(old, node) if isinstance(node, HEADERS) else None
        if text is None and not hasattr(node, "body") and node.lineno == end:
            text = old[node.lineno - 1].strip()
        if text and text not in (t for _, t in found):
            found.append((end - node.lineno, text))
    return [t for _, t in sorted(found, key=lambda f: f[0])][:MOST]


def _header(lines: list[str], node: ast.stmt) -> str | None:
    """A compound statement's header written on one line of its own (`for x in items:`; an `elif`
    as the `if` it is)."""
    first = node.body[0].lineno  # type: ignore[attr-defined]
    if first == node.lineno:
        return None
    text = lines[node.lineno - 1].strip()
    if text.startswith("elif "):
        text = text[2:]
    try:
        ast.parse(text + "\n    pass")
    except SyntaxError:
        return None
    return text


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of a scope's body, at any depth, not inside nested definitions."""
    for block in _blocks(body):
        yield from block


NEIGHBOURS = ((0, 1), (1, 0), (1, 1), (0, 2), (2, 0), (1, 2), (2, 1), (2, 2))  # a hunk's context is 3 lines


def _beside(was: str, now: str, scope: str) -> list[ImportStep]:
    """The change as a `replace` of the statements it touches and up to two simple neighbours on
    each side (as deletions are anchored: importing.runs), smallest first. Not a compound statement
    as a neighbour: its whole body in a `find` is found again where a release copies it elsewhere
    while changing it where it was."""
    old, new = was.splitlines(True), now.splitlines(True)
    first = next((k for k, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
    tail = 0
    while tail < min(len(old), len(new)) - first and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    end, grown = len(old) - tail, len(new) - len(old)
    try:
        body = scope_body(ast.parse(was), scope)
    except SyntaxError:
        return []
    out: list[ImportStep] = []
    for block in _blocks(body or []):
        span = [(s.lineno - 1, s.end_lineno or s.lineno) for s in block]
        touched = [k for k, (a, b) in enumerate(span) if a < end and b > first]
        if touched:
            k1, k2 = touched[0], touched[-1] + 1
            if span[k1][0] > first or span[k2 - 1][1] < end or any(hasattr(block[k], "body") for k in touched):
                continue
        elif first == end and span and span[0][0] <= first <= span[-1][1]:
            k1 = k2 = sum(1 for _, b in span if b <= first)
            if k1 < len(span) and span[k1][0] < first:
                continue
        else:
            continue
        for before, after in NEIGHBOURS:
            lo, hi = k1 - before, k2 + after
            if lo < 0 or hi > len(block) or any(hasattr(block[k], "body") for k in (*range(lo, k1), *range(k2, hi))):
                continue
            a, b = span[lo][0], span[hi - 1][1]
            indent = block[lo].col_offset
            find, with_ = _dedent(old[a:b], indent), _dedent(new[a : b + grown], indent)
            out.append(ImportStep("replace", (("scope", scope), ("find", find), ("with", with_))))
    return out


def _dedent(lines: list[str], indent: int) -> str:
    return "".join(line[indent:] if line[:indent].strip() == "" else line.lstrip() for line in lines)


def _blocks(body: list[ast.stmt]) -> Iterator[list[ast.stmt]]:
    """Every block of a scope's body, at any depth, not inside nested definitions."""
    yield body
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            if getattr(node, field, None):
                yield from _blocks(getattr(node, field))
        for child in [*getattr(node, "handlers", []), *getattr(node, "cases", [])]:
            yield from _blocks(child.body)
