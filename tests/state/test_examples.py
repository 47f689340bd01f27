"""Issue 21's examples of `status` or the engine-start check saying what is not true, one test each,
on a fake site-packages (tests/conftest.py): two patches stacked on one module (`low` then
`high`), entries revised under them (code, description, module moved, file added), reinstalls,
comment edits, and a checkout shadowing the install.

Each test ends with a full revert, checked byte for byte against the distribution's RECORD.
"""

from __future__ import annotations

import json
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import pytest

from radpatch import plugin
from radpatch.plugin import Seen

Site = Any  # tests/conftest.py's Site

CORE = """\
def low(x):
    return x + 1


def high(y):
    return y * 2
"""
FILES = {
    "stk/__init__.py": "",
    "stk/core.py": CORE,
    "stk/other.py": CORE,  # the same functions: an entry can move here
    "stk/extra.py": "def third(z):\n    return z - 3\n",
}


def entry(scope: str, find: str, with_: str, module: str = "stk.core", description: str = "d", extra: str = "") -> str:
    text = f"""\
        summary: s
        description: {description}
        distribution: stk
        supported: ">=1.0,<2"
        modules:
          m: {module}
          x: stk.extra
        rewrites:
          - id: r
            file: m
            replace: {{scope: {scope}, find: "{find}", with: "{with_}"}}
        """
    text = textwrap.dedent(text)
    if extra:
        text += f"""  - id: e\n    file: x\n    replace: {{scope: third, find: "z - 3", with: "{extra}"}}\n"""
    return text


LOW = ("low", "x + 1", "x + 10")
HIGH = ("high", "y * 2", "y * 20")


class Stk:
    def __init__(self, site: Site, write_registry: Any, radpatch: Any) -> None:
        site.install("stk", "1.0", FILES)
        self.site, self.write, self.rp = site, write_registry, radpatch
        self.reg = write_registry("low", entry(*LOW))
        write_registry("high", entry(*HIGH))
        self.pristine = {rel: (site.root / rel).read_bytes() for rel in FILES}

    def __call__(self, *argv: str) -> Any:
        return self.rp("--registry", str(self.reg), *argv)

    def ok(self, *argv: str) -> Any:
        r = self(*argv)
        assert r.code == 0, (argv, r.out, r.err)
        return r

    def states(self, *names: str) -> dict[str, dict[str, Any]]:
        return {s["patch"]: s for s in json.loads(self.ok("status", "--json", *names).out)}

    def state(self, *names: str) -> dict[str, str]:
        return {n: s["state"] for n, s in self.states(*names).items()}

    def path(self, rel: str) -> Path:
        return Path(self.site.root) / rel

    def text(self, rel: str = "stk/core.py") -> str:
        return self.path(rel).read_text()

    def files(self) -> dict[str, bytes]:
        return {rel: self.path(rel).read_bytes() for rel in FILES}

    def reinstall(self) -> None:
        """What pip install --force-reinstall does to the files: RECORD's bytes back, nothing else."""
        for rel, data in self.pristine.items():
            self.path(rel).write_bytes(data)

    def revert_all(self, *names: str) -> None:
        self.ok("revert", *names)
        assert self.files() == self.pristine
        assert not (Path(self.site.root) / ".radpatch").exists()


@pytest.fixture
def stk(site: Site, write_registry: Any, radpatch: Any) -> Stk:
    return Stk(site, write_registry, radpatch)


def test_stacked_patches_read_applied_at_engine_start(stk: Stk, monkeypatch: pytest.MonkeyPatch) -> None:
    stk.ok("apply", "low")
    stk.ok("apply", "high")
    checks = {c.name: c.state for c in plugin.check(stk.path(""), ("low", "high"))}
    assert checks == {"low": Seen.APPLIED, "high": Seen.APPLIED}
    vllm = types.ModuleType("vllm")  # the engine's package stands for stk, imported from the site
    vllm.__file__ = str(stk.path("stk/__init__.py"))
    monkeypatch.setitem(sys.modules, "vllm", vllm)
    monkeypatch.setattr(plugin, "_own_site", lambda root: True)
    monkeypatch.setenv(plugin.REQUIRE_ENV, "low,high")
    plugin.register()  # a correctly patched engine starts: RequiredPatchMissing would be raised here
    stk.path("stk/core.py").write_text(CORE)  # and one that is not refuses
    with pytest.raises(plugin.RequiredPatchMissing):
        plugin.register()
    stk.ok("apply", "low", "high")
    stk.revert_all("low", "high")


