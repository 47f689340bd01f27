"""The importer's literal steps (part of rewrites.Differ): a module constant changed (`set_constant`),
entries of a dict literal bound to a name added, changed or taken away (`set_item`), elements of a
set, list or tuple display bound to a name added or taken away (`add_element`/`remove_element`)."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Literal, cast

from radpatch.importing.call_elements import call_address, call_dict_change, call_display_change
from radpatch.importing.changed_expressions import ItemChange, item_changes
from radpatch.importing.element_changes import ElementChange, element_changes, element_steps
from radpatch.importing.import_steps import ImportStep, Value
from radpatch.importing.runs import Runs
from radpatch.importing.scope_walk import scope_body
from radpatch.importing.shapes import DiffScope, is_constant, mark_after
from radpatch.importing.statements import Sources, segment
from radpatch.rewrite.matching import MatchFailure
from radpatch.rewrite.name_bindings import binding_sites
from radpatch.rewrite.ops.common.bound_literal import refuse_later_display

Kind = Literal["items", "elements"]  # a dict literal's entries (set_item), a display's elements (add/remove_element)

# kind -> the literal, what "the whole" of it is called, its parts, one part: the words of its notes
_WORDS = {
    "items": ("dict literal", "literal", "entries", "entry"),
    "elements": ("display", "display", "elements", "element"),
}


class LiteralSteps(Runs):
    """set_constant, set_item and add_element/remove_element steps; Differ's, through its bases."""

    def constant(self, bbody: list[ast.stmt], i: int, a: ast.stmt) -> bool:
        b = bbody[i]
        if not (is_constant(b) and is_constant(a)):
            return False
        assert isinstance(b, ast.Assign) and isinstance(a, ast.Assign)
        name = b.targets[0].id  # type: ignore[attr-defined]
        if name != a.targets[0].id or len(binding_sites(self.tree.body, name, "module")) != 1:  # type: ignore[attr-defined]
            return False
        old, new = segment(self.src, b.value), segment(self.src, a.value)
        if old is None or new is None or "\n" in old or "\n" in new:
            return False
        if self._unproven("<module>", b, a, name, "set_constant", name, "its line"):
            return False
        self.steps.append(ImportStep("set_constant", (("name", name), ("from", old), ("value", new))))
        bbody[i] = mark_after(a)
        return True

    def _unproven(self, qualname: str, b: ast.stmt, a: ast.stmt, name: str, op: str, what: str, wider: str) -> bool:
        """Whether apply's proof would refuse the narrow `op` on a module-level display: later code of the
        module may change the value so that the edit is not what the module keeps, or the value leaves what
        radpatch follows (rewrite.later_changes). Then the note says so, and a wider `replace` is taken."""
        old, new = segment(self.src, getattr(b, "value", b)), segment(self.src, getattr(a, "value", a))
        if qualname != "<module>" or old is None or new is None:
            return False
        try:  # on the file before and after the patch: the code the patch adds after it counts too (att61 F12)
            refuse_later_display("\n".join(self.src.before) + "\n", name, old, new, b.lineno, op)
            refuse_later_display("\n".join(self.src.after) + "\n", name, old, new, a.lineno, op)
        except MatchFailure as exc:
            note = f"apply's proof refuses the narrow step ({exc.message}); replaced {wider}"
            said = (
                self.fallbacks[-1:]
                and self.fallbacks[-1].startswith(f"{qualname}: {name}")
                and "narrow step" in self.fallbacks[-1]
            )
            if not said:  # the constant's step after the literal's: one note
                self.fallbacks.append(f"{qualname}: {what}: {note} (a `replace` proves only the code it replaces)")
            return True
        return False

    def literal(self, kind: Kind, scope: DiffScope, bbody: list[ast.stmt], i: int, a: ast.stmt) -> bool:
        """A step per change when all that changed in `NAME = {...}` is its parts, and the scope binds
        NAME once (at any depth of its blocks, as set_item and add_element count). Kind "items": a
        dict literal's entries added (as its last items, or in the middle: `after:` the key before)
        or changed, `set_item`; kind "elements": a set, list or tuple display's elements added or
        taken away, `add_element`/`remove_element`."""
        b = bbody[i]
        literal, whole, _, _ = _WORDS[kind]
        found = (
            item_changes(b, a, self.src.before)
            if kind == "items"
            else element_changes(b, a, self.src.before, self.src.after)
        )
        if isinstance(found, str):
            name = b.targets[0] if isinstance(b, ast.Assign) else getattr(b, "target", None)
            shown = ast.unparse(name) if name else "a"
            self.fallbacks.append(f"{scope.qualname}: {shown}'s {literal}: {found}; replaced the whole {whole}")
            return False
        if found is None or _bindings(scope, found[0]) != 1:
            return False
        name, changes = found
        removes = all(isinstance(c, ElementChange) and c.remove for c in changes)
        op = "set_item" if kind == "items" else "remove_element" if removes else "add_element"
        if self._unproven(scope.qualname, b, a, name, op, f"{name}'s {literal}", f"the whole {whole}"):
            return False
        return self._said(kind, scope, bbody, i, a, changes, [("name", name)], name)

    def call_literal(self, kind: Kind, scope: DiffScope, bbody: list[ast.stmt], i: int, a: ast.stmt) -> bool:
        """The same, with `call:`, when all that changed in the statement is the parts of a literal
        passed to one call (importing.call_elements): kind "items", a dict literal's entries;
        kind "elements", a display's elements."""
        literal, whole, _, _ = _WORDS[kind]
        b = bbody[i]
        found = call_dict_change(b, a, self.src) if kind == "items" else call_display_change(b, a, self.src)
        if isinstance(found, str):
            self.fallbacks.append(
                f"{scope.qualname}: a {literal} passed to a call: {found}; replaced the whole {whole}"
            )
            return False
        if found is None:
            return False
        where, changes = found if isinstance(found, tuple) else (found, found.changes)
        address = call_address(self.src, where, scope.body, scope_body(self.pristine, scope.qualname))
        if address is None:
            return False
        return self._said(kind, scope, bbody, i, a, changes, address, f"a {literal} passed to a call")

    def _said(
        self,
        kind: Kind,
        scope: DiffScope,
        bbody: list[ast.stmt],
        i: int,
        a: ast.stmt,
        changes: Sequence[ItemChange | ElementChange],
        address: Sequence[tuple[str, Value]],
        shown: str,
    ) -> bool:
        """The steps of `changes` to the literal `address` names (its `name:`, or its call's keys)
        taken; False where a part has no text of its own. Several steps may each pick one call by
        its `occurrence:` (apply follows the call through each rewrite's edit). `shown` names the
        literal in a note."""
        literal, whole, parts, part = _WORDS[kind]
        if kind == "items":
            texts = _item_texts(self.src, cast("list[ItemChange]", changes))
            steps = None if texts is None else _item_steps(scope.qualname, address, texts)
        else:
            elements = cast("list[ElementChange]", changes)
            steps = element_steps(scope.qualname, shown, elements, lambda n: segment(self.src, n), address)
        if steps is None:
            return False
        for c in changes:
            if isinstance(c, ElementChange) and c.commented:
                self.fallbacks.append(
                    f"{scope.qualname}: the comment the patch writes with element {segment(self.src, c.element)} of "
                    f"{shown} is not written (the entry adds only the element; the code is the same as patch's)"
                )
        self.steps.extend(steps)
        bbody[i] = mark_after(a)
        return True


