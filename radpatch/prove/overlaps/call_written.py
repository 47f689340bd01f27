"""A literal a rewrite changes by its parts (add_element, remove_element, set_item; passed to a call,
or bound to a name) and another entry's rewrite that does not take its call or assignment whole
(prove.overlaps.call_parts), but (ovl44):

- writes a call to the callee passing that argument (`with:`, `code:`): the call-form rewrite may
  pick the call the other writes, so it stacks on it (`WRITTEN`). Unlike a `find` stacked on
  written code, it picks a call by its callee: in the other order it may pick an installed call
  and apply, so `apply` refuses the two unless `requires:` orders them (the writer first);
- replaces the display itself (its `find` is a set, list or tuple display, for add_element and
  remove_element, or a dict display, for set_item): it may be the literal the other changes
  (`DISPLAY`).

The registry text says only that they may; a file decides (`differ`): on it, the two orders of the
two rewrites write different code, or one of them fails (verify's cached release for `list` and
`verify`, the installed file for `apply`). Where there is no file, the pair is reported as one that
may change the same code."""

from __future__ import annotations

import ast
import functools
from typing import TYPE_CHECKING

from radpatch.prove.overlaps import call_parts, gaps
from radpatch.registry.touch import Touch

if TYPE_CHECKING:
    from packaging.version import Version

    from radpatch.prove.overlaps.touching import Meeting
    from radpatch.registry.model import Operation, Patch, Rewrite

_DISPLAYS = {"display element": (ast.List, ast.Set, ast.Tuple), "dict entry": (ast.Dict,)}


def meeting(a: Touch, b: Touch) -> Meeting | None:
    """How a literal's element or entry (`a` or `b`) meets the other's rewrite: a call it may pick
    in the code the other writes, or the display the other replaces; None when neither."""
    from radpatch.prove.overlaps.touching import Meet, Meeting, part_words

    for lit, other in ((a, b), (b, a)):
        if written(lit, other):
            return Meeting(
                Meet.WRITTEN,
                f"may change the same code in {a.scope} (the {part_words(lit)} may be in the call the "
                "other writes: which call it picks depends on the order they apply in)",
            )
        if display(lit, other):
            return Meeting(
                Meet.DISPLAY,
                f"may change the same code in {a.scope} (one's `find` is a display that may be the literal "
                f"the other changes: the {part_words(lit)})",
            )
    return None


def written(lit: Touch, other: Touch) -> bool:
    """`lit` changes a literal passed to a call, and `other` writes a call to that callee passing
    that argument, in the same scope."""
    if not other.writes or lit.scope != other.scope or not (lit.part and lit.part[0] == "argument"):
        return False
    trees = _undump(other.writes)
    return not trees or call_parts.passes(trees, lit)  # code that does not read back may write the call


def display(lit: Touch, other: Touch) -> bool:
    """`lit` changes an element or entry of a literal (by call or by name), and `other` replaces or
    deletes a display of that kind (its `find` is the display, not code holding it), in the same scope."""
    kinds = _DISPLAYS.get(lit.kind)
    if kinds is None or lit.scope != other.scope or other.role != "node" or not other.key.startswith("code "):
        return False
    tree = call_parts.tree_of(other.find) if other.find else None
    return isinstance(tree, ast.Expression) and isinstance(tree.body, kinds)


def differ(a: Patch, ra: Rewrite, b: Patch, rb: Rewrite, v: Version, texts: gaps.Texts | None) -> bool:
    """On the file (`texts`), do the two orders of the two rewrites write different code, or one of
    them fail? True too when there is no file to tell, or both orders fail (neither applies with the other)."""
    from radpatch.prove.overlaps.gap_pairs import text_of

    text = text_of(a, ra, b, v, texts)
    return True if text is None else _differ_on(ra.op, rb.op, text)


@functools.lru_cache(maxsize=256)
def _differ_on(a: Operation, b: Operation, text: str) -> bool:
    """`differ` on one text (releases often share a module's text: each pair is run once per text)."""
    one, two = gaps.in_order(a, b, text), gaps.in_order(b, a, text)
    if one is None or two is None:
        return True
    return ast.dump(ast.parse(one)) != ast.dump(ast.parse(two))


def _undump(trees: str) -> list[ast.AST]:
    """The syntax trees `registry.touch.code_trees` dumped (`Call(func=Name(id='f', ...), ...)`, several
    joined by `; `), built again without evaluating anything: each dumped node is parsed as the call
    it reads as and made from the `ast` class it names. [] when they do not read back."""
    try:
        return [_node(s.value) for s in ast.parse(trees).body if isinstance(s, ast.Expr)]  # type: ignore[misc]
    except (SyntaxError, ValueError, TypeError):
        return []


_NAMED: dict[str, object] = {"Ellipsis": ..., "inf": float("inf"), "nan": float("nan")}  # as repr() writes them


def _node(e: ast.expr) -> object:
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and not e.args:
        cls = getattr(ast, e.func.id, None)
        if not (isinstance(cls, type) and issubclass(cls, ast.AST)):
            raise ValueError(e.func.id)
        return cls(**{k.arg: _node(k.value) for k in e.keywords if k.arg is not None})
    if isinstance(e, ast.List):
        return [_node(x) for x in e.elts]
    if isinstance(e, ast.Constant):
        return e.value
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) and isinstance(e.operand, ast.Constant):
        value = e.operand.value
        if isinstance(value, (int, float, complex)):
            return -value  # an f-string's `conversion=-1`
    if isinstance(e, ast.Name) and e.id in _NAMED:
        return _NAMED[e.id]
    raise ValueError(ast.dump(e))
