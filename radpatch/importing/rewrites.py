"""From one module's source before and after a patch, the smallest structural rewrites that turn
one into the other, written as a person would write them.

Why this shape: an imported entry must survive upstream edits elsewhere in the function and read
like the diff it came from. So the module is compared as a tree of statement blocks: unchanged
statements are matched up (difflib over their syntax trees), definitions with the same name and
compound statements of the same kind are entered, and only what differs becomes a rewrite, in the
narrowest form that says it: one expression (`replace` of `f(x)`), a constant (`set_constant`),
an entry of a dict literal added, changed or taken away (`set_item`), an element of a set, list or
tuple display added or taken away (`add_element`/`remove_element`), a keyword argument of a call
(`set_keyword`), a class's bases (`set_bases`), a default (`set_default`), a parameter
(`add_parameter`), a decorator, an import (`add_import`),
new definitions (`insert_definitions` with a payload), new statements next to an anchor
(`insert_after`/`insert_before`), removed ones (`delete`), and otherwise the smallest run of
statements (`replace`). Every `find` is text of the before-file and is checked to match exactly
once in its scope as the rewrites count (at any depth, not inside nested definitions), after the
earlier rewrites; where it would not, it grows by a neighbouring statement, and only where that
cannot help does it carry `occurrence:` (counted in the before-file's source order).

The rewrites are simulated on the before-tree as they are chosen, so each one is chosen against
the code the rewrites will see when apply runs them.

Here: entering blocks and pairing statements (`Differ`), and `rewrites()`. Differ's bases say one
changed statement each way: `literal_steps` (constants, dict entries, display elements),
`keyword_steps` (keyword arguments), `expression_steps` (one expression); all of them build on
`runs` (runs of statements inserted, deleted, replaced; new definitions and imports; the chooser's
state). The parts they call: `changed_expressions` (one expression's difference and text),
`signatures` (defaults, parameters, decorators, class bases), `shapes` (statements as the chooser
compares them).
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import difflib
from collections.abc import Callable
from dataclasses import dataclass

from radpatch.errors import Inexpressible
from radpatch.importing.changed_expressions import smallest_difference
from radpatch.importing.expression_steps import ExpressionSteps
from radpatch.importing.header_anchors import anchored
from radpatch.importing.import_steps import ImportStep
from radpatch.importing.insertions import Insertions
from radpatch.importing.keyword_steps import KeywordSteps
from radpatch.importing.literal_steps import LiteralSteps
from radpatch.importing.pairing import opcodes
from radpatch.importing.scope_walk import blocks, scoped_name
from radpatch.importing.shapes import (
    DiffScope,
    NoUniqueRun,
    blocks_of_same_shape,
    case_head,
    chain_reshaped,
    copy_header,
    elif_flags,
    header,
    ident,
    line_rest,
    mark_after,
)
from radpatch.importing.signatures import bases_step, copy_signature, decorator_steps, signature, signature_steps
from radpatch.importing.statements import DEFS, Sources, added_comments, key, start_line, whole_lines


class Differ(LiteralSteps, KeywordSteps, ExpressionSteps, Insertions):
    """Enters the blocks of both trees, pairs statements that are the same one changed, and says
    each change in the narrowest form (a definition entered, a compound statement by its header,
    a constant, one expression); runs of statements are Runs' and Insertions' to say."""

    # --- blocks -------------------------------------------------------------------------------

    def block(self, scope: DiffScope, bbody: list[ast.stmt], abody: list[ast.stmt], elif_chain: bool = False) -> None:
        ops = opcodes(
            [key(s) for s in bbody], [key(s) for s in abody], [ident(s) for s in bbody], [ident(s) for s in abody]
        )
        delta = 0
        for tag, i1, i2, j1, j2 in ops:
            if tag == "equal":
                continue
            n = len(bbody)
            self.region(scope, bbody, i1 + delta, i2 + delta, abody[j1:j2])
            delta += len(bbody) - n

    def region(self, scope: DiffScope, bbody: list[ast.stmt], i1: int, i2: int, new: list[ast.stmt]) -> None:
        """bbody[i1:i2] becomes `new`: pair statements that are the same one changed, the rest is
        inserted, deleted or replaced as runs."""
        ops = difflib.SequenceMatcher(
            None, [ident(s) for s in bbody[i1:i2]], [ident(s) for s in new], autojunk=False
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

    def statement(self, scope: DiffScope, bbody: list[ast.stmt], i: int, a: ast.stmt) -> None:
        b = bbody[i]
        if key(b) == key(a):
            return
        name = scoped_name(scope.body, b, scope.kind) if isinstance(b, DEFS) else None
        if isinstance(b, DEFS) and type(b) is type(a) and not scope.elif_ and name is not None:
            if not all(whole_lines(self.src, s) for s in b.body):  # att59 F5: `class K: x = 1; y = 2`
                note = "its body is on its header's line (a one-line suite): no find names a statement there"
                self.fallbacks.append(f"{scope.child(name)}: {note}; replaced the whole definition")
            elif self._undoable(lambda: self.definition(scope, bbody, i, a, name), bbody, i):
                return
            else:
                self.fallbacks.append(
                    f"{scope.child(name)}: no smaller change is unique in the patched code; replaced the whole "
                    "definition"
                )
        elif isinstance(b, DEFS) and not scope.elif_ and not self._definable(scope, b.name) and b in scope.body:
            self.fallbacks.append(
                f"{scope.child(b.name)}: {scope.qualname} defines {b.name!r} more than once and no scope name picks "
                "this one (only an @overload's implementation or one property accessor); replaced the whole definition"
            )
        elif isinstance(b, DEFS) and not scope.elif_ and name is None and b not in scope.body:
            self.fallbacks.append(
                f"{scope.child(b.name)}: defined inside an if/try/with block of {scope.qualname} (as where each branch "
                "defines its own); no scope name picks this one; replaced the whole definition"
            )
        if (
            blocks_of_same_shape(b, a)
            and whole_lines(self.src, b)
            and self._undoable(lambda: self.compound(scope, bbody, i, a), bbody, i)
        ):
            return
        # a comment the patch writes on the changed line goes with the statement: an expression's
        # `replace` (or set_constant) keeps the line's old comment
        said = line_rest(self.src, b) == line_rest(self.src, a)
        if (
            said
            and scope.kind in ("module", "class")
            and scope.body is bbody
            and self.literal("items", scope, bbody, i, a)
        ):
            return
        if said and self.literal("elements", scope, bbody, i, a):
            return
        if (
            said
            and not isinstance(b, DEFS)
            and (self.call_literal("elements", scope, bbody, i, a) or self.call_literal("items", scope, bbody, i, a))
        ):
            self._note_comment(scope, a)
            return
        if said and scope.qualname == "<module>" and scope.body is bbody and self.constant(bbody, i, a):
            self._note_comment(scope, a)
            return
        if said and not isinstance(b, DEFS) and self.keyword(scope, bbody, i, a):
            self._note_comment(scope, a)
            return
        if said and not isinstance(b, DEFS) and self.expression(scope, bbody, i, a):
            self._note_keyword(scope, b, a, "the call")
            self._note_comment(scope, a)
            return
        if scope.elif_:
            raise NoUniqueRun()  # no find names an elif: the if it belongs to is replaced
        self._note_keyword(scope, b, a, "its statement")
        if isinstance(b, ast.Match) and isinstance(a, ast.Match):
            self.fallbacks.append(
                f"{scope.qualname}: the cases of a `match` change where no one expression says it (a case added "
                "or removed, a name a pattern binds or its shape, or a case written on its pattern's line): no "
                "find names a case; replaced the whole match"
            )
        self.replace_run(scope, bbody, i, i + 1, [a])

    def _note_comment(self, scope: DiffScope, a: ast.stmt) -> None:
        """A comment the patch adds above a statement whose expression (constant, keyword) changes:
        the narrow rewrite changes the expression, and saying the comment too would take a `replace`
        of the statement above as well (comment lines that open a `with` are not written), which an
        upstream edit there breaks. The code is the same as patch's; the import says what it leaves."""
        if added_comments(self.src, a):
            line = start_line(a)
            self.fallbacks.append(
                f"{scope.qualname}: the comment the patch adds above its line {line} is not written (the entry "
                "changes only the expression below it; the code is the same as patch's)"
            )

    def _undoable(self, attempt: Callable[[], bool], bbody: list[ast.stmt], i: int) -> bool:
        """Run `attempt` on bbody[i]; when a change inside it cannot be said unambiguously, take
        back what it chose (rewrites and simulated tree) and answer False."""
        steps, made_by = list(self.steps), dict(self.made_by)  # a hoisted step may land before this point
        fallbacks, saved = len(self.fallbacks), copy.deepcopy(bbody[i])
        try:
            return attempt()
        except NoUniqueRun:
            self.steps[:], self.made_by = steps, made_by
            del self.fallbacks[fallbacks:]
            bbody[i] = saved
            return False

    def definition(self, scope: DiffScope, bbody: list[ast.stmt], i: int, a: ast.stmt, name: str) -> bool:
        """Inside the definition bbody[i], which the scope name `name` gives (`f`, `prop.setter`)."""
        b = bbody[i]
        assert isinstance(b, DEFS) and isinstance(a, DEFS)
        qual = scope.child(name)
        if isinstance(b, ast.ClassDef) and isinstance(a, ast.ClassDef) and signature(b) != signature(a):
            step = bases_step(self.src, qual, b, a)
            if step is not None:
                self.steps.append(step)
                copy_signature(b, a)
        if signature(b) != signature(a):
            steps = signature_steps(self.src, qual, b, a)
            if steps is None:
                self.fallbacks.append(f"{qual}: signature change no operation expresses; replaced the whole definition")
                self.replace_run(scope, bbody, i, i + 1, [a])
                return True
            self.steps.extend(steps)
            copy_signature(b, a)
        if [key(d) for d in b.decorator_list] != [key(d) for d in a.decorator_list]:
            steps = decorator_steps(self.src, qual, b.decorator_list, a.decorator_list)
            if steps is None:
                self.fallbacks.append(f"{qual}: decorator change no operation expresses; replaced the whole definition")
                self.replace_run(scope, bbody, i, i + 1, [a])
                return True
            self.steps.extend(steps)
            b.decorator_list = [mark_after(d) for d in a.decorator_list]
        kind = "class" if isinstance(b, ast.ClassDef) else "function"
        self.block(DiffScope(qual, b.body, kind), b.body, a.body)
        return True

    def compound(self, scope: DiffScope, bbody: list[ast.stmt], i: int, a: ast.stmt) -> bool:
        """An if/for/while/with/try of the same shape: its header by expression, then its blocks."""
        b = bbody[i]
        if chain_reshaped(self.src, b, a):
            return False
        hb, ha = header(b), header(a)
        if key(hb) != key(ha) and self.keyword(scope, bbody, i, a, head=True):
            pass
        elif key(hb) != key(ha):
            chain = smallest_difference(hb, ha)
            if not chain or not self._replace_expression(scope, chain, force=True, swap=(bbody, i, a)):
                return False
            copy_header(b, a)
        if isinstance(b, ast.Match) and isinstance(a, ast.Match):
            self.cases(scope, bbody, i, a)
        for bb, ab, is_elif in zip(blocks(b), blocks(a), elif_flags(self.src, b, a)):
            if is_elif:  # an `elif`: libcst holds it as part of the if, not as a statement of a block
                self.statement(dataclasses.replace(scope, elif_=True), bb, 0, ab[0])
            else:
                self.block(dataclasses.replace(scope, elif_=False), bb, ab)
        return True

    def cases(self, scope: DiffScope, bbody: list[ast.stmt], i: int, a: ast.Match) -> None:
        """The cases of a match whose pattern or guard changed, as many on both sides: per case, a
        `replace` of the one expression holding its change (a value the pattern compares with, the
        guard), as a compound statement's header is said. Raises NoUniqueRun (the whole match is
        replaced then, and the note says why) where a change is not inside one expression: a name
        the pattern binds, the pattern's shape."""
        b = bbody[i]
        assert isinstance(b, ast.Match)
        for cb, ca in zip(b.cases, a.cases):
            if key(case_head(cb)) == key(case_head(ca)):
                continue
            chain = smallest_difference(case_head(cb), case_head(ca))
            if not chain or not self._replace_expression(scope, chain, force=True, swap=(bbody, i, a)):
                raise NoUniqueRun()
            cb.pattern = mark_after(ca.pattern)
            cb.guard = None if ca.guard is None else mark_after(ca.guard)


@dataclass(frozen=True)
class Rewrites:
    steps: tuple[ImportStep, ...]
    fallbacks: tuple[str, ...]  # where a wider rewrite than the change had to be used, and why


def rewrites(before: str, after: str) -> Rewrites:
    """The rewrites that turn `before` into `after` (both whole modules). Raises SyntaxError when
    either does not parse, Inexpressible when no rewrite says the change."""
    tree, pristine, after_tree = ast.parse(before), ast.parse(before), ast.parse(after)
    mark_after(after_tree)
    differ = Differ(Sources.of(before, after), tree, pristine)
    try:
        differ.block(DiffScope("<module>", tree.body, "module"), tree.body, after_tree.body)
    except NoUniqueRun:
        raise Inexpressible(
            "a module-level change matches several times in the patched module; no find can name it"
        ) from None
    if key(tree) != key(after_tree):
        raise Inexpressible(
            "the rewrites found do not reproduce the patched module (an importer bug; please report it)"
        )
    return Rewrites(anchored(before, after, tuple(differ.steps)), tuple(differ.fallbacks))