def _bindings(scope: DiffScope, name: str) -> int:
    """How many times the scope binds `name`, as set_item and add_element count (rewrite.name_bindings)."""
    return len(binding_sites(scope.body, name, scope.kind))


_Texts = tuple[str, str | None, str | None, str | None, str | None]  # key, from, value, after, before


def _item_texts(src: Sources, changes: list[ItemChange]) -> list[_Texts] | None:
    """Each entry's key, old and new value, and the keys it follows or precedes, as the code writes
    them; None where one has no text of its own."""
    texts: list[_Texts] = []
    for c in changes:
        k, v = segment(src, c.key), segment(src, c.new) if c.new is not None else None
        o = segment(src, c.old) if c.old is not None else None
        p = segment(src, c.after) if c.after is not None else None
        q = segment(src, c.before) if c.before is not None else None
        if k is None or (c.new is not None and v is None) or (c.old is not None and o is None):
            return None
        if (c.after is not None and p is None) or (c.before is not None and q is None):
            return None
        texts.append((k, o, v, p, q))
    return texts


def _item_steps(scope: str, address: Sequence[tuple[str, Value]], texts: list[_Texts]) -> list[ImportStep]:
    """The set_item steps: the literal named by `address` (its `name:`, or its call's keys, whose
    `occurrence:` goes last)."""
    steps = []
    for k, o, v, p, q in texts:
        keys: list[tuple[str, Value]] = [("scope", scope), *[x for x in address if x[0] != "occurrence"], ("key", k)]
        keys += [(f, t) for f, t in (("from", o), ("value", v), ("after", p), ("before", q)) if t is not None]
        keys += [x for x in address if x[0] == "occurrence"]
        steps.append(ImportStep("set_item", tuple(keys)))
    return steps
