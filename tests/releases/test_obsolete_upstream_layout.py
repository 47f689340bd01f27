"""A release is obsolete for an entry when its module already carries the entry's change, in
whatever layout upstream wrote it (radpatch.releases.carried).

Upstream never writes a change as radpatch does: a deleted statement leaves no `# radpatch:
deleted` comment and an added import no marker, so undoing the rewrites on upstream's module
refuses, and the quotes, line breaks, comments and the rest of the module are its own. Here the
"upstream" releases are generated: each of the entry's four changes is made, left out or made in
the wrong place, in a random layout with random unrelated upstream changes around it, one wheel
per variant on the loopback index; the reference says a variant is obsolete exactly when every
change is made where the rewrites make it, and verify must agree on every one.
"""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import dataclass
from typing import Any

PKG = "rptoy"
DIST = "radpatch-toy"

BASE = '''\
import os


def size(items, limit=None):
    buckets = [items]
    n = len(items)
    if limit:
        n = min(n, limit)
    debug = "size"
    return n


class Planner:
    """Plans."""

    def plan(self, items):
        total = size(items)
        self.log("planned", total)
        return total

    def other(self):
        return os.sep
'''

ENTRY = f"""\
summary: Floor the size, log the count, drop the debug name
description: Four changes, two of them (the import, the deletion) undone through radpatch's own markers.
distribution: {DIST}
supported: "==1.0"
modules:
  core: {PKG}.core
rewrites:
  - id: math
    add_import:
      import: import math
  - id: no-debug
    delete:
      scope: size
      find: debug = "size"
  - id: log-count
    replace:
      scope: Planner.plan
      find: self.log("planned", total)
      with: self.log("planned", total, len(items))
  - id: floor
    insert_after:
      scope: size
      find: n = len(items)
      code: n = math.floor(max(n, 1))
"""


@dataclass(frozen=True)
class Variant:
    """How one upstream release stands to each change of the entry."""

    imported: bool  # `import math` is there
    floor: str  # "done" (after `n = len(items)`), "absent", "before" (the wrong place)
    deleted: bool  # `debug = "size"` is gone
    logged: bool  # the log call counts the items

    @property
    def carries(self) -> bool:
        """The reference: the release already has the entry's change."""
        return self.imported and self.floor == "done" and self.deleted and self.logged


def render(v: Variant, rng: random.Random) -> str:
    """The module as an upstream author might write it: the variant's changes, in a random layout
    (quotes, line breaks, comments, blank lines) with random changes of their own around them."""
    q = rng.choice(['"', "'"])

    def block(statements: list[str], indent: str) -> list[str]:
        out = []
        for s in statements:
            if rng.random() < 0.25:
                out.append(f"{indent}# {rng.choice(['note', 'see upstream', 'TODO: tidy'])}")
            out += [indent + line if line else "" for line in s.splitlines()]
            if rng.random() < 0.15:
                out.append("")
        return out

    imports = ["import os"]
    if v.imported:
        imports.insert(rng.randrange(2), "import math")
    floor = rng.choice(
        ["n = math.floor(max(n, 1))", "n = math.floor(\n    max(n, 1)\n)", "n = math.floor(max(n,1))  # >= 1"]
    )
    size: list[str] = []
    if rng.random() < 0.5:
        size.append("items = list(items)")  # upstream's own change in the same function
    size.append("buckets = [items]")
    if v.floor == "before":
        size.append(floor)
    size.append("n = len(items)")
    if v.floor == "done":
        size.append(floor)
    size.append(
        "if limit:\n    n = min(n, limit)" if rng.random() < 0.5 else "if limit:\n    n = min(\n        n, limit\n    )"
    )
    if not v.deleted:
        size.append(f"debug = {q}size{q}")
    size.append("return n")
    log = (
        rng.choice(
            [
                f"self.log({q}planned{q}, total, len(items))",
                f"self.log(\n    {q}planned{q},\n    total,\n    len(items),\n)",
            ]
        )
        if v.logged
        else f"self.log({q}planned{q}, total)"
    )
    plan = ["total = size(items)", log, "return total"]
    other = ["return os.sep" if rng.random() < 0.5 else "return os.sep * 2"]  # upstream changed it, or not
    lines = [*imports, "", ""]
    if rng.random() < 0.5:
        lines += ["VERSION = 2", "", ""]  # upstream's own module-level code
    lines += ["def size(items, limit=None):", *block(size, "    "), "", ""]
    lines += ["class Planner:", f"    {q * 3}Plans.{q * 3}", ""]
    lines += ["    def plan(self, items):", *block(plan, "        "), ""]
    lines += ["    def other(self):", *block(other, "        ")]
    if rng.random() < 0.5:
        lines += ["", "    def extra(self):", "        return 3"]  # a method upstream added
    return "\n".join(lines) + "\n"


def variants() -> list[Variant]:
    every = [
        Variant(i, f, d, lg)
        for i, f, d, lg in itertools.product((True, False), ("done", "absent", "before"), (True, False), (True, False))
    ]
    return [*every, *[Variant(True, "done", True, True)] * 6]  # the change, in six more layouts


