"""From one module's source before and after a patch, the smallest structural rewrites that turn
one into the other, written as a person would write them.

Why this shape: an imported entry must survive upstream edits elsewhere in the function and read
like the diff it came from. So the module is compared as a tree of statement blocks: unchanged
statements are matched up (difflib over their syntax trees), definitions with the same name and
compound statements of the same kind are entered, and only what differs becomes a rewrite, in the
narrowest form that says it: one expression (`replace` of `f(x)`), a constant (`set_constant`),
a default (`set_default`), a parameter (`add_parameter`), a decorator, an import (`add_import`),
new definitions (`insert_definitions` with a payload), new statements next to an anchor
(`insert_after`/`insert_before`), removed ones (`delete`), and otherwise the smallest run of
statements (`replace`). Every `find` is text of the before-file and is checked to match exactly
once in its scope as the engine counts (at any depth, not inside nested definitions), after the
earlier rewrites; where it would not, it grows by a neighbouring statement, and only where that
cannot help does it carry `occurrence:` (counted in the before-file's source order).

The rewrites are simulated on the before-tree as they are chosen, so each one is chosen against
the code the engine will see when it runs.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import difflib
import io
import keyword
import re
import textwrap
import tokenize
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from radpatch.errors import Inexpressible, RadpatchError
from radpatch.importing.model import Step, Value
from radpatch.importing.statements import (
    AFTER,
    DEFS,
    Sources,
    added_comments,
    expression_hits,
    is_expression_statement,
    key,
    one_line_suite,
    scope_body,
    segment,
    start_line,
    statement_hits,
    text_of,
    whole_lines,
)


class _Ambiguous(RadpatchError):
    """No run of statements around the change matches once in the patched code, so the engine's
    proof could not find it to undo: the enclosing statement is replaced instead. Internal, under
    the one root, never shown."""

    def __init__(self) -> None:
        super().__init__("no run of statements around the change matches once")


@dataclass
class _Scope:
    qualname: str  # "<module>", "f", "Class.method"
    body: list[ast.stmt]  # the scope's body in the current (simulated) tree
    kind: str  # "module", "class", "function"
    elif_: bool = False  # the statement at hand is an `elif` (libcst holds it inside its if, not in a block)

    def child(self, name: str) -> str:
        return name if self.qualname == "<module>" else f"{self.qualname}.{name}"


_N = TypeVar("_N", bound=ast.AST)


def _tag(node: _N) -> _N:
    for n in ast.walk(node):
        setattr(n, AFTER, True)
    return node


def _ident(stmt: ast.stmt) -> tuple[str, ...]:
    """What makes two statements 'the same statement, changed': a definition's name, a compound
    statement's kind, an assignment's target, a call's callee."""
    if isinstance(stmt, DEFS):
        return ("def", stmt.name)
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        return (type(stmt).__name__, *(key(t) for t in targets))
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        return ("call", key(stmt.value.func))
    return (type(stmt).__name__,)


