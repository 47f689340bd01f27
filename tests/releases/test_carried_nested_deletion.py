"""A deleted statement that upstream still runs, nested in a compound statement, is not "obsolete".

The base's `Engine.configure` sets `self.timeout = 30` between two other statements; the entry
deletes it. Releases are generated: the statement nested 0-2 deep in `with`/`if`/`else`/`try`/
`except`/`finally`/`for`/`while` bodies, in `configure` itself, in a helper `configure` calls, or
in a helper of that helper; or the same nesting with the statement gone. The reference: the
release carries the deletion exactly when the statement is gone. verify says so on real wheels of a
loopback index, where the helper holds the statement inside a `with` block (att23c N3).
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from radpatch.releases import carried
from radpatch.releases.compared import Compared
from tests.lib.generated import sample
from tests.lib.toy_releases import DIST, PKG

BASE = """\
import os


class Engine:
    def configure(self):
        self.a = 1
        self.timeout = 30
        self.b = 2
"""
AFTER = BASE.replace("        self.timeout = 30\n", "")
STATEMENT = "self.timeout = 30"

# each kind: the lines before the nested body, and after it (at the compound's own indent)
KINDS: dict[str, tuple[list[str], list[str]]] = {
    "with": (["with open(os.devnull) as _f:"], []),
    "if": (["if self.a:"], []),
    "else": (["if not self.a:", "    pass", "else:"], []),
    "try": (["try:"], ["except OSError:", "    pass"]),
    "except": (["try:", "    raise OSError", "except OSError:"], []),
    "finally": (["try:", "    pass", "finally:"], []),
    "for": (["for _ in range(1):"], []),
    "while": (["while True:"], ["    break"]),
}


def nest(kinds: tuple[str, ...], body: str) -> list[str]:
    """`body` inside the compound statements `kinds` (outermost first), as lines from indent 0."""
    if not kinds:
        return [body]
    head, tail = KINDS[kinds[0]]
    inner = ["    " + line for line in nest(kinds[1:], body)]
    return [*head, *inner, *tail]


def release(where: str, kinds: tuple[str, ...], present: bool) -> str:
    body = nest(kinds, STATEMENT if present else "pass")

    def method(name: str, lines: list[str]) -> str:
        return f"    def {name}(self):\n" + "".join(f"        {line}\n" for line in lines)

    out = "import os\n\n\nclass Engine:\n"
    if where == "scope":
        return out + method("configure", ["self.a = 1", *body, "self.b = 2"])
    out += method("configure", ["self.a = 1", "self._set_timeout()", "self.b = 2"]) + "\n"
    if where == "helper":
        return out + method("_set_timeout", body)
    return out + method("_set_timeout", ["self._apply()"]) + "\n" + method("_apply", body)


SHAPES = [k for depth in range(3) for k in itertools.product(KINDS, repeat=depth)]
CASES = sample(itertools.product(("scope", "helper", "helper-of-helper"), SHAPES, (True, False)))


@pytest.mark.parametrize(("where", "kinds", "present"), CASES)
def test_a_nested_deletion_still_run_is_not_carried(where: str, kinds: tuple[str, ...], present: bool) -> None:
    source = release(where, kinds, present)
    compile(source, where, "exec")
    assert (STATEMENT in source) is present
    got = carried.carries(Compared(BASE.encode(), AFTER.encode(), source.encode()))
    assert got is (not present), source


ENTRY = f"""\
summary: Drop the timeout
description: A deletion only.
distribution: {DIST}
supported: "==1.0"
upstream: [https://github.com/example/toy/pull/7]
modules:
  core: {PKG}.core
rewrites:
  - id: no-timeout
    delete:
      scope: Engine.configure
      find: self.timeout = 30
"""


def test_verify_does_not_call_a_release_obsolete_whose_helper_runs_the_deleted_statement_in_a_with_block(
    loopback: Any, write_registry: Any, radpatch: Any
) -> None:
    loopback(
        DIST,
        {
            "1.0": {f"{PKG}/core.py": BASE},
            "2.0": {f"{PKG}/core.py": release("helper", ("with",), True)},  # att23c N3's toyq 2.3
            "3.0": {f"{PKG}/core.py": release("helper", ("with",), False)},  # upstream really dropped it
        },
    )
    reg = write_registry("no-timeout", ENTRY)
    r = radpatch("--registry", str(reg), "verify", "no-timeout", "--versions", ">=1.0", "--json")
    assert r.code == 0, r.err
    data = json.loads(r.out)
    assert data["obsolete"] == ["3.0"], data
    results = {x["version"]: x for x in data["results"]}
    assert "already contains this change" not in (results["2.0"]["error"] or "")
