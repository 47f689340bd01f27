"""Overlapping entries: two entries changing the same node or inserting at the same anchor.

`list` and `verify` report them; `apply` (through apply_check.check_apply) refuses two of them with
no order between them; `requires:` gives the order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from radpatch.context import Context
from radpatch.errors import RefusedError
from radpatch.prove.overlaps import apply_check, pairs
from radpatch.releases import overlap_report as reported
from tests.lib.overlaps import HEAD, text, write
from tests.lib.site import Site

CAP = """\
  - id: cap-{n}
    replace: {{scope: plan, find: "size = 4", with: "size = {n}"}}
"""
AFTER = """\
  - id: log-{n}
    insert_after: {{scope: plan, find: "size = len(spec)", code: "size = size + {n}"}}
"""
WRAP = """\
  - id: wrap
    wrap_body: {function: plan, with: "try:\\n    __body__\\nfinally:\\n    pass"}
"""
DEFAULT = """\
  - id: default-{n}
    add_parameter: {{function: groups, name: p{n}, default: "None"}}
"""


def test_the_same_statement_and_the_same_anchor_overlap(tmp_path: Path) -> None:
    a = write(tmp_path, "a", CAP.format(n=5) + AFTER.format(n=1))
    b = write(tmp_path, "b", CAP.format(n=6))
    c = write(tmp_path, "c", AFTER.format(n=2))
    found = pairs.find([a, b, c], [Version("1.0")])
    met = {(o.first, o.second, o.first_rewrite, o.second_rewrite, o.what) for o in found}
    assert met == {
        ("a", "b", "cap-5", "cap-6", "change the same statement or expression in plan"),
        ("a", "c", "log-1", "log-2", "insert at the same anchor in plan"),
    }
    assert all(o.module == "toypkg.core" and not o.ordered for o in found)


def test_a_body_rewrite_overlaps_everything_inside_the_function(tmp_path: Path) -> None:
    a = write(tmp_path, "a", WRAP)
    b = write(tmp_path, "b", CAP.format(n=5))
    c = write(tmp_path, "c", DEFAULT.format(n=1))  # another function: no overlap
    found = pairs.find([a, b, c], [Version("1.0")])
    assert [(o.first, o.second, o.what) for o in found] == [("a", "b", "change the body of plan()")]


def test_entries_that_never_meet_on_a_release_do_not_overlap(tmp_path: Path) -> None:
    a = write(tmp_path, "a", CAP.format(n=5), supported=">=1.0,<1.5")
    b = write(tmp_path, "b", CAP.format(n=6), supported=">=1.5,<2")
    assert reported.find([a, b]) == []  # list and verify probe every version the ranges name
    c = write(tmp_path, "c", CAP.format(n=7), supported=">=1.2,<2")
    assert {(o.first, o.second) for o in reported.find([a, b, c])} == {("a", "c"), ("b", "c")}


def test_requires_orders_an_overlap_and_apply_refuses_only_unordered_ones(tmp_path: Path) -> None:
    a = write(tmp_path, "a", CAP.format(n=5))
    b = write(tmp_path, "b", CAP.format(n=6))
    with pytest.raises(RefusedError) as err:
        apply_check.refuse_unordered([a, b], [Version("1.0")])
    assert "a and b overlap" in err.value.message and "requires: [a]" in err.value.hint
    b_after_a = write(tmp_path, "b", CAP.format(n=6), requires=("a",))
    apply_check.refuse_unordered([a, b_after_a], [Version("1.0")])  # b comes after a: allowed
    c = write(tmp_path, "c", CAP.format(n=7), requires=("b",))
    apply_check.refuse_unordered([a, b_after_a, c], [Version("1.0")])  # c after b after a: transitively
    with pytest.raises(RefusedError):
        apply_check.refuse_unordered([a, c], [Version("1.0")])  # without b, nothing orders a and c


PASS_CFG_TOO = '  - id: pass-cfg-too\n    replace: {scope: groups, find: plan(spec), with: "plan(spec, 1)"}\n'


def test_list_reports_overlaps(toy: Path, radpatch: Any, write_registry: Any) -> None:
    write_registry("other", text(PASS_CFG_TOO))
    r = radpatch("--registry", str(toy), "list")
    assert r.code == 0, r.err
    assert (
        "overlap: other (pass-cfg-too) and toy (pass-cfg) both change the same statement or expression in groups "
        "in toypkg.core" in r.out
    )


def test_check_apply_counts_what_is_applied_already(
    site: Site, toy: Path, radpatch: Any, write_registry: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_registry("other", text(PASS_CFG_TOO))
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    ctx = Context(None, (str(toy),))
    with pytest.raises(RefusedError) as err:
        apply_check.check_apply(ctx, [ctx.registry.load("other")])
    assert "other and toy overlap" in err.value.message or "toy and other overlap" in err.value.message
    write_registry("other", text(PASS_CFG_TOO, requires=("toy",)))
    apply_check.check_apply(Context(None, (str(toy),)), [Context(None, (str(toy),)).registry.load("other")])


KEYWORD = """\
  - id: kw
    set_keyword: {scope: groups, call: plan, keyword: cfg, from: "None", to: "1"}
