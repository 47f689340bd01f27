"""Overlaps between rewrites that pick copies of one statement (`occurrence:`, `within:`).

The reference is the engine itself: two entries whose rewrites run on the same file in either
order give the same code only when their order does not matter. Every pair of the generated
rewrites that `pairs.find` calls independent must give the same file in both orders; two
insertions at different copies (neither adding a copy) must not be called overlapping.
"""

from __future__ import annotations

from itertools import combinations_with_replacement
from pathlib import Path
from typing import Any

from packaging.version import Version

from radpatch.errors import RefusedError
from radpatch.prove.overlaps import pairs
from radpatch.registry.loader import load_patch
from radpatch.registry.model import Patch
from radpatch.rewrite import runner
from tests.lib.registry import write_entry
from tests.lib.site import Site

SOURCE = b"""\
def plan(spec):
    sync()
    a = 1
    sync()
    b = 2
    if spec:
        sync()
    return a + b
"""

HEAD = """\
summary: toy
description: toy
distribution: toypkg
supported: ">=1.0,<2"
modules:
  core: toypkg.core
rewrites:
  - {rewrite}
"""

# rewrites of the copies of `sync()`: one that removes its copy, one that replaces it, insertions
# that add no copy, and one insertion that adds a copy (and so re-numbers those after it)
KINDS = {
    "delete": "delete: {{scope: plan, find: 'sync()'{pick}}}",
    "replace": "replace: {{scope: plan, find: 'sync()', with: 'other()'{pick}}}",
    "after": "insert_after: {{scope: plan, find: 'sync()', code: 'log(1)'{pick}}}",
    "before": "insert_before: {{scope: plan, find: 'sync()', code: 'log(2)'{pick}}}",
    "again": "insert_after: {{scope: plan, find: 'sync()', code: 'sync()'{pick}}}",
}


def entry(tmp: Path, name: str, kind: str, n: int | str) -> Patch:
    pick = f", occurrence: {n}"
    return load_patch(write_entry(tmp, name, HEAD.format(rewrite=KINDS[kind].format(pick=pick))))


def run(first: Patch, then: Patch) -> bytes | None:
    try:
        out = runner.forward(first, first.rewrites, SOURCE, "core.py")
        return runner.forward(then, then.rewrites, out, "core.py")
    except RefusedError:
        return None


def test_independent_picks_commute_and_distinct_insertions_are_no_overlap(tmp_path: Path) -> None:
    picks = [(kind, n) for kind in KINDS for n in (1, 2, 3)]
    checked = 0
    for (ka, na), (kb, nb) in combinations_with_replacement(picks, 2):
        a = entry(tmp_path, "a", ka, na)
        b = entry(tmp_path, "b", kb, nb)
        found = pairs.find([a, b], [Version("1.0")])
        if not found:
            assert run(a, b) == run(b, a), f"{ka}#{na} and {kb}#{nb}: order matters but no overlap is reported"
            checked += 1
        inserts = {ka, kb} <= {"after", "before"}
        if inserts and na != nb:
            assert not found, f"{ka}#{na} and {kb}#{nb} change different copies: {found[0].describe()}"
    assert checked >= 20  # the independent pairs were really run both ways


def test_a_delete_and_an_insertion_at_the_same_copy_overlap(tmp_path: Path) -> None:
    a = entry(tmp_path, "a", "delete", 1)
    b = entry(tmp_path, "b", "after", 1)
    assert run(a, b) != run(b, a)  # the case the check exists for: two programs from one pair
    (o,) = pairs.find([a, b], [Version("1.0")])
    assert o.what == "change and anchor at the same code in plan" and not o.ordered  # the same copy: said so
    c = entry(tmp_path, "c", "after", 3)  # removing copy 1 re-numbers copy 3
    (o,) = pairs.find([a, c], [Version("1.0")])
    assert "removes copy 1" in o.what
    d = entry(tmp_path, "d", "delete", 3)  # a later copy re-numbers nothing before it
    e = entry(tmp_path, "e", "after", 1)
    assert pairs.find([d, e], [Version("1.0")]) == []


def test_within_picks_that_differ_are_reported_as_undecided(tmp_path: Path) -> None:
    a = write_entry(
        tmp_path,
        "a",
        HEAD.format(rewrite="insert_after: {scope: plan, find: 'sync()', code: 'log(1)', within: 'if spec:'}"),
    )
    b = write_entry(tmp_path, "b", HEAD.format(rewrite=KINDS["after"].format(pick=", occurrence: 1")))
    (o,) = pairs.find([load_patch(a), load_patch(b)], [Version("1.0")])
    assert "`within:` differ" in o.what


