"""Later changes that escape the walk (esc53; att57 F1, F2, F3): the value changed back at import
by a method Python runs without a call naming it (`__init_subclass__`, a metaclass's `__new__`,
`Cls(CFG)`'s `__init__`, `R().reset()`, `__exit__`, `__set_name__`, `__post_init__`, an Enum's
`__init__`, `__class_getitem__`, a `@staticmethod` given the value), by a function found by string
(`getattr(sys.modules[__name__], "_r")`, `globals()["_r"]`), through the module object
(`sys.modules[__name__].CFG`, `vars()["CFG"]`, `__import__(__name__)`), an alias form other than
`x = CFG` (`:=`, unpacking, `with ... as d`, `match ... as d`, a default parameter, `CFG or ...`),
the value put in another object (`HOLD.append(CFG)`, `SimpleNamespace(c=CFG)`,
`X.setdefault("c", CFG)`), or a method of the value reached another way than a call on its name
(`operator.methodcaller`, `type(CFG).m(CFG, ...)`, `put = CFG.m`, `functools.partial(CFG.m, ...)`,
`operator.setitem`). Each was applied while the module kept the old value.

Generated: the route (ROUTES: a statement on the value in some place; METHOD_ROUTES: the value's
method reached another way) x the edit (tests/lib/escape_edits: set_item, add_element on a list
and a set, remove_element, set_keyword, set_default, set_constant) x {the statement undoing the
edit, its twin changing another key, element or attribute}. The oracle imports the original and
the patched module in a fresh interpreter (tests/lib/later_values): the rewrite is refused exactly
where the two end equal; where they differ it applies, except where the value escapes to code
radpatch does not read (ESCAPES: refused with the escape named, "cannot follow what changes it")."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.escape_edits import EDITS, verdict
from tests.lib.generated import sample

# {s}: the statement, on {v} (the route's second item; {n}: the edited name)
ROUTES = {
    "__init_subclass__": (
        "class Base:\n    def __init_subclass__(cls, **kw):\n        {s}\n\n\nclass Sub(Base):\n    pass",
        "{n}",
    ),
    "metaclass __new__": (
        "class Meta(type):\n    def __new__(m, n, b, ns):\n        {s}\n        return super().__new__(m, n, b, ns)"
        "\n\n\nclass X(metaclass=Meta):\n    pass",
        "{n}",
    ),
    "__init__ given it": ("class Resetter:\n    def __init__(self, d):\n        {s}\n\n\nResetter({n})", "d"),
    "__init__": ("class R:\n    def __init__(self):\n        {s}\n\n\n_r = R()", "{n}"),
    "method call": ("class R:\n    def reset(self):\n        {s}\n\n\nR().reset()", "{n}"),
    "__exit__": (
        "class Ctx:\n    def __enter__(self):\n        return self\n\n    def __exit__(self, *a):\n        {s}\n\n\n"
        "with Ctx():\n    pass",
        "{n}",
    ),
    "__set_name__": (
        "class Field:\n    def __set_name__(self, owner, name):\n        {s}\n\n\nclass Model:\n    x = Field()",
        "{n}",
    ),
    "__post_init__": (
        "import dataclasses\n\n\n@dataclasses.dataclass\nclass D:\n    def __post_init__(self):\n        {s}\n\n\nD()",
        "{n}",
    ),
    "Enum __init__": (
        "import enum\n\n\nclass E(enum.Enum):\n    A = 1\n\n    def __init__(self, v):\n        {s}",
        "{n}",
    ),
    "__class_getitem__": ("class G:\n    def __class_getitem__(cls, x):\n        {s}\n\n\nG[int]", "{n}"),
    "staticmethod given it": ("class K2:\n    @staticmethod\n    def s(d):\n        {s}\n\n\nK2.s({n})", "d"),
    "getattr of the module, given it": (
        'import sys\n\n\ndef _reset(d):\n    {s}\n\n\ngetattr(sys.modules[__name__], "_reset")({n})',
        "d",
    ),
    "getattr of the module": (
        'import sys\n\n\ndef _reset():\n    {s}\n\n\ngetattr(sys.modules[__name__], "_reset")()',
        "{n}",
    ),
    "globals() given it": ('def _reset(d):\n    {s}\n\n\nglobals()["_reset"]({n})', "d"),
    "globals()": ('def _reset():\n    {s}\n\n\nglobals()["_reset"]()', "{n}"),
    "sys.modules": ("import sys\n\n{s}", "sys.modules[__name__].{n}"),
    "module alias": ("import sys\n\n_me = sys.modules[__name__]\n{s}", "_me.{n}"),
    "__import__": ("_me = __import__(__name__)\n{s}", "_me.{n}"),
    "vars()": ("{s}", 'vars()["{n}"]'),
    "globals() item": ("{s}", 'globals()["{n}"]'),
    "walrus": ("if (d := {n}) is not None:\n    {s}", "d"),
    "tuple unpacking": ("d, n = {n}, 0\n{s}", "d"),
    "with as": ("import contextlib\n\nwith contextlib.nullcontext({n}) as d:\n    {s}", "d"),
    "match as": ("match {n}:\n    case object() as d:\n        {s}", "d"),
    "match capture": ("match {n}:\n    case d:\n        {s}", "d"),
    "default parameter": ("def _reset(d={n}):\n    {s}\n\n\n_reset()", "d"),
    "or": ("d = {n} or None\n{s}", "d"),
    "appended": ("HOLD = []\nHOLD.append({n})\n{s}", "HOLD[0]"),
    "SimpleNamespace": ("import types\n\nns = types.SimpleNamespace(c={n})\n{s}", "ns.c"),
    "setdefault": ('X = {{}}\nX.setdefault("c", {n})\n{s}', 'X["c"]'),
}
# the value's method (m) with its arguments (a)
METHOD_ROUTES = {
    "methodcaller": 'import operator\n\noperator.methodcaller("{m}", {a})({n})',
    "unbound method": "type({n}).{m}({n}, {a})",
    "bound method alias": "put = {n}.{m}\nput({a})",
    "partial of a bound method": "import functools\n\nfunctools.partial({n}.{m}, {a})()",
    "map of a bound method": "list(map(lambda f: f({a}), [{n}.{m}]))",
    "operator.setitem": "import operator\n\noperator.setitem({n}, {a})",  # a dict's __setitem__ only
}
# the value handed to code radpatch does not read: refused even where the code leaves it alone
ESCAPES = {"appended", "SimpleNamespace", "setdefault"}
ESCAPES |= {"bound method alias", "partial of a bound method", "map of a bound method"}
# set_constant: prove.placement takes the change as run once a statement reads the name before the store
# through the module object rebinds it (docs/safety.md, placement: `def _reset(d=LIMIT)` reads it)
READ_FIRST = {("set_constant", "default parameter")}
KEYS = ("undo", "twin")


def later_text(edit: str, route: str, key: str) -> str | None:
    """The code after the edited binding, or None where the route does not apply to the edit."""
    e = EDITS[edit]
    if route in METHOD_ROUTES:
        if e.method is None:
            return None
        method, undo, twin = e.method
        if route == "operator.setitem" and method != "__setitem__":
            return None
        return METHOD_ROUTES[route].format(n=e.name, m=method, a=undo if key == "undo" else twin)
    template, var = ROUTES[route]
    statement = (e.undo if key == "undo" else e.twin).format(v=var.format(n=e.name))
    return template.format(n=e.name, s=statement)


CASES = sample(
    [(e, r, k) for e in EDITS for r in [*ROUTES, *METHOD_ROUTES] for k in KEYS if later_text(e, r, k) is not None]
)


@pytest.mark.parametrize(("edit", "route", "key"), CASES, ids=[f"{e}-{r}-{k}" for e, r, k in CASES])
def test_refused_where_the_value_escapes_or_a_route_undoes_the_edit(
    tmp_path: Path, edit: str, route: str, key: str
) -> None:
    later = later_text(edit, route, key)
    assert later is not None
    refused, took, before = verdict(tmp_path, EDITS[edit], later)
    if took is None:
        return  # the original does not import: no value to compare
    if not took and (edit, route) in READ_FIRST and refused is None:
        return  # applied: the change is read before it is rebound
    if not took:
        assert refused is not None, f"applied, but the module ends with the same value:\n{before}"
        assert "may not be what the module keeps" in refused or "rebinds it" in refused, refused
    elif route in ESCAPES and refused is not None:
        assert "cannot follow what changes it" in refused, refused
    else:
        assert refused is None, f"refused, but the edit takes effect: {refused}\n{before}"