@dataclass
class Differ:
    src: Sources
    tree: ast.Module  # the before-tree, changed as rewrites are chosen
    pristine: ast.Module  # the before-tree as installed (occurrence is counted there)
    steps: list[Step] = field(default_factory=list)
    fallbacks: list[str] = field(default_factory=list)
    made_by: dict[int, int] = field(default_factory=dict)  # id of a statement a step inserted -> that step's index

    # --- blocks -------------------------------------------------------------------------------

    def block(self, scope: _Scope, bbody: list[ast.stmt], abody: list[ast.stmt], elif_chain: bool = False) -> None:
        ops = difflib.SequenceMatcher(
            None, [key(s) for s in bbody], [key(s) for s in abody], autojunk=False
        ).get_opcodes()
        delta = 0
        for tag, i1, i2, j1, j2 in ops:
            if tag == "equal":
                continue
            n = len(bbody)
            self.region(scope, bbody, i1 + delta, i2 + delta, abody[j1:j2])
            delta += len(bbody) - n

    def region(self, scope: _Scope, bbody: list[ast.stmt], i1: int, i2: int, new: list[ast.stmt]) -> None:
        """bbody[i1:i2] becomes `new`: pair statements that are the same one changed, the rest is
        inserted, deleted or replaced as runs."""
        ops = difflib.SequenceMatcher(
            None, [_ident(s) for s in bbody[i1:i2]], [_ident(s) for s in new], autojunk=False
        ).get_opcodes()
        delta = i1
        for tag, k1, k2, m1, m2 in ops:
            n = len(bbody)
            a, b = k1 + delta, k2 + delta
            if tag == "equal":
                for off in range(k2 - k1):
                    self.statement(scope, bbody, a + off, new[m1 + off])
            elif tag == "insert":
                self.insert(scope, bbody, a, new[m1:m2])
            elif tag == "delete":
                self.delete(scope, bbody, a, b)
            else:
                self.replace_run(scope, bbody, a, b, new[m1:m2])
            delta += len(bbody) - n

    # --- one statement, changed ----------------------------------------------------------------

    def statement(self, scope: _Scope, bbody: list[ast.stmt], i: int, a: ast.stmt) -> None:
        b = bbody[i]
        if key(b) == key(a):
            return
        if isinstance(b, DEFS) and type(b) is type(a) and not scope.elif_ and self._definable(scope, b.name):
            if self._undoable(lambda: self.definition(scope, bbody, i, a), bbody, i):
                return
            self.fallbacks.append(
                f"{scope.child(b.name)}: no smaller change is unique in the patched code; replaced the whole definition"
            )
        if (
            blocks_of_same_shape(b, a)
            and whole_lines(self.src, b)
            and self._undoable(lambda: self.compound(scope, bbody, i, a), bbody, i)
        ):
            return
        # a comment the patch writes on the changed line goes with the statement: an expression's
        # `replace` (or set_constant) keeps the line's old comment
        said = _line_rest(self.src, b) == _line_rest(self.src, a)
        if said and scope.qualname == "<module>" and scope.body is bbody and self.constant(bbody, i, a):
            return
        if said and not isinstance(b, DEFS) and self.expression(scope, bbody, i, a):
            return
        if scope.elif_:
            raise _Ambiguous()  # no find names an elif: the if it belongs to is replaced
        self.replace_run(scope, bbody, i, i + 1, [a])

    def _undoable(self, attempt: Callable[[], bool], bbody: list[ast.stmt], i: int) -> bool:
        """Run `attempt` on bbody[i]; when a change inside it cannot be said unambiguously, take
        back what it chose (rewrites and simulated tree) and answer False."""
        steps, made_by = list(self.steps), dict(self.made_by)  # a hoisted step may land before this point
        fallbacks, saved = len(self.fallbacks), copy.deepcopy(bbody[i])
        try:
            return attempt()
        except _Ambiguous:
            self.steps[:], self.made_by = steps, made_by
            del self.fallbacks[fallbacks:]
            bbody[i] = saved
            return False

    def _record_inserted(self, stmts: list[ast.stmt]) -> None:
        """The statements the last step put in (at any depth) came from it."""
        for s in stmts:
            for n in ast.walk(s):
                if isinstance(n, ast.stmt):
                    self.made_by[id(n)] = len(self.steps) - 1

    def _earlier_slot(self, hits: list[tuple[list[ast.stmt], int]], n: int) -> int | None:
        """Where a rewrite of a run must go so that it runs before the steps of this entry that
        inserted its other matches (code moved up: inserted above, deleted below). The engine
        counts `occurrence:` in the installed file and follows only rewrites of the same pattern,
        so the rewrite must run while the run is still unique. None: the other matches were not
        inserted by this entry's steps."""
        made = []
        others = 0
        for block, i in hits:
            run = block[i : i + n]
            if all(getattr(s, AFTER, False) for s in run):
                made += [self.made_by.get(id(s)) for s in run]
            else:
                others += 1
        if others != 1 or not made or None in made:
            return None
        return min(m for m in made if m is not None)

    def _emit_at(self, k: int, step: Step) -> None:
        self.steps.insert(k, step)
        self.made_by = {node: (m + 1 if m >= k else m) for node, m in self.made_by.items()}

    def _definable(self, scope: _Scope, name: str) -> bool:
        return sum(1 for s in scope.body if isinstance(s, DEFS) and s.name == name) == 1

    def definition(self, scope: _Scope, bbody: list[ast.stmt], i: int, a: ast.stmt) -> bool:
        b = bbody[i]
        assert isinstance(b, DEFS) and isinstance(a, DEFS)
        qual = scope.child(b.name)
        if _signature(b) != _signature(a):
            steps = _signature_steps(self.src, qual, b, a)
            if steps is None:
                self.fallbacks.append(f"{qual}: signature change no operation expresses; replaced the whole definition")
                self.replace_run(scope, bbody, i, i + 1, [a])
                return True
            self.steps.extend(steps)
            _copy_signature(b, a)
        if [key(d) for d in b.decorator_list] != [key(d) for d in a.decorator_list]:
            steps = _decorator_steps(self.src, qual, b.decorator_list, a.decorator_list)
            if steps is None:
                self.fallbacks.append(f"{qual}: decorator change no operation expresses; replaced the whole definition")
                self.replace_run(scope, bbody, i, i + 1, [a])
                return True
            self.steps.extend(steps)
            b.decorator_list = [_tag(d) for d in a.decorator_list]
        kind = "class" if isinstance(b, ast.ClassDef) else "function"
        self.block(_Scope(qual, b.body, kind), b.body, a.body)
        return True

    def compound(self, scope: _Scope, bbody: list[ast.stmt], i: int, a: ast.stmt) -> bool:
        """An if/for/while/with/try of the same shape: its header by expression, then its blocks."""
        b = bbody[i]
        hb, ha = _header(b), _header(a)
        if key(hb) != key(ha):
            chain = smallest_difference(hb, ha)
            if not chain or not self._replace_expression(scope, chain, force=True, swap=(bbody, i, a)):
                return False
            _copy_header(b, a)
        for bb, ab, is_elif in zip(_blocks(b), _blocks(a), _elif_flags(self.src, b, a)):
            if is_elif:  # an `elif`: libcst holds it as part of the if, not as a statement of a block
                self.statement(dataclasses.replace(scope, elif_=True), bb, 0, ab[0])
            else:
                self.block(dataclasses.replace(scope, elif_=False), bb, ab)
        return True

    def constant(self, bbody: list[ast.stmt], i: int, a: ast.stmt) -> bool:
        b = bbody[i]
        if not (_is_constant(b) and _is_constant(a)):
            return False
        assert isinstance(b, ast.Assign) and isinstance(a, ast.Assign)
        name = b.targets[0].id  # type: ignore[attr-defined]
        if name != a.targets[0].id or sum(1 for s in self.tree.body if name in _binds(s)) != 1:  # type: ignore[attr-defined]
            return False
        old, new = segment(self.src, b.value), segment(self.src, a.value)
        if old is None or new is None or "\n" in old or "\n" in new:
            return False
        self.steps.append(Step("set_constant", (("name", name), ("from", old), ("value", new))))
        bbody[i] = _tag(a)
        return True

    def expression(self, scope: _Scope, bbody: list[ast.stmt], i: int, a: ast.stmt) -> bool:
        b = bbody[i]
        if not whole_lines(self.src, b) or type(b) is not type(a):
            return False
        chain = smallest_difference(b, a)
        if len(chain) == 1 and isinstance(chain[0][0], (ast.Name, ast.Constant)):
            return False  # `find: 1` says less than the statement it is in: `self.limit = 1`
        if not chain or not self._replace_expression(scope, chain, force=False, swap=(bbody, i, a)):
            return False
        bbody[i] = _tag(a)
        return True

    def _replace_expression(
        self,
        scope: _Scope,
        chain: list[tuple[ast.expr, ast.expr]],
        force: bool,
        swap: tuple[list[ast.stmt], int, ast.stmt],
    ) -> bool:
        """`replace` of one expression, growing to enclosing expressions until it is unique in the
        scope, before and after (the engine's proof finds `with` to undo it); with `force`, the
        smallest one with `occurrence:` when none is."""
        block, i, new = swap
        later: list[int] = []
        chain = [(eb, ea) for eb, ea in chain if not _concatenated(self.src, eb)]
        for eb, ea in chain:
            old = block[i]
            block[i] = new
            later.append(len(expression_hits(scope.body, ea)))
            block[i] = old
            if len(expression_hits(scope.body, eb)) == 1 and later[-1] == 1:
                return self._emit_expression(scope, eb, ea, None, block[i], new)
        for (eb, ea), after in zip(chain, later):
            if force and after == 1:
                return self._emit_expression(scope, eb, ea, self._occurrence_of_expression(scope, eb), block[i], new)
        return False

    def _emit_expression(
        self, scope: _Scope, b: ast.expr, a: ast.expr, occurrence: int | None, stmt: ast.stmt, target: ast.stmt
    ) -> bool:
        old, new = segment(self.src, b), _grouped(self.src, a)
        if old is None or new is None:
            return False
        new = _fitting(self.src, stmt, b, new, target)
        if new is None:
            return False
        keys: list[tuple[str, Value]] = [("scope", scope.qualname), ("find", old), ("with", new)]
        if occurrence:
            keys.append(("occurrence", occurrence))
        self.steps.append(Step("replace", tuple(keys)))
        return True

    def _occurrence_of_expression(self, scope: _Scope, b: ast.expr) -> int | None:
        hits = expression_hits(scope.body, b)
        at = next((n for n, e in enumerate(hits, 1) if e is b), None)
        return at

    # --- runs of statements ---------------------------------------------------------------------

    def insert(self, scope: _Scope, bbody: list[ast.stmt], i: int, new: list[ast.stmt]) -> None:
        if self._definitions(scope, bbody, i, new) or self._imports(scope, bbody, i, new):
            bbody[i:i] = [_tag(s) for s in new]
            return
        code = text_of(self.src, new, comments=True)
        before = self._anchor(scope, bbody, i - 1, backward=True, new=(i, new)) if i > 0 else None
        after = self._anchor(scope, bbody, i, backward=False, new=(i, new)) if i < len(bbody) else None
        pick = min((c for c in (before, after) if c is not None), key=lambda c: len(c[1]), default=None)
        if pick is None:
            raise Inexpressible(f"no statement to anchor the insertion in {scope.qualname} at")
        if (
            before is not None
            and len(before[1]) <= len(pick[1])  # never a wider `find` than the insertion's, for a comment
            and added_comments(self.src, new[0])
            and self._insert_with_comment(scope, bbody, i, new, code, before)
        ):
            return
        where, find, occurrence = pick
        keys: list[tuple[str, Value]] = [("scope", scope.qualname), ("find", find), ("code", code)]
        if occurrence:
            keys.append(("occurrence", occurrence))
        self.steps.append(Step(where, tuple(keys)))
        bbody[i:i] = [_tag(s) for s in new]
        self._record_inserted(new)

    def _insert_with_comment(
        self,
        scope: _Scope,
        bbody: list[ast.stmt],
        i: int,
        new: list[ast.stmt],
        code: str,
        anchor: tuple[str, str, int | None],
    ) -> bool:
        """New statements under a comment the patch adds (`# why` above `x = 1`), said as a `replace`
        of the statement above them by itself and them: the engine writes the comment lines that
        open an insertion's `code` as nothing (it parses them as a module header), while comment
        lines between statements of `with` are written. `anchor` is the insertion's own above it.
        False when the engine would move a comment after it (a replace of one line by several keeps
        the old last line's comment on the new last one) and no statement below can end both sides."""
        last, end = bbody[i - 1], new[-1]
        _, find, occurrence = anchor
        tail = ""
        rests = (_line_rest(self.src, last), _line_rest(self.src, end))
        if None not in rests and rests[0] != rests[1]:
            # the statement below, right below the anchor in the installed file, ends both sides
            if occurrence or i == len(bbody) or start_line(bbody[i]) != (last.end_lineno or 0) + 1:
                return False
            tail = text_of(self.src, [bbody[i]])
        keys: list[tuple[str, Value]] = [("scope", scope.qualname), ("find", find + tail), ("with", find + code + tail)]
        if occurrence:
            keys.append(("occurrence", occurrence))
        self.steps.append(Step("replace", tuple(keys)))
        bbody[i:i] = [_tag(s) for s in new]
        self._record_inserted(new)
        return True

    def _anchor(
        self, scope: _Scope, bbody: list[ast.stmt], k: int, backward: bool, new: tuple[int, list[ast.stmt]]
    ) -> tuple[str, str, int | None] | None:
        """(insert_after|insert_before, find, occurrence) anchored at bbody[k], grown away from the
        insertion point until it is unique."""
        lo, hi = _atomic(self.src, bbody, k, k + 1)
        while True:
            run = bbody[lo:hi]
            hits = statement_hits(scope.body, run)
            at, stmts = new
            bbody[at:at] = stmts
            after = statement_hits(scope.body, run)  # the inverse finds the anchor again in the patched code
            del bbody[at : at + len(stmts)]
            if len(hits) == 1 and len(after) == 1:
                return ("insert_after" if backward else "insert_before", text_of(self.src, run), None)
            if backward and lo > 0:
                lo, hi = _atomic(self.src, bbody, lo - 1, hi)
            elif not backward and hi < len(bbody):
                lo, hi = _atomic(self.src, bbody, lo, hi + 1)
            else:
                occurrence = self._occurrence(scope, bbody, lo, hi)
                if occurrence is None:
                    return None
                return ("insert_after" if backward else "insert_before", text_of(self.src, run), occurrence)

    def delete(self, scope: _Scope, bbody: list[ast.stmt], i1: int, i2: int) -> None:
        if i2 < len(bbody):
            lo, hi = _atomic(self.src, bbody, i1, i2)
            if (lo, hi) == (i1, i2):
                # delete's inverse finds its own marker comment, so only the match itself must be unique
                hits = statement_hits(scope.body, bbody[i1:i2])
                many = len(hits) != 1
                earlier = self._earlier_slot(hits, i2 - i1) if many else None
                if earlier is not None:
                    find = text_of(self.src, bbody[i1:i2])
                    self._emit_at(earlier, Step("delete", (("scope", scope.qualname), ("find", find))))
                    del bbody[i1:i2]
                    return
                occurrence = self._occurrence(scope, bbody, i1, i2) if many else None
                if not many or occurrence:
                    keys: list[tuple[str, Value]] = [
                        ("scope", scope.qualname),
                        ("find", text_of(self.src, bbody[i1:i2])),
                    ]
                    if occurrence:
                        keys.append(("occurrence", occurrence))
                    self.steps.append(Step("delete", tuple(keys)))
                    del bbody[i1:i2]
                    return
        # at a block's end `delete` leaves a `pass`; say it as the run with its neighbour, without it
        self.replace_run(scope, bbody, i1, i2, [])

    def replace_run(self, scope: _Scope, bbody: list[ast.stmt], i1: int, i2: int, new: list[ast.stmt]) -> None:
        lo, hi = _atomic(self.src, bbody, i1, i2)
        if lo == hi:  # nothing old in the run: it needs a neighbour to stand for
            lo, hi = _atomic(self.src, bbody, lo - 1, hi) if lo > 0 else _atomic(self.src, bbody, lo, hi + 1)
        while True:
            run = bbody[lo:hi]
            if not new and lo == i1 and hi == i2 or not run:
                lo, hi = _atomic(self.src, bbody, lo - 1, hi) if lo > 0 else _atomic(self.src, bbody, lo, hi + 1)
                if lo == hi or hi > len(bbody):
                    raise Inexpressible(f"a block of {scope.qualname} would become empty")
                continue
            replacement = [*bbody[lo:i1], *new, *bbody[i2:hi]]
            as_expression = is_expression_statement(run) and is_expression_statement(replacement)
            count = (
                len(expression_hits(scope.body, run[0].value))  # type: ignore[attr-defined]
                if as_expression
                else len(statement_hits(scope.body, run))
            )
            saved = bbody[lo:hi]
            bbody[lo:hi] = replacement
            later = (
                len(expression_hits(scope.body, replacement[0].value))  # type: ignore[attr-defined]
                if as_expression
                else len(statement_hits(scope.body, replacement))
                if replacement
                else 1
            )
            bbody[lo : lo + len(replacement)] = saved
            if count == 1 and later == 1 or (lo == 0 and hi == len(bbody)):
                break
            grown = _atomic(self.src, bbody, lo, hi + 1) if hi < len(bbody) else _atomic(self.src, bbody, lo - 1, hi)
            lo, hi = grown
        if later != 1:
            raise _Ambiguous()
        occurrence = None
        if count != 1:
            occurrence = self._occurrence(scope, bbody, lo, hi)
            if occurrence is None:
                raise Inexpressible(f"the code to replace in {scope.qualname} is not unique and cannot be counted")
        # the engine merges equal counts statement by statement, and a one-line `from x import a` merged
        # with a parenthesised multi-line one loses its parentheses: write such an import on one line
        flat = {
            id(n)
            for o, n in zip(bbody[lo:hi], replacement)
            if len(bbody[lo:hi]) == len(replacement)
            and isinstance(o, ast.ImportFrom)
            and isinstance(n, ast.ImportFrom)
            and o.lineno == o.end_lineno
            and n.lineno != n.end_lineno
        }
        with_text = _join(self.src, bbody[lo:i1], new, bbody[i2:hi], flat)
        keys: list[tuple[str, Value]] = [
            ("scope", scope.qualname),
            ("find", text_of(self.src, bbody[lo:hi])),
            ("with", with_text),
        ]
        if occurrence:
            keys.append(("occurrence", occurrence))
        self.steps.append(Step("replace", tuple(keys)))
        bbody[i1:i2] = [_tag(s) for s in new]
        self._record_inserted(new)

    def _occurrence(self, scope: _Scope, bbody: list[ast.stmt], lo: int, hi: int) -> int | None:
        """The run's number among its matches, in the installed file's source order (the engine's
        documented count); None when the run is not code of the installed file."""
        run = bbody[lo:hi]
        if any(getattr(s, AFTER, False) for s in run):
            return None
        body = scope_body(self.pristine, scope.qualname)
        if body is None:
            return None
        hits = statement_hits(body, run)
        line = run[0].lineno
        return next((n for n, (block, i) in enumerate(hits, 1) if block[i].lineno == line), None)

    # --- new definitions and imports -------------------------------------------------------------

    def _definitions(self, scope: _Scope, bbody: list[ast.stmt], i: int, new: list[ast.stmt]) -> bool:
        if (
            scope.kind not in ("module", "class")
            or bbody is not scope.body
            or not all(isinstance(s, DEFS) for s in new)
        ):
            return False
        names = [s.name for s in new]  # type: ignore[attr-defined]
        bound = {n for s in scope.body for n in _binds(s)}
        if len(set(names)) != len(names) or bound & set(names) or any(not whole_lines(self.src, s) for s in new):
            return False
        anchor = None
        if i > 0 and isinstance(bbody[i - 1], DEFS) and self._definable(scope, bbody[i - 1].name):  # type: ignore[attr-defined]
            anchor = ("after", scope.child(bbody[i - 1].name) if scope.kind == "class" else bbody[i - 1].name)  # type: ignore[attr-defined]
        elif i < len(bbody) and isinstance(bbody[i], DEFS) and self._definable(scope, bbody[i].name):  # type: ignore[attr-defined]
            anchor = ("before", scope.child(bbody[i].name) if scope.kind == "class" else bbody[i].name)  # type: ignore[attr-defined]
        if anchor is None:
            return False
        if scope.kind == "class" and any(_multiline_string(s) for s in new):
            # the engine indents every line of a payload it puts into a class, the lines inside a
            # multi-line string too (changing the string): such methods go in as statements
            # (insert_after/insert_before), which keep a string's lines as written
            return False
        gap = "\n\n\n" if scope.kind == "module" else "\n\n"
        payload = gap.join(text_of(self.src, [s], comments=True).rstrip("\n") for s in new) + "\n"
        self.steps.append(Step("insert_definitions", (("payload", ", ".join(names)), anchor), payload=payload))
        return True

    def _imports(self, scope: _Scope, bbody: list[ast.stmt], i: int, new: list[ast.stmt]) -> bool:
        if scope.kind != "module" or bbody is not scope.body:
            return False
        if not all(isinstance(s, (ast.Import, ast.ImportFrom)) and whole_lines(self.src, s) for s in new):
            return False
        if any(isinstance(s, ast.ImportFrom) and s.module == "__future__" for s in new):
            return False
        if i != _after_imports(bbody) or any(_already_imports(bbody, s) for s in new):
            return False
        for s in new:
            comment = _line_rest(self.src, s)  # the patch's own word on the line: add_import writes it too
            text = f"{ast.unparse(s)}  {comment}" if comment and comment.startswith("#") else ast.unparse(s)
            self.steps.append(Step("add_import", (("import", text),)))
        return True


