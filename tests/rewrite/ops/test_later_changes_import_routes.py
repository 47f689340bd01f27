"""A literal's later change made in a function the module runs at import by a route other than a
call by the def's own name (att56 F8): a decorator (`@_register def h()` whose `_register` stores;
a factory's result; on a class; in a class body), a name bound to the def (`run = _reset;
run(CFG)`, either of two) or to a lambda and called, an inner def a called function calls or
returns, a function passed as a value to a call that may run it (`map(_reset, [CFG])`,
`functools.partial`, a list of handlers called in a loop, a function of the module calling its
parameter). Each was applied while the module kept the later value. Twins: the same function
never run (the alias or lambda never called, the inner def never called, nothing let out).
Issue 21: a loop over a list/tuple display (inline or a name bound once to it, never changed) runs
exactly the functions displayed (twins: one changed before the loop, `.append`, `+=`, filled by a
function); a callee the text cannot tell runs only what is let out before it runs (twins: let out
later in a loop holding the call, or before a function holding it runs again); an inner def let out
runs with what its callers pass (real vLLM 0.32.0 shapes: a decorator's wrapper, an inner def handed
to `re.sub`), and a local named like a def does not let the def out.

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

_WRAP = "def _wrap(fn):\n    def wrapper(d):\n        return fn(d)\n    return wrapper\n"
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
    # issue 21: a loop over a list or tuple display runs exactly the functions displayed
    "loop over a display": (
        "def _reset(d):\n    {s}\ndef _keep(d):\n    pass\nfor h in (_keep, _reset):\n    h({n})",
        "d",
    ),
    "loop over a display, not it": (
        "def _reset(d):\n    {s}\ndef _keep(d):\n    pass\nKEPT = [_reset]\nfor h in (_keep,):\n    h({n})",
        "d",
    ),
    "loop over a named display, not it": (
        "def _reset(d):\n    {s}\ndef _keep(d):\n    pass\nKEPT = [_reset]\nHANDLERS = [_keep, lambda d: None]\n"
        "for h in HANDLERS:\n    h({n})",
        "d",
    ),
    "loop over a lambda display": ("for h in [lambda d: {e}]:\n    h({n})", "d"),
    "loop over a display appended to": (
        "def _reset(d):\n    {s}\ndef _keep(d):\n    pass\nHANDLERS = [_keep]\nHANDLERS.append(_reset)\n"
        "for h in HANDLERS:\n    h({n})",
        "d",
    ),
    "loop over a display added to": (
        "def _reset(d):\n    {s}\ndef _keep(d):\n    pass\nHANDLERS = [_keep]\nHANDLERS += [_reset]\n"
        "for h in HANDLERS:\n    h({n})",
        "d",
    ),
    "loop over a display a function fills": (
        "def _reset(d):\n    {s}\ndef _keep(d):\n    pass\ndef _fill(hs):\n    hs.append(_reset)\n"
        "HANDLERS = [_keep]\n_fill(HANDLERS)\nfor h in HANDLERS:\n    h({n})",
        "d",
    ),
    # issue 21: a callee the text cannot tell runs only the functions let out before it runs
    "let out after the loop": ("def _reset(d):\n    {s}\nfor h in list([len]):\n    h({n})\nLATER = [_reset]", "d"),
    "let out later in the loop": (
        "def _reset(d):\n    {s}\nHS = [len]\nfor i in range(2):\n    for h in list(HS):\n        h({n})\n"
        "    HS = [_reset]",
        "d",
    ),
    "let out after a function's loop": (
        "def _reset(d):\n    {s}\ndef _run():\n    for h in list(HS):\n        h({n})\nHS = [len]\n_run()\n"
        "HS = [_reset]",
        "d",
    ),
    "let out after a function's loop, run again": (
        "def _reset(d):\n    {s}\ndef _run():\n    for h in list(HS):\n        h({n})\nHS = [len]\n_run()\n"
        "HS = [_reset]\n_run()",
        "d",
    ),
    # issue 21, real vLLM 0.32.0 shapes (_aiter_ops, mimo_audio: a decorator's wrapper; content_parsers: an
    # inner def handed to re.sub; _aiter_ops: a local import named like a def): run with what is passed
    "decorator wrapper": (_WRAP + "@_wrap\ndef handler(d):\n    {s}", "d"),
    "decorator wrapper called": (_WRAP + "@_wrap\ndef handler(d):\n    {s}\nhandler({n})", "d"),
    "inner def handed elsewhere": (
        "import re\ndef _parse(text):\n    def _capture(d):\n        {s}\n    return re.sub('z', _capture, text)\n"
        "PARSERS = {{'json': _parse}}\nfrozenset(PARSERS)",
        "d",
    ),
    "a local named like a def": (
        "def _reset(d):\n    {s}\ndef _other():\n    from os import path as _reset\n    return _reset\n"
        "for h in list([len]):\n    h({n})",
        "d",
    ),
    "a parameter named like an inner def": (
        "def _setup():\n    def _reset(d):\n        {s}\n    return 1\ndef _other(_reset):\n    return _reset\n"
        "for h in list([len]):\n    h({n})",
        "d",
    ),
}
MODULE_ONLY = {"decorator", "decorator factory", "class decorator", "decorator in a class body"}
MODULE_ONLY |= {"decorator passing it", "inner def called", "inner def not called", "passed, module name"}
MODULE_ONLY |= {"loop over a display a function fills", "let out after a function's loop"}
MODULE_ONLY |= {"let out after a function's loop, run again"}
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
