"""The importer's literal steps (part of rewrites.Differ): a module constant changed (`set_constant`),
entries of a dict literal bound to a name added, changed or taken away (`set_item`), elements of a
set, list or tuple display bound to a name added or taken away (`add_element`/`remove_element`)."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from radpatch.importing.call_elements import call_address, call_dict_change, call_display_change
from radpatch.importing.changed_expressions import ItemChange, item_changes
from radpatch.importing.element_changes import element_changes, element_steps
from radpatch.importing.import_steps import ImportStep, Value
from radpatch.importing.runs import Runs
from radpatch.importing.scope_walk import scope_body
from radpatch.importing.shapes import (
    DiffScope,
    is_constant,
    mark_after,
)
from radpatch.importing.statements import Sources, segment
from radpatch.rewrite.name_bindings import binding_sites


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
        self.steps.append(ImportStep("set_constant", (("name", name), ("from", old), ("value", new))))
        bbody[i] = mark_after(a)
        return True

    def items(self, scope: DiffScope, bbody: list[ast.stmt], i: int, a: ast.stmt) -> bool:
        """`set_item` per entry when all that changed in `NAME = {...}` is entries added (as its last
        items, or in the middle: `after:` the key before) or changed, and the scope binds NAME once
        (at any depth of its blocks, as set_item counts)."""
        b = bbody[i]
        found = item_changes(b, a, self.src.before)
        if isinstance(found, str):
            name = b.targets[0] if isinstance(b, ast.Assign) else getattr(b, "target", None)
            self.fallbacks.append(
                f"{scope.qualname}: {ast.unparse(name) if name else 'a'}'s dict literal: {found}; replaced the whole "
                "literal"
            )
            return False
        if found is None or _bindings(scope, found[0]) != 1:
            return False
        name, changes = found
        texts = _item_texts(self.src, changes)
        if texts is None:
            return False
        self.steps.extend(_item_steps(scope.qualname, [("name", name)], texts))
        bbody[i] = mark_after(a)
        return True

    def call_items(self, scope: DiffScope, bbody: list[ast.stmt], i: int, a: ast.stmt) -> bool:
        """`set_item` with `call:` per entry when all that changed in the statement is entries of a
        dict literal passed to one call (importing.call_elements)."""
        found = call_dict_change(bbody[i], a, self.src)
        if isinstance(found, str):
            self.fallbacks.append(
                f"{scope.qualname}: a dict literal passed to a call: {found}; replaced the whole literal"
            )
            return False
        if found is None:
            return False
        where, changes = found
        address = call_address(self.src, where, scope.body, scope_body(self.pristine, scope.qualname))
        texts = _item_texts(self.src, changes)
        if address is None or texts is None:
            return False
        if len(texts) > 1 and any(k == "occurrence" for k, _ in address):
            self.fallbacks.append(
                f"{scope.qualname}: {len(texts)} entries of a dict literal passed to a call to {dict(address)['call']} "
                f"(occurrence {dict(address)['occurrence']}): one rewrite per entry cannot each pick that call by its "
                "occurrence; replaced the whole literal"
            )
            return False
        self.steps.extend(_item_steps(scope.qualname, address, texts))
        bbody[i] = mark_after(a)
        return True

    def elements(self, scope: DiffScope, bbody: list[ast.stmt], i: int, a: ast.stmt) -> bool:
        """`add_element`/`remove_element` per element when all that changed in `NAME = {...}` (a set,
        list or tuple display) is elements added or taken away, and the scope binds NAME once."""
        b = bbody[i]
        found = element_changes(b, a, self.src.before, self.src.after)
        if isinstance(found, str):
            name = b.targets[0] if isinstance(b, ast.Assign) else getattr(b, "target", None)
            shown = ast.unparse(name) if name else "a"
            self.fallbacks.append(f"{scope.qualname}: {shown}'s display: {found}; replaced the whole display")
            return False
        if found is None or _bindings(scope, found[0]) != 1:
            return False
        steps = element_steps(scope.qualname, found[0], found[1], lambda n: segment(self.src, n))
        if steps is None:
            return False
        for c in found[1]:
            if c.commented:
                self.fallbacks.append(
                    f"{scope.qualname}: the comment the patch writes with element {segment(self.src, c.element)} of "
                    f"{found[0]} is not written (the entry adds only the element; the code is the same as patch's)"
                )
        self.steps.extend(steps)
        bbody[i] = mark_after(a)
        return True

    def call_elements(self, scope: DiffScope, bbody: list[ast.stmt], i: int, a: ast.stmt) -> bool:
        """`add_element`/`remove_element` with `call:` per element when all that changed in the
        statement is elements of a display passed to one call (importing.call_elements)."""
        b = bbody[i]
        found = call_display_change(b, a, self.src)
        if isinstance(found, str):
            self.fallbacks.append(f"{scope.qualname}: a display passed to a call: {found}; replaced the whole display")
            return False
        if found is None:
            return False
        address = call_address(self.src, found, scope.body, scope_body(self.pristine, scope.qualname))
        if address is None:
            return False
        steps = element_steps(scope.qualname, "", found.changes, lambda n: segment(self.src, n), address)
        if steps is None:
            return False
        if len(steps) > 1 and any(k == "occurrence" for k, _ in address):
            # each step would count the call anew, and apply refuses a second rewrite of a counted match
            self.fallbacks.append(
                f"{scope.qualname}: {len(steps)} elements of a display passed to a call to "
                f"{dict(address)['call']} (occurrence {dict(address)['occurrence']}): one rewrite per element "
                "cannot each pick that call by its occurrence; replaced the whole display"
            )
            return False
        for c in found.changes:
            if c.commented:
                self.fallbacks.append(
                    f"{scope.qualname}: the comment the patch writes with element {segment(self.src, c.element)} of "
                    "a display passed to a call is not written (the entry adds only the element; the code is the "
                    "same as patch's)"
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