# --- helpers ----------------------------------------------------------------------------------


def _line_rest(src: Sources, stmt: ast.stmt) -> str | None:
    """What follows a simple statement on its last line (a comment), None for a compound one: the
    engine keeps that text of a replaced run's last line, so it must be the same on both sides."""
    if any(isinstance(getattr(stmt, f, None), list) for f in _BLOCK_FIELDS):
        return None
    line = src.lines_of(stmt)[(stmt.end_lineno or stmt.lineno) - 1].encode()
    return line[stmt.end_col_offset or 0 :].decode("utf-8", "surrogateescape").strip()


def _multiline_string(stmt: ast.stmt) -> bool:
    """Whether a string literal (or f-string) of the statement spans lines."""
    return any(
        isinstance(n, (ast.Constant, ast.JoinedStr))
        and (isinstance(n, ast.JoinedStr) or isinstance(n.value, (str, bytes)))
        and (n.end_lineno or n.lineno) > n.lineno
        for n in ast.walk(stmt)
    )


def _concatenated(src: Sources, node: ast.expr) -> bool:
    """A string written as several literals (`"a" f"{b}"`): no expression `find` matches it whole
    (the engine sees one f-string where libcst holds a concatenation), so the enclosing one is used."""
    if not isinstance(node, ast.JoinedStr) and not (
        isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))
    ):
        return False
    text = segment(src, node)
    if text is None:
        return True
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(f"(\n{textwrap.dedent(text).strip()}\n)").readline))
    except (tokenize.TokenError, SyntaxError):
        return True
    kinds = {tokenize.STRING, getattr(tokenize, "FSTRING_START", -1)}
    return sum(1 for t in tokens if t.type in kinds) > 1


