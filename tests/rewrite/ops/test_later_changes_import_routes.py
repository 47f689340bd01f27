"""A literal's later change made in a function the module runs at import by a route other than a
call by the def's own name (att56 F8): a decorator (`@_register def h()` whose `_register` stores;
a factory's result; on a class; in a class body), a name bound to the def (`run = _reset;
run(CFG)`, either of two) or to a lambda and called, an inner def a called function calls or
returns, a function passed as a value to a call that may run it (`map(_reset, [CFG])`,
`functools.partial`, a list of handlers called in a loop, a function of the module calling its
parameter). Each was applied while the module kept the later value. Twins: the same function
never run (the alias or lambda never called, the inner def never called, nothing let out).

Generated: the route (ROUTES) x the statement made on the value there (a change of the edited entry
or element, of another one, a read) x the edit (set_item, add_element, remove_element on a dict,
list, set) x the scope (the module; a class body where the route passes the value). The oracle
(tests/lib/later_values) imports the original and the patched module in a subprocess: the rewrite
is refused exactly where the two end equal, and applied where they differ."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.generated import sample
from tests.lib.later_edits import EDITS, NAMES, planned_verdict

# {n}: the literal's name; {s}: the statement on the variable named by the second item ({n}: the
# module's name, read where the function sees it); {e}: the statement as an expression (a lambda's)
ROUTES = {
    "decorator": ("def _register(fn):\n    {s}\n    return fn\n@_register\ndef handler():\n    pass", "{n}"),
    "decorator factory": (
        "def _make(k):\n    def wrap(fn):\n        {s}\n        return fn\n    return wrap\n"
        "@_make(1)\ndef handler():\n    pass",
        "{n}",
    ),
    "class decorator": ("def _register(c):\n    {s}\n    return c\n@_register\nclass H:\n    pass", "{n}"),
    "decorator in a class body": (
        "def _register(fn):\n    {s}\n    return fn\nclass H:\n    @_register\n    def m(self):\n        pass",
        "{n}",
    ),
    "decorator passing it": (
        "def _register(fn):\n    fn({n})\n    return fn\n@_register\ndef handler(d):\n    {s}",
        "d",
    ),
    "alias": ("def _reset(d):\n    {s}\nrun = _reset\nrun({n})", "d"),
    "alias either": (
        "def _reset(d):\n    {s}\ndef _keep(d):\n    pass\nrun = _reset if len({n}) else _keep\nrun({n})",
        "d",
    ),
    "alias not called": ("def _reset(d):\n    {s}\nrun = _reset", "d"),
    "lambda": ("_reset = lambda d: {e}\n_reset({n})", "d"),
    "lambda not called": ("_reset = lambda d: {e}", "d"),
    "lambda passed": ("list(map(lambda d: {e}, [{n}]))", "d"),
    "inner def called": ("def _setup():\n    def inner():\n        {s}\n    inner()\n_setup()", "{n}"),
    "inner def passed": ("def _setup(d):\n    def inner(e):\n        {s}\n    inner(d)\n_setup({n})", "e"),
    "inner def not called": ("def _setup():\n    def inner():\n        {s}\n_setup()", "{n}"),
    "inner def returned": (
        "def _make():\n    def inner(d):\n        {s}\n    return inner\nrun = _make()\nrun({n})",
        "d",
    ),
    "map": ("def _reset(d):\n    {s}\nlist(map(_reset, [{n}]))", "d"),
    "partial": ("import functools\ndef _reset(d):\n    {s}\nfunctools.partial(_reset, {n})()", "d"),
    "handlers": ("def _reset(d):\n    {s}\nHANDLERS = [_reset]\nfor h in HANDLERS:\n    h({n})", "d"),
    "passed to a function": ("def _reset(d):\n    {s}\ndef _apply(f, d):\n    f(d)\n_apply(_reset, {n})", "d"),
    "passed, module name": ("def _reset():\n    {s}\nlist(map(lambda f: f(), [_reset]))", "{n}"),
    "not let out": ("def _reset(d):\n    {s}\nlen({n})", "d"),
}
MODULE_ONLY = {"decorator", "decorator factory", "class decorator", "decorator in a class body"}
MODULE_ONLY |= {"decorator passing it", "inner def called", "inner def not called", "passed, module name"}
STATEMENTS = {
    "dict": [
        '{v}["timeout"] = 2',
        '{v}["other"] = 2',
        "{v}.update(timeout=5)",
        "{v}.update(retries=5)",
        'x = {v}.get("timeout")',
    ],
    "list": ['{v}[:] = ["a"]', '{v}.append("d")', '{v}.remove("b")', 'x = {v}.count("a")'],
    "set": ['{v}.discard("c")', '{v}.add("z")', '{v}.add("b")'],
}
SCOPES = ("<module>", "K")


def later_text(route: str, statement: str, name: str) -> str | None:
    """The later code, or None where the route is a lambda and the statement is not an expression."""
    template, var = ROUTES[route]
    said = statement.format(v=var.format(n=name))
    expression = said.removeprefix("x = ")
    if "{e}" in template and " = " in expression:
        return None
    indent = "        " if "\n        {s}" in template else "    "
    return template.format(n=name, s=said.replace("\n", "\n" + indent), e=expression)


CASES = sample(
    [
        (e, r, st, sc)
        for e in EDITS
        for r in ROUTES
        for st in STATEMENTS[EDITS[e][0]]
        for sc in SCOPES
        if (sc == "<module>" or r not in MODULE_ONLY) and later_text(r, st, NAMES[EDITS[e][0]]) is not None
    ]
)


@pytest.mark.parametrize(
    ("edit", "route", "statement", "scope"), CASES, ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(CASES)]
)
def test_refused_exactly_where_a_function_run_at_import_by_any_route_undoes_the_edit(
    tmp_path: Path, edit: str, route: str, statement: str, scope: str
) -> None:
    kind, _ = EDITS[edit]
    later = later_text(route, statement, NAMES[kind])
    assert later is not None
    refused, took, before = planned_verdict(tmp_path, edit, later, scope)
    if took is None:
        return  # the original does not import: no value to compare
    if not took:
        assert refused is not None, f"applied, but the module ends with the same value:\n{before}"
        assert "changes" in refused and "may not be what the module keeps" in refused
    else:
        assert refused is None, f"refused, but the edit takes effect: {refused}\n{before}"