def test_a_revision_that_moves_the_entry_to_another_module(stk: Stk) -> None:
    stk.ok("apply", "low")
    patched = stk.path("stk/core.py").read_bytes()
    stk.write("low", entry(*LOW, module="stk.other"))
    st = stk.states("low")["low"]
    assert st["state"] == "applied", st  # never "not-applied" while stk/core.py carries the patch
    assert st["applied_registry_digest"] != st["registry_digest"]
    assert [f["path"] for f in st["files"]] == [str(stk.path("stk/core.py"))]
    assert "another revision" in stk.ok("status", "low").out or "different revision" in stk.ok("status", "low").out
    assert {c.name: c.state for c in plugin.check(stk.path(""))} == {"low": Seen.APPLIED}
    # apply installs the current revision: the old module back, the new one patched
    r = stk.ok("apply", "low")
    assert "re-applying the current one" in r.out
    assert stk.path("stk/core.py").read_bytes() == stk.pristine["stk/core.py"]
    assert stk.path("stk/other.py").read_bytes() == patched  # the same function, patched the same way
    st = stk.states("low")["low"]
    assert st["state"] == "applied" and st["applied_registry_digest"] == st["registry_digest"], st
    stk.revert_all("low")


def test_revert_after_a_move_restores_the_old_module_and_only_then_forgets(stk: Stk) -> None:
    stk.ok("apply", "low")
    stk.write("low", entry(*LOW, module="stk.other"))
    r = stk.ok("revert", "low")
    assert "byte for byte" in r.out, r.out
    assert stk.files() == stk.pristine  # the old module restored; the record and originals go only now
    assert not (stk.path(".radpatch")).exists()
    assert stk.state("low") == {"low": "not-applied"}


def test_a_move_never_loses_the_record_while_the_old_module_stays_patched(stk: Stk) -> None:
    stk.ok("apply", "low")
    core = stk.path("stk/core.py")
    core.write_text("# a note\n" + core.read_text())  # a comment: the bytes are no longer radpatch's
    stk.write("low", entry(*LOW, module="stk.other"))
    assert stk.state("low") == {"low": "applied"}  # the old module carries the applied revision
    # the applied revision comes off the edited old module by the result kept when it was applied
    # (not the moved entry's inverse), the comment kept; only then is the record forgotten
    r = stk.ok("revert", "low")
    assert "comment and layout edits kept" in r.out, r.out
    assert core.read_text() == "# a note\n" + CORE
    assert stk.path("stk/other.py").read_bytes() == stk.pristine["stk/other.py"]
    assert not stk.path(".radpatch").exists()
    assert stk.state("low") == {"low": "not-applied"}
    stk.ok("apply", "low")  # the current revision goes into the module it now names
    assert core.read_text() == "# a note\n" + CORE
    assert stk.state("low") == {"low": "applied"}
    stk.ok("revert", "low")
    assert stk.files() == {**stk.pristine, "stk/core.py": ("# a note\n" + CORE).encode()}


def test_a_revision_that_adds_a_file_under_a_stacked_patch(stk: Stk) -> None:
    stk.ok("apply", "low")
    stk.ok("apply", "high")
    stk.write("low", entry(*LOW, extra="z - 30"))
    assert stk.state("low", "high") == {"low": "applied", "high": "applied"}
    r = stk("apply", "low")  # high sits on top of low's link: it has to come off and on again
    assert r.code == 1 and "radpatch apply low high" in r.err, r.err
    stk.ok("apply", "low", "high")
    assert "x + 10" in stk.text() and "y * 20" in stk.text() and "z - 30" in stk.text("stk/extra.py")
    sts = stk.states("low", "high")
    applied = [s["state"] == "applied" and s["applied_registry_digest"] == s["registry_digest"] for s in sts.values()]
    assert all(applied), sts
    assert {c.name: c.state for c in plugin.check(stk.path(""))} == {"low": Seen.APPLIED, "high": Seen.APPLIED}
    stk.revert_all("low", "high")


def test_a_reinstall_followed_by_stacking_another_patch(stk: Stk) -> None:
    stk.ok("apply", "low")
    stk.reinstall()
    stk.ok("apply", "high")
    assert stk.state("low", "high") == {"low": "not-applied", "high": "applied"}  # never "drifted"
    assert {c.name: c.state for c in plugin.check(stk.path(""))} == {"low": Seen.NOT_APPLIED, "high": Seen.APPLIED}
    stk.ok("apply", "low")  # stacks on high now
    assert stk.state("low", "high") == {"low": "applied", "high": "applied"}
    assert stk.ok("status", "--check").code == 0
    stk.revert_all("low", "high")