def _grouped(src: Sources, node: ast.expr) -> str | None:
    """The expression's text with the grouping parentheses the file puts around it (`(a and b)`),
    so the replacement keeps the patch's bytes; not a call's or a tuple's own parentheses."""
    text = segment(src, node)
    if text is None or node.end_lineno is None or node.end_col_offset is None:
        return text
    lines = src.lines_of(node)
    before = lines[node.lineno - 1].encode()[: node.col_offset].decode("utf-8", "surrogateescape").rstrip()
    after = lines[node.end_lineno - 1].encode()[node.end_col_offset :].decode("utf-8", "surrogateescape").lstrip()
    if before.endswith("(") and after.startswith(")"):
        ahead = before[:-1].rstrip()
        word = re.search(r"[A-Za-z_]\w*$", ahead)
        if (
            not ahead
            or (word is not None and keyword.iskeyword(word.group()))
            or not (ahead[-1].isalnum() or ahead[-1] in "_)]}'\"")
        ):
            return f"({text})"
    return text


def _fitting(src: Sources, stmt: ast.stmt, old: ast.expr, new: str, target: ast.stmt) -> str | None:
    """`new` as it must be written to stand where `old` stands in `stmt` and give `target`: as is, or
    in parentheses where the operators around it bind tighter (`not (a and b)`); None if neither."""
    lines = [ln.encode() for ln in src.lines_of(stmt)]
    first, last = start_line(stmt), stmt.end_lineno or stmt.lineno
    if old.end_lineno is None or old.end_col_offset is None:
        return None
    for text in (new, f"({new})"):
        head = b"\n".join(lines[first - 1 : old.lineno - 1] + [lines[old.lineno - 1][: old.col_offset]])
        tail = b"\n".join([lines[old.end_lineno - 1][old.end_col_offset :]] + lines[old.end_lineno : last])
        code = (head + text.encode() + tail).decode("utf-8", "surrogateescape")
        try:
            got = ast.parse(textwrap.dedent(code)).body
        except SyntaxError:
            continue
        if len(got) == 1 and key(_header(got[0])) == key(_header(target)):
            return text
    return None


