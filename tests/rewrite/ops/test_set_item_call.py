"""set_item on a dict literal passed to a call, not bound to a name (`register(archs={...})`, a
keyword argument's mapping): addressed as add_element addresses a display passed to a call
(`call:`, `keyword:` or `argument:`, `within:`/`occurrence:`).

Generated: call shape (plain, a method on a chained attribute, one argument per line, the second
of two calls to the callee) x argument (keyword, first or second positional) x change (an entry
added last, after the first, before the first; a value changed; an entry taken away, first or
last) through the engine byte for byte and back (check); a refusal for a call passing something
else there, and loading from YAML with a bad key set refused at its line."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.errors import RadpatchError
from radpatch.registry.loader import load_patch
from radpatch.rewrite.ops.set_item import SetItem
from tests.lib.generated import sample
from tests.lib.registry import entry_head, write_entry
from tests.lib.rewrites import check, refusal

SHAPES = ("reg", "self.registry.add", "tall", "second")
ARGUMENTS = ("keyword", "first", "second")
CHANGES = ("add", "add after", "add before", "change", "remove first", "remove last")


def source(shape: str, argument: str, items: list[tuple[str, str]]) -> str:
    callee = "register" if shape == "tall" else "reg" if shape == "second" else shape
    d = "{" + ", ".join(f"{k}: {v}" for k, v in items) + "}"
    args = {"keyword": ["'--x'", f"archs={d}"], "first": [d, "'--x'"], "second": ["'--x'", d, "k=1"]}[argument]
    if shape == "tall":
        call = f"{callee}(\n" + "".join(f"        {a},\n" for a in args) + "    )"
    else:
        call = f"{callee}({', '.join(args)})"
    first = "    reg('--w', 0, archs=None)\n" if shape == "second" else ""
    return f"def f(self):\n{first}    {call}\n    return 0\n"


def address(shape: str, argument: str) -> dict[str, object]:
    callee = "register" if shape == "tall" else "reg" if shape == "second" else shape
    out: dict[str, object] = {"call": callee}
    out.update({"keyword": "archs"} if argument == "keyword" else {"argument": 1 if argument == "first" else 2})
    if shape == "second":
        out["occurrence"] = 2
    return out


@pytest.mark.parametrize(("shape", "argument", "change"), sample(list(itertools.product(SHAPES, ARGUMENTS, CHANGES))))
def test_an_entry_of_a_dict_passed_to_a_call(shape: str, argument: str, change: str) -> None:
    now = [("'a'", "1"), ("'b'", "2")]
    at = address(shape, argument)
    new, op = {
        "add": ([*now, ("'n'", "9")], SetItem("f", None, "'n'", "9", **at)),  # type: ignore[arg-type]
        "add after": ([now[0], ("'n'", "9"), now[1]], SetItem("f", None, "'n'", "9", after="'a'", **at)),  # type: ignore[arg-type]
        "add before": ([("'n'", "9"), *now], SetItem("f", None, "'n'", "9", before="'a'", **at)),  # type: ignore[arg-type]
        "change": ([now[0], ("'b'", "3")], SetItem("f", None, "'b'", "3", "2", **at)),  # type: ignore[arg-type]
        "remove first": ([now[1]], SetItem("f", None, "'a'", None, "1", before="'b'", **at)),  # type: ignore[arg-type]
        "remove last": ([now[0]], SetItem("f", None, "'b'", None, "2", **at)),  # type: ignore[arg-type]
    }[change]
    check(source(shape, argument, now), op, source(shape, argument, new))


def test_a_call_passing_no_dict_there_is_refused_saying_so() -> None:
    said = refusal("def f():\n    reg(archs=[1])\n", SetItem("f", None, "'n'", "9", call="reg", keyword="archs"))
    assert "the call to `reg` (line 2) passes `archs=` [1], not `{...}` (a dict literal)" in said


def test_loaded_from_yaml_and_bad_keys_refused(tmp_path: Path) -> None:
    head = entry_head("add an arch", "toypkg", {"reg": "toypkg.registry"})
    body = "  - set_item:\n      scope: f\n      call: reg\n      argument: 1\n      key: \"'n'\"\n      value: '9'\n"
    loaded = load_patch(write_entry(tmp_path, "e", head + body, dedent=False)).rewrites[0].op
    assert loaded == SetItem("f", None, "'n'", "9", call="reg", argument=1)
    assert loaded.describe() == "add 'n': 9 to positional argument 1 of a call to reg in f"
    with pytest.raises(RadpatchError) as err:
        load_patch(write_entry(tmp_path, "bad", head + body.replace("      argument: 1\n", ""), dedent=False))
    assert "bad.yaml:" in str(err.value) and "give one of `keyword:`" in str(err.value)
