"""A chain of requirements (c1 <- c2 <- ... <- ck: each entry `requires:` the one before it), applied
on a wheel pip-installed into a venv, then one link's file put back, edited in its code or in a
comment by hand. An entry reads applied only when its own files do and every requirement down its
chain does (docs/state.md "Stacked entries"): status, `status --check`, the engine-start self-check
and RADPATCH_REQUIRE say the same as that reference (att47 #2: c3 read applied, and an engine
requiring it started, while c2 read drifted because c1 was gone); and each dependent's note says what
its requirement reads, in both: "which is not applied", "which reads drifted" (its own code edited),
or "which reads drifted (a requirement of its own is not applied)" down the chain (att48: a directly
named requirement that read drifted was said "not applied")."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.agree import DIST, Target, engine_starts, fresh
from tests.lib.generated import sample
from tests.lib.registry import write_entry
from tests.lib.venvs import make_venv
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel  # a real wheel pip-installed into a venv: the real tier

LONGEST = 4
ENTRY = """\
summary: s
description: d
distribution: rpagree
supported: ">=1.0,<2"
{requires}modules:
  m: rpagree.m{i}
rewrites:
  - id: value
    file: m
    replace: {{scope: f, find: "'m{i}'", with: "'m{i} patched'"}}
"""
EDITS = {  # what a hand edit of a link's file does to that link alone
    "pristine": "not-applied",  # the file as the wheel installed it
    "code": "drifted",  # a statement added
    "comment": "applied",  # comments are not code
}


def _source(i: int) -> str:
    return f"def f():\n    return 'm{i}'\n"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Target:
    base = tmp_path_factory.mktemp("rpchain")
    files: dict[str, str | bytes] = {"rpagree/__init__.py": ""}
    files.update({f"rpagree/m{i}.py": _source(i) for i in range(1, LONGEST + 1)})
    wheel = build_wheel(base / "wheels", DIST, "1.0", files)
    t = Target(base / "template", base / "registry", wheel.parent)
    make_venv(t.venv)
    t.reinstall()
    for i in range(1, LONGEST + 1):
        requires = f"requires: [c{i - 1}]\n" if i > 1 else ""
        write_entry(t.registry, f"c{i}", ENTRY.format(requires=requires, i=i), dedent=False)
    return t


def expected(k: int, j: int, edit: str) -> dict[str, str]:
    """The reference: links below j applied, j as the edit leaves it, those above applied only when j is."""
    own = EDITS[edit]
    return {
        f"c{i}": "applied" if i < j else own if i == j else "applied" if own == "applied" else "drifted"
        for i in range(1, k + 1)
    }


CASES = sample([(k, j, e) for k in range(2, LONGEST + 1) for j in range(1, k + 1) for e in EDITS])


@pytest.mark.parametrize(("k", "j", "edit"), CASES)
def test_every_reader_follows_the_whole_chain(
    template: Target, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, k: int, j: int, edit: str
) -> None:
    t = fresh(template, tmp_path / "venv")  # type: ignore[arg-type]
    names = [f"c{i}" for i in range(1, k + 1)]
    code, _, err = t.radpatch("apply", *names)
    assert code == 0, err
    module = t.site / "rpagree" / f"m{j}.py"
    if edit == "pristine":
        module.write_text(_source(j))
    else:
        module.write_text(module.read_text() + ("EXTRA = 1\n" if edit == "code" else "# reviewed\n"))
    want = expected(k, j, edit)
    status = t.status(*names)
    seen = t.engine(*names)
    assert {n: status[n]["state"] for n in names} == want
    assert {n: seen[n].state.value.replace(" ", "-") for n in names} == want
    for n in names:
        passes = want[n] == "applied"
        assert t.check_passes(n) == passes, (n, status[n])
        assert seen[n].satisfied == passes, (n, seen[n])
        assert engine_starts(t.site, n, monkeypatch) == passes, (n, seen[n])
    for i in range(j + 1, k + 1):  # each dependent's note says what its requirement reads, in both
        name, req = f"c{i}", f"c{i - 1}"
        if want[name] != "drifted":
            continue
        words = f"it requires {req}, which " + ("is not applied" if want[req] == "not-applied" else "reads drifted")
        chained = " (a requirement of its own is not applied)"
        for said in (str(status[name]["reason"]), seen[name].detail):
            assert words in said and ((words + chained) in said) == (i - 1 > j), (name, said)