def _after_imports(body: list[ast.stmt]) -> int:
    """Where add_import puts a line: after the last import before the first def/class (else after
    the docstring), as the engine's ops/imports.after_imports counts top-level statements."""
    at = 0
    for i, s in enumerate(body):
        if isinstance(s, DEFS) or _binds(s) and not isinstance(s, (ast.Import, ast.ImportFrom)):
            break
        if isinstance(s, (ast.Import, ast.ImportFrom)) or (
            i == 0 and isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)
        ):
            at = i + 1
    return at


def _aliases(s: ast.stmt) -> set[tuple[str | None, int, str, str | None]]:
    if isinstance(s, ast.Import):
        return {(None, 0, a.name, a.asname) for a in s.names}
    if isinstance(s, ast.ImportFrom):
        return {(s.module, s.level, a.name, a.asname) for a in s.names}
    return set()


def _already_imports(body: list[ast.stmt], s: ast.stmt) -> bool:
    have: set[tuple[str | None, int, str, str | None]] = set()
    for t in body:
        have |= _aliases(t)
    names = {n for t in body if not isinstance(t, (ast.Import, ast.ImportFrom)) for n in _binds(t)}
    return _aliases(s) <= have or bool(names & _binds(s))


def _binds(s: ast.stmt) -> set[str]:
    if isinstance(s, DEFS):
        return {s.name}
    if isinstance(s, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in s.names}
    if isinstance(s, ast.Assign):
        return {t.id for t in s.targets if isinstance(t, ast.Name)}
    if isinstance(s, (ast.AnnAssign, ast.AugAssign)) and isinstance(s.target, ast.Name):
        return {s.target.id}
    return set()


