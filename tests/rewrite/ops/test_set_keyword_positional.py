"""set_keyword adding `name=` to a call of the module's own function, class or method that passes
`name` already by position (kw38, issue 20): `g("a")` given `name="b"` was applied, and the patched
module raised TypeError (multiple values for argument 'name') when run. Where the callee is the
module's own def (a module-level function, a class with its own `__init__`, a method called through
`self.`), the call's positional arguments are mapped to its parameters and such a call is refused,
naming the parameter and both lines. A callee bound otherwise in the calling function, or a call
spreading `*args`, is unknown: the keyword is added as before.

Generated: the callee (function, class, method, static method, a parameter before `/`) x where
`name` is among its parameters x how many positional arguments the call passes x `*xs` spread or
not x the name rebound locally or not. The oracle is the code itself: the module with the keyword
written in by hand is run, and set_keyword must refuse exactly where that raises TypeError for a
known callee, and otherwise apply, give those bytes, run, and undo to the file's bytes (check)."""

from __future__ import annotations

import itertools

import pytest

from radpatch.rewrite.ops.set_keyword import SetKeyword
from tests.lib.generated import sample
from tests.lib.rewrites import check, refusal

# callee kind -> (its definition, given the parameter list; the call's scope; the callee as called)
KINDS = {
    "function": ("def g({params}):\n    return name\n\n\n", "f", "g"),
    "class": ("class g:\n    def __init__(self, {params}):\n        self.name = name\n\n\n", "f", "g"),
    "method": ("class C:\n    def g(self, {params}):\n        return name\n\n", "C.f", "self.g"),
    "static": ("class C:\n    @staticmethod\n    def g({params}):\n        return name\n\n", "C.f", "self.g"),
}
PARAMS = ("name=0, b=0, *more, **kw", "a=0, name=0, *more, **kw", "a=0, /, name=0, *more, **kw")
GIVEN = (0, 1, 2, 3)


def module(kind: str, params: str, given: int, star: bool, local: bool, added: bool) -> str:
    head, scope, callee = KINDS[kind]
    args = [str(k + 1) for k in range(given)] + (["*xs"] if star else []) + (["name=9"] if added else [])
    call = f"{callee}({', '.join(args)})"
    rebind = "    g = h\n" if local else ""
    if kind in ("method", "static"):
        body = f"    def f(self, xs=()):\n        return {call}\n"
        return head.format(params=params) + body + "\n\ndef run():\n    return C().f()\n"
    body = f"def f(xs=()):\n{rebind}    return {call}\n"
    helper = "def h(*args, **kw):\n    return kw\n\n\n"
    return helper + head.format(params=params) + body + "\n\ndef run():\n    return f()\n"


def raises_type_error(source: str) -> bool:
    space: dict[str, object] = {}
    exec(compile(source, "mod.py", "exec"), space)  # the patched module, run
    try:
        space["run"]()  # type: ignore[operator]
    except TypeError:
        return True
    return False


def _cases() -> list[tuple[str, str, int, bool, bool]]:
    out = []
    for kind, params, given, star, local in itertools.product(KINDS, PARAMS, GIVEN, (False, True), (False, True)):
        if local and kind in ("method", "static"):
            continue  # `self.g` is not the local name g
        out.append((kind, params, given, star, local))
    return out


CASES = sample(_cases())


@pytest.mark.parametrize(("kind", "params", "given", "star", "local"), CASES)
def test_a_keyword_the_call_passes_by_position_is_not_added_again(
    kind: str, params: str, given: int, star: bool, local: bool
) -> None:
    before = module(kind, params, given, star, local, added=False)
    after = module(kind, params, given, star, local, added=True)
    assert not raises_type_error(before)
    op = SetKeyword(KINDS[kind][1], KINDS[kind][2], "name", None, "9")
    fills = raises_type_error(after)  # the oracle: the keyword written in by hand, run
    if fills and not star and not local:
        said = refusal(before, op)
        assert "passes `name` already, by position" in said, said
        line = 1 + before.splitlines().index(next(s for s in before.splitlines() if "return g(" in s or "self.g(" in s))
        assert f"at line {line}" in said, said
        assert "parameter `name`" in said, said
        return
    check(before, op, after)  # applied as written by hand, and undone to the bytes
    if not star:
        assert not raises_type_error(after)
