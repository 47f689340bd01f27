"""A keyword added to ONE of several calls to one callee, the others unchanged (kw47, issue 20 item
2): where another call passes the keyword with that value already, the inverse could not tell the
call it was added to from that one, and the importer fell back to a `replace` of the whole call
(`call_occurrence:` was said only for a keyword taken away, or moved). Now it is one `set_keyword`
with `call_occurrence: N`, the call's number among every call to the callee in the scope.

Generated: 2 or 3 calls to `mk` x what each passes (nothing, `new=7` already, `new=1`, another
keyword) x which call gets `new=7` x where the calls are (a statement each, one statement, nested in
one another, one in an `if` header, one argument per line), beside a call to `mk` in a nested
function (another scope). As data, the importer's steps are one set_keyword and no wider rewrite;
run by the engine they give the patched bytes and undo to the installed bytes (tests.lib.rewrites.check).
Oracle for a batch: GNU `patch -p1` on the same file, the diff imported by `radpatch import` from a
pip-installed wheel, applied, byte-identical to what patch gives, `status --check` 0, reverted to the
installed bytes."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from radpatch.rewrite.ops.set_keyword import SetKeyword
from tests.lib.generated import sample
from tests.lib.importing import imported_as_gnu_patch_give_each, imported_as_gnu_patch_gives
from tests.lib.rewrites import check

PASSES = {"nothing": "", "new=7": ", new=7", "new=1": ", new=1", "k=2": ", k=2"}


def _nested(cs: list[str]) -> str:
    text = f"mk({len(cs) - 1}{cs[-1]})"
    for i in reversed(range(len(cs) - 1)):
        text = f"mk({text}{cs[i]})"
    return f"    v = {text}\n"


def _tall(i: int, c: str) -> str:
    args = "".join(f"        {a},\n" for a in [str(i), *c.split(", ")[1:]])
    return f"    v{i} = mk(\n{args}    )\n"


FORMS = {
    "a statement each": lambda cs: "".join(f"    v{i} = mk({i}{c})\n" for i, c in enumerate(cs)),
    "one statement": lambda cs: "    v = (" + " + ".join(f"mk({i}{c})" for i, c in enumerate(cs)) + ")\n",
    "nested": _nested,
    "if header": lambda cs: (
        f"    if mk(0{cs[0]}):\n"
        + "".join(f"        v{i} = mk({i}{c})\n" for i, c in enumerate(cs) if i)
        + "        pass\n"
    ),
    "one argument per line": lambda cs: "".join(_tall(i, c) for i, c in enumerate(cs)),
}


def module(form: str, passes: tuple[str, ...], added: int | None) -> str:
    calls = [PASSES[p] + (", new=7" if i == added else "") for i, p in enumerate(passes)]
    return f"def build():\n{FORMS[form](calls)}    def inner():\n        return mk(9)\n\n    return 0\n"


def _cases() -> list[tuple[str, tuple[str, ...], int]]:
    return [
        (form, passes, j)
        for form in FORMS
        for n in (2, 3)
        for passes in itertools.product(PASSES, repeat=n)
        for j in range(n)
        if not passes[j].startswith("new")
    ]


CASES = sample(_cases())


def case(form: str, passes: tuple[str, ...], j: int) -> tuple[str, str]:
    return module(form, passes, None), module(form, passes, j)


@pytest.mark.parametrize(("form", "passes", "j"), CASES, ids=str)
def test_the_keyword_added_to_one_call_is_one_set_keyword(form: str, passes: tuple[str, ...], j: int) -> None:
    before, after = case(form, passes, j)
    got = rewrites(before, after)
    assert [s.op for s in got.steps] == ["set_keyword"] and not got.fallbacks, (got.steps, got.fallbacks)
    keys = dict(got.steps[0].keys)
    if "new=7" in passes:  # another call passes it already: only the call's number tells them apart
        assert keys.get("call_occurrence") is not None, keys
    scope = str(keys.pop("scope"))
    check(before, SetKeyword(scope, **keys), after)  # type: ignore[arg-type]


@pytest.mark.wheel
def test_keywords_added_to_one_call_apply_as_gnu_patch_gives_byte_for_byte(tmp_path: Path) -> None:
    batch = [c for c in CASES if "new=7" in c[1]][::12]
    passed = imported_as_gnu_patch_give_each(tmp_path, [case(*c) for c in batch])
    failed = [c for i, c in enumerate(batch) if i not in passed]
    if failed:
        imported_as_gnu_patch_gives(tmp_path / "alone", *case(*failed[0]))
    assert not failed, failed
    said = {i: [dict(rw) for rw in entry["rewrites"]] for i, entry in passed.items()}  # type: ignore[attr-defined]
    wide = [batch[i] for i, rws in said.items() if [k for rw in rws for k in rw if k in ("replace", "delete")]]
    assert wide == [], said
    counts = {i: str(entry["_stdout"]) for i, entry in passed.items()}
    assert [batch[i] for i, out in counts.items() if "1 of 1 file byte-identical" not in out] == [], counts