def _is_constant(s: ast.stmt) -> bool:
    return isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)


def _atomic(src: Sources, body: list[ast.stmt], lo: int, hi: int) -> tuple[int, int]:
    """Widen [lo, hi) so no statement outside it shares a line with one inside (`a = 1; b = 2`)."""
    lo, hi = max(lo, 0), min(hi, len(body))
    while lo > 0 and lo < len(body) and body[lo - 1].end_lineno == _first_line(body[lo]) and not _mixed(body, lo):
        lo -= 1
    while 0 < hi < len(body) and body[hi - 1].end_lineno == _first_line(body[hi]) and not _mixed(body, hi):
        hi += 1
    return lo, hi


def _mixed(body: list[ast.stmt], i: int) -> bool:
    """Statements from the two files never share a line of text."""
    return bool(getattr(body[i - 1], AFTER, False)) != bool(getattr(body[i], AFTER, False))


def _first_line(s: ast.stmt) -> int:
    decorators = getattr(s, "decorator_list", [])
    return min([s.lineno, *(int(d.lineno) for d in decorators)])


def _join(src: Sources, head: list[ast.stmt], new: list[ast.stmt], tail: list[ast.stmt], flat: set[int]) -> str:
    parts = [
        ast.unparse(run[0]) + "\n" if id(run[0]) in flat else text_of(src, run)
        for run in _runs([*head, *new, *tail], flat)
    ]
    return "".join(parts)


def _runs(stmts: list[ast.stmt], alone: set[int]) -> list[list[ast.stmt]]:
    """Consecutive statements from the same file (their text comes from one place); those in
    `alone` each on their own."""
    out: list[list[ast.stmt]] = []
    for s in stmts:
        if (
            out
            and bool(getattr(out[-1][-1], AFTER, False)) == bool(getattr(s, AFTER, False))
            and s.lineno > (out[-1][-1].end_lineno or 0)
            and id(s) not in alone
            and id(out[-1][-1]) not in alone
        ):
            out[-1].append(s)
        else:
            out.append([s])
    return out


_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def _header(s: ast.stmt) -> ast.stmt:
    h = copy.copy(s)
    for f in _BLOCK_FIELDS:
        if hasattr(h, f):
            setattr(h, f, [])
    return h


def _copy_header(b: ast.stmt, a: ast.stmt) -> None:
    for f in b._fields:
        if f not in _BLOCK_FIELDS:
            value = getattr(a, f)
            setattr(b, f, _tag(value) if isinstance(value, ast.AST) else value)