def test_a_release_carrying_the_change_in_its_own_layout_is_obsolete(
    loopback: Any, write_registry: Any, radpatch: Any
) -> None:
    rng = random.Random(23)
    releases: dict[str, dict[str, str | bytes]] = {"1.0": {f"{PKG}/core.py": BASE}}
    expected: dict[str, bool] = {}
    for n, v in enumerate(variants()):
        version = f"2.{n}"
        source = render(v, rng)
        compile(source, version, "exec")  # every variant is valid Python
        releases[version] = {f"{PKG}/core.py": source}
        expected[version] = v.carries
    loopback(DIST, releases)
    reg = write_registry("floor", ENTRY)
    r = radpatch("--registry", str(reg), "verify", "floor", "--versions", ">=1.0", "--json")
    assert r.code == 0, r.err  # 1.0, the one release it claims, passes
    data = json.loads(r.out)
    results = {x["version"]: x for x in data["results"]}
    assert results["1.0"]["ok"] is True
    got = {v: v in data["obsolete"] for v in expected}
    assert got == expected, {v: results[v]["error"] for v in expected if got[v] != expected[v]}
    assert sum(expected.values()) == 7  # the reference is not trivially all one answer
    for version, carries in expected.items():
        if carries:
            assert results[version]["checks"]["pristine"] is False
            assert "already contains this change" in results[version]["error"]


def test_undoing_the_rewrites_on_upstreams_layout_refuses_which_is_why_the_change_is_compared(
    loopback: Any, write_registry: Any, radpatch: Any
) -> None:
    """The entry's own undo cannot tell these releases: it needs radpatch's markers. Were verify to
    decide by the undo alone (as it did), the release would read "no match", not obsolete."""
    from radpatch.errors import RefusedError
    from radpatch.registry.loader import load_patch
    from radpatch.rewrite import runner

    rng = random.Random(5)
    upstream = render(Variant(True, "done", True, True), rng)
    reg = write_registry("floor", ENTRY)
    patch = load_patch(reg / "floor.yaml")
    try:
        runner.backward(patch, patch.rewrites, upstream.encode(), f"{PKG}/core.py")
        raise AssertionError("the undo ran on upstream's layout")
    except RefusedError as exc:
        assert "radpatch: deleted" in exc.message or "cannot undo" in exc.message
    loopback(DIST, {"1.0": {f"{PKG}/core.py": BASE}, "2.0": {f"{PKG}/core.py": upstream}})
    r = radpatch("--registry", str(reg), "verify", "floor", "--versions", ">=1.0", "--json")
    assert json.loads(r.out)["obsolete"] == ["2.0"]


def test_the_change_is_read_off_a_release_of_the_range_where_the_entry_applies(
    loopback: Any, write_registry: Any, radpatch: Any
) -> None:
    """The declared range holds a release the entry does not apply to (its lowest) and the one
    upstream made the change in (its newest): the change is read off the release where it applies."""
    upstream = render(Variant(True, "done", True, True), random.Random(7))
    older = BASE.replace('    debug = "size"\n', "")  # the entry's deletion finds nothing here
    loopback(
        DIST, {"0.9": {f"{PKG}/core.py": older}, "1.0": {f"{PKG}/core.py": BASE}, "2.0": {f"{PKG}/core.py": upstream}}
    )
    reg = write_registry("floor", ENTRY.replace('supported: "==1.0"', 'supported: ">=0.9,<3"'))
    r = radpatch("--registry", str(reg), "verify", "floor", "--json")
    data = json.loads(r.out)
    results = {x["version"]: x for x in data["results"]}
    assert data["obsolete"] == ["2.0"], results["2.0"]["error"]
    assert results["0.9"]["checks"]["match"] is False and results["1.0"]["ok"] is True


def test_the_releases_the_change_is_read_off_are_read_only_for_a_release_the_rewrites_do_not_apply_to(
    loopback: Any, write_registry: Any, radpatch: Any
) -> None:
    upstream = render(Variant(True, "done", True, True), random.Random(11))
    reformatted = render(Variant(False, "absent", False, False), random.Random(11))  # no change, other layout
    loopback(
        DIST,
        {"1.0": {f"{PKG}/core.py": BASE}, "2.0": {f"{PKG}/core.py": upstream}, "2.1": {f"{PKG}/core.py": reformatted}},
    )
    reg = write_registry("floor", ENTRY)
    passing = json.loads(radpatch("--registry", str(reg), "verify", "floor", "--versions", "==2.1", "--json").out)
    assert passing["results"][0]["ok"] is True and not passing["bases_read"]  # no base read for 2.1
    # 2.1, and 1.0, the release the entry claims below it, that its matches are compared with (surroundings)
    assert passing["fetched"]["releases"] == 2
    carried = json.loads(radpatch("--registry", str(reg), "verify", "floor", "--versions", "==2.0", "--json").out)
    # 2.0, then 1.0 to read the change off (cached since 2.1 was compared with it)
    assert carried["obsolete"] == ["2.0"] and carried["bases_read"] == ["1.0"], carried
    assert [r["version"] for r in carried["results"]] == ["2.0"]
