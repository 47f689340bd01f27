"""A literal's later change made in a function the module runs at import, reached other than by
one call passing it one level deep (issue 21, later2 #1): the function reads the module's name
(`def setup(): CFG["timeout"] = 2` / `setup()`), an alias inside it (`d = CFG`), a call two or
three levels deep, `*args` / `**kwargs` (`args[0]["timeout"] = 2`, `for d in args:`), a spread
argument (`args = (CFG,)` / `f(*args)`), recursion. Each was applied while the module kept the
later value.

Generated: the way the function reaches the value (SHAPES) x the statement made on it there (a
change of the edited entry or element, of another one, a read) x the edit (set_item, add_element,
remove_element on a dict, list, set) x the scope (the module, a class body). The oracle
(tests/lib/later_values) imports the original and the patched module in a subprocess: the rewrite
is refused exactly where the two end equal, and applied where they differ, except for the shapes
radpatch refuses without reading on (MAY: deeper than it follows, `*args` handed on whole)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.generated import sample
from tests.lib.later_edits import EDITS, NAMES, planned_verdict

# {n}: the literal's name; {s}: the statement, on the variable named {v} (filled per shape)
SHAPES = {
    "module name": ("def setup():\n    {s}\nsetup()", "{n}"),
    "alias inside": ("def setup():\n    d = {n}\n    {s}\nsetup()", "d"),
    "module alias": ("ALIAS = {n}\ndef setup():\n    {s}\nsetup()", "ALIAS"),
    "two levels": ("def b():\n    {s}\ndef a():\n    b()\na()", "{n}"),
    "two levels passed": ("def b(d):\n    {s}\ndef a(d):\n    b(d)\na({n})", "d"),
    "three levels": ("def c(e):\n    {s}\ndef b(d):\n    c(d)\ndef a():\n    b({n})\na()", "e"),
    "star args": ("def f(*args):\n    {s}\nf(0, {n})", "args[1]"),
    "star kwargs": ("def f(**kw):\n    {s}\nf(d={n})", 'kw["d"]'),
    "loop over args": ("def f(*args):\n    for d in args:\n        {s}\nf({n})", "d"),
    "spread tuple": ("def f(d):\n    {s}\nargs = ({n},)\nf(*args)", "d"),
    "spread dict": ('def f(d):\n    {s}\nf(**{{"d": {n}}})', "d"),
    "recursion": ("def f(k):\n    if k:\n        f(k - 1)\n    else:\n        {s}\nf(2)", "{n}"),
    "mutual": ("def a(k):\n    if k:\n        b(k - 1)\ndef b(k):\n    {s}\n    a(k)\na(2)", "{n}"),
    "shadowed": ("def setup():\n    {n} = {{}}\n    {s}\nsetup()", "{n}"),
    "not called": ("def setup():\n    {s}", "{n}"),
    "handed on whole": ("def f(*args):\n    g = list(args)\n    {s}\nf({n})", "g[0]"),
    "deep": ("\n".join(f"def f{i}():\n    f{i + 1}()" for i in range(10)) + "\ndef f10():\n    {s}\nf0()", "{n}"),
}
MAY = {"handed on whole", "deep"}
STATEMENTS = {
    "dict": ['{v}["timeout"] = 2', '{v}["other"] = 2', "{v}.update(retries=5)", 'x = {v}.get("timeout")'],
    "list": ['{v}[:] = ["a"]', '{v}.append("d")', '{v}.remove("b")', 'x = {v}.count("a")'],
    "set": ['{v}.discard("c")', '{v}.add("z")', '{v}.add("b")'],
}
SCOPES = ("<module>", "K")


def later_text(shape: str, statement: str, name: str) -> str:
    template, var = SHAPES[shape]
    var = var.format(n=name)
    indent = "        " if shape in ("recursion", "loop over args") else "    "
    lines = statement.format(v=var).split("\n")
    return template.format(n=name, s=("\n" + indent).join(lines))


CASES = sample(
    [
        (e, sh, st, sc)
        for e in EDITS
        for sh in SHAPES
        for st in STATEMENTS[EDITS[e][0]]
        for sc in SCOPES
        if sc == "<module>" or sh in ("two levels passed", "star args", "spread tuple", "not called")
    ]
)


@pytest.mark.parametrize(
    ("edit", "shape", "statement", "scope"), CASES, ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(CASES)]
)
def test_refused_exactly_where_a_function_run_at_import_undoes_the_edit(
    tmp_path: Path, edit: str, shape: str, statement: str, scope: str
) -> None:
    kind, _ = EDITS[edit]
    later = later_text(shape, statement, NAMES[kind])
    refused, took, before = planned_verdict(tmp_path, edit, later, scope)
    if took is None:
        return  # the original does not import: no value to compare
    if not took:
        assert refused is not None, f"applied, but the module ends with the same value:\n{before}"
        assert "changes" in refused and "may not be what the module keeps" in refused
    elif shape not in MAY:
        assert refused is None, f"refused, but the edit takes effect: {refused}\n{before}"