def _blocks(s: ast.stmt) -> list[list[ast.stmt]]:
    out = []
    for f in ("body", "orelse", "finalbody"):
        v = getattr(s, f, None)
        if isinstance(v, list):
            out.append(v)
    for h in getattr(s, "handlers", []):
        out.append(h.body)
    return out


def blocks_of_same_shape(b: ast.stmt, a: ast.stmt) -> bool:
    if (
        type(b) is not type(a)
        or isinstance(b, DEFS)
        or not isinstance(b, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try))
    ):
        return False
    if one_line_suite(b) or one_line_suite(a):
        return False
    lb, la = _blocks(b), _blocks(a)
    if [len(x) > 0 for x in lb] != [len(x) > 0 for x in la]:
        return False
    return not (
        isinstance(b, ast.Try)
        and isinstance(a, ast.Try)
        and [key(_handler_head(h)) for h in b.handlers] != [key(_handler_head(h)) for h in a.handlers]
    )


def _handler_head(h: ast.excepthandler) -> ast.AST:
    c = copy.copy(h)
    c.body = []  # type: ignore[attr-defined]
    return c


def _elif_flags(src: Sources, b: ast.stmt, a: ast.stmt) -> list[bool]:
    """Which of the blocks are an `elif` on both sides (one If standing for the rest of the chain)."""
    flags = [False] * len(_blocks(b))
    if isinstance(b, ast.If) and isinstance(a, ast.If) and len(flags) > 1:
        flags[1] = _is_elif(src, b) and _is_elif(src, a)
        if _is_elif(src, b) != _is_elif(src, a):
            flags[1] = False
    return flags


def _is_elif(src: Sources, s: ast.If) -> bool:
    if len(s.orelse) != 1 or not isinstance(s.orelse[0], ast.If):
        return False
    line = src.lines_of(s.orelse[0])[s.orelse[0].lineno - 1].lstrip()
    return line.startswith("elif")


def smallest_difference(b: ast.AST, a: ast.AST) -> list[tuple[ast.expr, ast.expr]]:
    """The pairs of expressions that hold every difference between b and a, innermost first (a lone
    name or constant gives way to the expression around it: `y > 3`, not `3`). Empty when the
    difference is not inside one expression, or is a name being bound."""
    path = _difference_path(b, a)
    out: list[tuple[ast.expr, ast.expr]] = []
    for eb, ea in reversed(path):
        if not (isinstance(eb, ast.expr) and isinstance(ea, ast.expr)):
            if isinstance(eb, ast.stmt):
                break
            continue  # an operator, keyword or argument list: the expression holding it
        if not (_loadable(eb) and _loadable(ea)):
            return []
        if isinstance(eb, (ast.JoinedStr, ast.FormattedValue)) or isinstance(ea, (ast.JoinedStr, ast.FormattedValue)):
            out = []  # inside an f-string only the whole f-string is an expression to libcst
        if not isinstance(eb, (ast.FormattedValue, ast.Slice, ast.Starred)) and not isinstance(
            ea, (ast.FormattedValue, ast.Slice, ast.Starred)
        ):
            out.append((eb, ea))
    if (
        len(out) > 1
        and isinstance(out[0][0], (ast.Name, ast.Constant))
        and isinstance(out[0][1], (ast.Name, ast.Constant))
    ):
        out = out[1:]
    return out


def _loadable(e: ast.expr) -> bool:
    ctx = getattr(e, "ctx", None)
    return ctx is None or isinstance(ctx, ast.Load)


def _difference_path(b: ast.AST, a: ast.AST) -> list[tuple[ast.AST, ast.AST]]:
    """From (b, a) down, the pairs of nodes on the one path holding all differences."""
    path = [(b, a)]
    while True:
        x, y = path[-1]
        if type(x) is not type(y):
            return path
        diffs: list[tuple[ast.AST, ast.AST]] = []
        for f in x._fields:
            vx, vy = getattr(x, f, None), getattr(y, f, None)
            if isinstance(vx, list) and isinstance(vy, list):
                if len(vx) != len(vy):
                    return path
                diffs += [
                    (p, q)
                    for p, q in zip(vx, vy)
                    if not (isinstance(p, ast.AST) and isinstance(q, ast.AST) and key(p) == key(q))
                ]
            elif isinstance(vx, ast.AST) and isinstance(vy, ast.AST):
                if key(vx) != key(vy):
                    diffs.append((vx, vy))
            elif vx != vy:
                return path
        if len(diffs) != 1 or not all(isinstance(n, ast.AST) for n in diffs[0]):
            return path
        path.append(diffs[0])


def _signature(d: ast.stmt) -> str:
    c = copy.copy(d)
    c.body = []  # type: ignore[attr-defined]
    c.decorator_list = []  # type: ignore[attr-defined]
    return key(c)


def _copy_signature(b: ast.stmt, a: ast.stmt) -> None:
    for f in b._fields:
        if f not in ("body", "decorator_list"):
            value = getattr(a, f)
            setattr(b, f, _tag(value) if isinstance(value, ast.AST) else value)