def test_a_find_in_the_code_another_writes_is_an_overlap(tmp_path: Path) -> None:
    first = "replace: {scope: plan, find: 'a = 1', with: 'a = f(1) - 1'}"
    then = "replace: {scope: plan, find: 'f(1) - 1', with: 'g(0)'}"
    a = load_patch(write_entry(tmp_path, "a", HEAD.format(rewrite=first)))
    b = load_patch(write_entry(tmp_path, "b", HEAD.format(rewrite=then)))
    assert run(b, a) is None and run(a, b) is not None  # b stacks on a
    for order in ([a, b], [b, a]):
        (o,) = pairs.find(order, [Version("1.0")])
        assert "in the code the first writes" in o.what and (o.first, o.second) == ("a", "b")  # b comes after a


# --- a function's decorators and signature are not its body ------------------------------------------

FUNC = b"""\
import functools


@functools.cache
def plan(spec, limit=4):
    size = len(spec)
    return min(size, limit)
"""
BESIDE = {
    "add_decorator": "add_decorator: {function: plan, decorator: staticmethod}",
    "remove_decorator": "remove_decorator: {function: plan, decorator: functools.cache}",
    "set_default": "set_default: {function: plan, parameter: limit, from: '4', to: '8'}",
    "add_parameter": "add_parameter: {function: plan, name: extra, default: 'None'}",
}
BODY = {
    "wrap_body": 'wrap_body: {function: plan, with: "try:\\n    __body__\\nfinally:\\n    pass"}',
    "replace_body": 'replace_body: {function: plan, find: "size = len(spec)\\nreturn min(size, limit)", '
    'with: "return len(spec)"}',
}


def test_decorators_and_signature_beside_a_body_rewrite_commute_and_do_not_overlap(tmp_path: Path) -> None:
    def load(name: str, rewrite: str) -> Patch:
        return load_patch(write_entry(tmp_path, name, HEAD.format(rewrite=rewrite)))

    def both(first: Patch, then: Patch) -> bytes:
        out = runner.forward(first, first.rewrites, FUNC, "core.py")
        return runner.forward(then, then.rewrites, out, "core.py")

    for beside in BESIDE.values():
        for body in BODY.values():
            a, b = load("a", beside), load("b", body)
            assert both(a, b) == both(b, a)  # the reference: the order does not matter
            assert pairs.find([a, b], [Version("1.0")]) == [], (beside, body)
    c = load("c", "replace: {scope: plan, find: 'len(spec)', with: 'len(spec) + 1'}")
    assert pairs.find([load("b", BODY["wrap_body"]), c], [Version("1.0")])  # the body itself still does


def test_a_package_spelled_with_and_without_its_init_is_one_file(tmp_path: Path) -> None:
    rewrite = KINDS["after"].format(pick="")
    for name, module in (("a", "toypkg.sub"), ("b", "toypkg.sub.__init__")):
        write_entry(tmp_path, name, HEAD.replace("toypkg.core", module).format(rewrite=rewrite))
    a, b = load_patch(tmp_path / "a.yaml"), load_patch(tmp_path / "b.yaml")
    (o,) = pairs.find([a, b], [Version("1.0")])
    assert o.module == "toypkg.sub" and not o.ordered


# --- apply decides `within:` picks on the installed file -------------------------------------------

WITHIN_FILES = {
    "toypkg/__init__.py": "",
    "toypkg/core.py": "def sync():\n    pass\n\n\ndef log(what):\n    pass\n\n\n"
    "def plan(spec, other):\n    if spec:\n        sync()\n    if other:\n        sync()\n",
}


def test_apply_tells_within_picks_apart_on_the_installed_file(site: Site, radpatch: Any, write_registry: Any) -> None:
    site.install("toypkg", "1.0", WITHIN_FILES)
    for name, within in (("a", "if spec:"), ("b", "if other:"), ("c", "if spec:")):
        rewrite = f"insert_after: {{scope: plan, find: 'sync()', code: 'log(\"{name}\")', within: '{within}'}}"
        reg = write_registry(name, HEAD.format(rewrite=rewrite))
    listed = radpatch("--registry", str(reg), "list").out  # tried on the installed release, as apply tries it
    assert "a (insert_after#1) and b (" not in listed, listed  # two copies on the file: no overlap
    assert "overlap: a (insert_after#1) and c (" in listed, listed  # one copy: it does
    core_py = site.root / "toypkg/core.py"
    installed = core_py.read_bytes()
    core_py.write_bytes(installed + b"# edited by hand\n")  # not the release: only the registry text is left
    listed = radpatch("--registry", str(reg), "list").out
    assert "may overlap: a (insert_after#1) and b (" in listed and "`within:` differ" in listed, listed
    core_py.write_bytes(installed)
    r = radpatch("--registry", str(reg), "apply", "a", "b")  # two copies on the file: no overlap
    assert r.code == 0, r.err
    core = (site.root / "toypkg/core.py").read_text()
    assert core.index('log("a")') < core.index("if other:") < core.index('log("b")')
    r = radpatch("--registry", str(reg), "apply", "c")  # the copy `a` inserted after: still refused
    assert r.code == 1 and " overlap" in r.err and "a (" in r.err and "c (" in r.err, r.err