"""
WHOLE_CALL = """\
  - id: whole
    replace: {scope: groups, find: "plan(spec, cfg=None)", with: "plan(spec.copy(), cfg=None)"}
"""
CONSTANT = """\
  - id: const
    set_constant: {name: LIMIT, from: "4", value: "8"}
"""
WHOLE_ASSIGN = """\
  - id: assign
    replace: {scope: <module>, find: "LIMIT = 4", with: "LIMIT: int = 4"}
"""


def test_a_node_inside_a_replaced_statement_overlaps(tmp_path: Path) -> None:
    kw = write(tmp_path, "kw", KEYWORD)
    whole = write(tmp_path, "whole", WHOLE_CALL)
    found = pairs.find([kw, whole], [Version("1.0")])
    assert [(o.first, o.second, o.first_rewrite, o.second_rewrite) for o in found] == [("kw", "whole", "kw", "whole")]
    assert "keyword argument `cfg=` of a call to `plan` is inside the other's `find`" in found[0].what
    const = write(tmp_path, "const", CONSTANT)
    assign = write(tmp_path, "assign", WHOLE_ASSIGN)
    assert [(o.first, o.second) for o in pairs.find([const, assign], [Version("1.0")])] == [("const", "assign")]


def test_a_keyword_the_replaced_call_does_not_pass_or_another_scope_is_no_overlap(tmp_path: Path) -> None:
    kw = write(tmp_path, "kw", KEYWORD)
    other_value = write(tmp_path, "v", WHOLE_CALL.replace('cfg=None)"', 'cfg=2)"', 1))
    other_callee = write(tmp_path, "c", WHOLE_CALL.replace('find: "plan(', 'find: "plan2(', 1))
    other_scope = write(tmp_path, "s", WHOLE_CALL.replace("scope: groups", "scope: plan"))
    assert pairs.find([kw, other_value, other_callee, other_scope], [Version("1.0")]) == []


NESTED_FILES = {
    "toypkg/__init__.py": "",
    "toypkg/core.py": (
        "def plan(spec, cfg=None):\n    return spec\n\n\ndef groups(spec):\n    return plan(spec, cfg=None)\n"
    ),
}


def test_list_and_apply_see_a_nested_overlap(site: Site, radpatch: Any, write_registry: Any) -> None:
    site.install("toypkg", "1.0", NESTED_FILES)
    write_registry("kw", HEAD.format(supported=">=1.0,<2") + KEYWORD)
    reg = write_registry("whole", HEAD.format(supported=">=1.0,<2") + WHOLE_CALL)
    before = (site.root / "toypkg/core.py").read_bytes()
    r = radpatch("--registry", str(reg), "list")
    assert "overlap: kw (kw) and whole (whole) both change the same code (the keyword argument" in r.out, r.out
    r = radpatch("--registry", str(reg), "apply", "kw", "whole")
    assert r.code == 1, r.out + r.err
    assert "kw and whole overlap" in r.err and "requires: [kw]" in r.err
    assert (site.root / "toypkg/core.py").read_bytes() == before


# --- overlaps: the same code changed by two entries written differently --------------------------


def _entries(tmp_path: Path, first: str, second: str) -> list[Any]:
    return [write(tmp_path, "first", first), write(tmp_path, "second", second)]


@pytest.mark.parametrize(
    "first, second",
    [
        (  # one replaces the statement the other inserts after: its anchor is gone once the first applied
            '  - id: a\n    replace: {scope: plan, find: "size = len(spec)", with: "size = 4"}\n',
            "  - id: b\n    insert_after: {scope: plan, find: \"size=len( spec )\", code: 'size = size + 1'}\n",
        ),
        (  # one replaces an expression inside the statement the other replaces
            '  - id: a\n    replace: {scope: plan, find: "len(spec)", with: "len(spec) + 1"}\n',
            '  - id: b\n    replace: {scope: plan, find: "size = len(spec)", with: "size = 4"}\n',
        ),
    ],
    ids=["replace-vs-anchor", "expression-inside-statement"],
)
def test_two_entries_changing_the_same_code_written_differently_overlap(
    tmp_path: Path, first: str, second: str
) -> None:
    found = pairs.find(_entries(tmp_path, first, second), [Version("1.0")])
    assert [(o.first, o.second, o.ordered) for o in found] == [("first", "second", False)], found


def test_entries_touching_different_statements_do_not_overlap(tmp_path: Path) -> None:
    first = '  - id: a\n    replace: {scope: plan, find: "size = len(spec)", with: "size = 4"}\n'
    second = '  - id: b\n    insert_after: {scope: plan, find: "spec = list(spec)", code: "spec = spec[:1]"}\n'
    third = '  - id: c\n    replace: {scope: plan, find: "len(other)", with: "0"}\n'
    assert pairs.find(_entries(tmp_path, first, second), [Version("1.0")]) == []
    assert pairs.find(_entries(tmp_path, first, third), [Version("1.0")]) == []
    # an expression picked by `occurrence:` may be another copy than the one in the statement, or that
    # one: which, only the file tells, and the overlap says so rather than call them independent
    picked = '  - id: d\n    replace: {scope: plan, find: "len(spec)", with: "0", occurrence: 2}\n'
    (o,) = pairs.find(_entries(tmp_path, first, picked), [Version("1.0")])
    assert o.what.startswith("may change the same code") and "depends on the file" in o.what


def test_apply_s_overlap_check_takes_the_files_the_plan_read(site: Site, toy: Path, radpatch: Any) -> None:
    """apply runs the overlap check after its plan, on the files the plan read (install.targets): a
    named entry's file is not found and read again; an entry the plan did not read is. (`radpatch`:
    `site` as radpatch's own environment.)"""
    from radpatch.install import targets
    from radpatch.prove.overlaps.installed_files import InstalledTexts

    ctx = Context(None, (str(toy),))
    patch = ctx.registry.load("toy")
    read = targets.read(patch, ctx.env)
    core = site.root / "toypkg/core.py"
    as_read = core.read_text()
    core.write_text(as_read + "# changed after the plan read it\n")
    (rw,) = [r for r in patch.rewrites if r.id == "pass-cfg"]
    assert InstalledTexts(ctx.env, {"toy": read}).file(patch, rw) == (str(core), as_read)
    assert InstalledTexts(ctx.env).file(patch, rw) == (str(core), core.read_text())  # not read by the plan