def _signature_steps(src: Sources, qual: str, b: ast.stmt, a: ast.stmt) -> list[Step] | None:
    """set_default / add_parameter when that is all that changed, else None."""
    if isinstance(b, ast.ClassDef) or isinstance(a, ast.ClassDef) or type(b) is not type(a):
        return None
    assert isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)) and isinstance(
        a, (ast.FunctionDef, ast.AsyncFunctionDef)
    )
    others = [f for f in b._fields if f not in ("body", "decorator_list", "args")]
    if any(
        key(getattr(b, f)) != key(getattr(a, f))
        if isinstance(getattr(b, f), ast.AST)
        else getattr(b, f) != getattr(a, f)
        for f in others
    ):
        return None
    ab, aa = b.args, a.args
    steps: list[Step] = []
    if (
        [key(x) for x in ab.args] + [key(x) for x in ab.posonlyargs]
        == [key(x) for x in aa.args] + [key(x) for x in aa.posonlyargs]
        and [key(x) for x in ab.kwonlyargs] == [key(x) for x in aa.kwonlyargs]
        and key_or_none(ab.vararg) == key_or_none(aa.vararg)
        and key_or_none(ab.kwarg) == key_or_none(aa.kwarg)
        and len(ab.defaults) == len(aa.defaults)
        and [d is None for d in ab.kw_defaults] == [d is None for d in aa.kw_defaults]
    ):
        positional = [*ab.posonlyargs, *ab.args]
        named = [
            (p.arg, d, e) for p, d, e in zip(positional[len(positional) - len(ab.defaults) :], ab.defaults, aa.defaults)
        ]
        named += [
            (p.arg, d, e)
            for p, d, e in zip(ab.kwonlyargs, ab.kw_defaults, aa.kw_defaults)
            if d is not None and e is not None
        ]
        for name, d, e in named:
            if key(d) != key(e):
                old, new = segment(src, d), segment(src, e)
                if old is None or new is None:
                    return None
                steps.append(Step("set_default", (("function", qual), ("parameter", name), ("from", old), ("to", new))))
        return steps or None
    added = aa.args[len(ab.args) :]
    if (
        len(added) == 1
        and added[0].annotation is None
        and [key(x) for x in aa.args[:-1]] == [key(x) for x in ab.args]
        and [key(x) for x in aa.posonlyargs] == [key(x) for x in ab.posonlyargs]
        and [key(x) for x in aa.kwonlyargs] == [key(x) for x in ab.kwonlyargs]
        and key_or_none(ab.vararg) == key_or_none(aa.vararg)
        and key_or_none(ab.kwarg) == key_or_none(aa.kwarg)
        and [key(x) for x in aa.defaults[:-1]] == [key(x) for x in ab.defaults]
        and len(aa.defaults) == len(ab.defaults) + 1
        and [key_or_none(x) for x in aa.kw_defaults] == [key_or_none(x) for x in ab.kw_defaults]
    ):
        default = segment(src, aa.defaults[-1])
        if default is None:
            return None
        return [Step("add_parameter", (("function", qual), ("name", added[0].arg), ("default", default)))]
    return None


def key_or_none(node: ast.AST | None) -> str | None:
    return None if node is None else key(node)


def _decorator_steps(src: Sources, qual: str, old: list[ast.expr], new: list[ast.expr]) -> list[Step] | None:
    ops = [
        op
        for op in difflib.SequenceMatcher(
            None, [key(d) for d in old], [key(d) for d in new], autojunk=False
        ).get_opcodes()
        if op[0] != "equal"
    ]
    if len(ops) != 1:
        return None
    tag, i1, i2, j1, j2 = ops[0]
    texts_old = [segment(src, d) for d in old[i1:i2]]
    texts_new = [segment(src, d) for d in new[j1:j2]]
    if None in texts_old or None in texts_new:
        return None
    if tag == "replace" and i2 - i1 == 1 and j2 - j1 == 1 and [key(d) for d in old].count(key(old[i1])) == 1:
        return [Step("replace_decorator", (("function", qual), ("find", texts_old[0]), ("with", texts_new[0])))]  # type: ignore[arg-type]
    if tag == "insert" and i1 == 0:
        return [Step("add_decorator", (("function", qual), ("decorator", t))) for t in reversed(texts_new)]  # type: ignore[arg-type]
    if tag == "insert" and i1 == len(old):
        return [
            Step("add_decorator", (("function", qual), ("decorator", t), ("position", "bottom")))  # type: ignore[arg-type]
            for t in texts_new
        ]
    if tag == "delete" and i1 == 0:
        return [Step("remove_decorator", (("function", qual), ("decorator", t))) for t in texts_old]  # type: ignore[arg-type]
    if tag == "delete" and i2 == len(old):
        return [
            Step("remove_decorator", (("function", qual), ("decorator", t), ("position", "bottom")))  # type: ignore[arg-type]
            for t in reversed(texts_old)
        ]
    return None


@dataclass(frozen=True)
class Rewrites:
    steps: tuple[Step, ...]
    fallbacks: tuple[str, ...]  # where a wider rewrite than the change had to be used, and why


def rewrites(before: str, after: str) -> Rewrites:
    """The rewrites that turn `before` into `after` (both whole modules). Raises SyntaxError when
    either does not parse, Inexpressible when no rewrite says the change."""
    tree, pristine, target = ast.parse(before), ast.parse(before), ast.parse(after)
    _tag(target)
    differ = Differ(Sources.of(before, after), tree, pristine)
    try:
        differ.block(_Scope("<module>", tree.body, "module"), tree.body, target.body)
    except _Ambiguous:
        raise Inexpressible(
            "a module-level change matches several times in the patched module; no find can name it"
        ) from None
    if key(tree) != key(target):
        raise Inexpressible(
            "the rewrites found do not reproduce the patched module (an importer bug; please report it)"
        )
    return Rewrites(tuple(differ.steps), tuple(differ.fallbacks))