@pytest.mark.parametrize("where", ["top", "middle", "end"])
def test_one_comment_line_on_stacked_patches(stk: Stk, where: str) -> None:
    stk.ok("apply", "low")
    stk.ok("apply", "high")
    core = stk.path("stk/core.py")
    lines = core.read_text().splitlines(keepends=True)
    at = {"top": 0, "middle": 3, "end": len(lines)}[where]
    core.write_text("".join([*lines[:at], "# a note\n", *lines[at:]]))
    assert stk.state("low", "high") == {"low": "applied", "high": "applied"}
    assert stk("status", "--check", "low", "high").code == 0
    assert {c.name: c.state for c in plugin.check(stk.path(""))} == {"low": Seen.APPLIED, "high": Seen.APPLIED}
    assert stk("apply", "low", "high").code == 0  # nothing to do, not a refusal
    r = stk.ok("revert", "low", "high")
    assert "kept" in r.out, r.out
    want = CORE.splitlines(keepends=True)
    assert core.read_text() == "".join([*want[:at], "# a note\n", *want[at:]])


def test_a_code_line_on_stacked_patches_is_drift(stk: Stk) -> None:
    stk.ok("apply", "low")
    stk.ok("apply", "high")
    core = stk.path("stk/core.py")
    edited = core.read_text() + "EDITED = 1\n"
    core.write_text(edited)
    assert set(stk.state("low", "high").values()) == {"drifted"}
    assert stk("revert", "low", "high").code == 1 and stk("apply", "low", "high").code in (0, 1)
    assert core.read_text() == edited


@pytest.mark.parametrize("changed", ["low", "high"])
def test_stacked_revert_after_one_entry_description_changes(stk: Stk, changed: str) -> None:
    stk.ok("apply", "low")
    stk.ok("apply", "high")
    stk.write(changed, entry(*(LOW if changed == "low" else HIGH), description="a better description"))
    assert stk.state("low", "high") == {"low": "applied", "high": "applied"}
    stk.revert_all("low", "high")


@pytest.mark.parametrize("case", ["revise-low-under-high", "revise-low-then-stack-high", "revise-high-over-low"])
def test_reapplying_a_revised_entry_in_the_same_run_as_a_stacked_one(stk: Stk, case: str) -> None:
    stk.ok("apply", "low")
    if case != "revise-low-then-stack-high":
        stk.ok("apply", "high")
    if case == "revise-high-over-low":
        stk.write("high", entry("high", "y * 2", "y * 21"))
        want = ("x + 10", "y * 21")
    else:
        stk.write("low", entry("low", "x + 1", "x + 11"))
        want = ("x + 11", "y * 20")
    stk.ok("apply", "low", "high")
    text = stk.text()
    assert all(w in text for w in want) and "x + 10" not in text.replace(want[0], ""), text
    sts = stk.states("low", "high")
    applied = [s["state"] == "applied" and s["applied_registry_digest"] == s["registry_digest"] for s in sts.values()]
    assert all(applied), sts
    assert stk("apply", "low", "high").out.count("nothing to do") == 2
    stk.revert_all("low", "high")


def test_a_shadowing_checkout_fails_status_check(stk: Stk, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stk.ok("apply", "low")
    assert stk("status", "--check", "low").code == 0
    checkout = tmp_path / "checkout"
    for rel in ("stk/__init__.py", "stk/core.py"):
        (checkout / rel).parent.mkdir(parents=True, exist_ok=True)
        (checkout / rel).write_bytes(stk.pristine[rel])
    monkeypatch.syspath_prepend(str(checkout))  # PYTHONPATH=checkout: it comes before site-packages
    r = stk("status", "--check", "low")
    assert r.code == 3, (r.out, r.err)
    assert str(checkout / "stk" / "core.py") in r.err and "shadows the install" in r.err, r.err
    (st,) = json.loads(stk.ok("status", "--json", "low").out)
    assert [f["imported_from"] for f in st["files"]] == [str(checkout / "stk" / "core.py")], st
    # the state stays `applied` (radpatch's files are as it wrote them); the check's verdict is in the JSON too
    assert st["state"] == "applied" and st["passes_check"] is False, st


def test_a_checkout_in_the_working_directory_fails_status_check(
    stk: Stk, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """att63 F4: `python -m` and `python -c` put the working directory first on the import path, so an engine
    started where a checkout of the package lies runs the checkout; `status --check` run there passed."""
    stk.ok("apply", "low")
    checkout = tmp_path / "checkout"
    for rel in ("stk/__init__.py", "stk/core.py"):
        (checkout / rel).parent.mkdir(parents=True, exist_ok=True)
        (checkout / rel).write_bytes(stk.pristine[rel])
    monkeypatch.chdir(tmp_path)  # beside the checkout, not in it: nothing shadows
    assert stk("status", "--check", "low").code == 0
    monkeypatch.chdir(checkout)
    r = stk("status", "--check", "low")
    assert r.code == 3, (r.out, r.err)
    assert str(checkout / "stk" / "core.py") in r.err and f"started in {checkout}" in r.err, r.err
    (st,) = json.loads(stk.ok("status", "--json", "low").out)
    assert st["state"] == "applied" and st["passes_check"] is False, st
