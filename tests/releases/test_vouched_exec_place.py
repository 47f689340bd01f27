"""A vouched exec is trusted only where and as it was vouched; an item matching nothing is stale (issue 23, att52 #3).

`vouched_exec:` anchored a call by its file and statement only: the same statement moved into another
def, a copy of it added (`def tweak(code): namespace = sys.modules["rptoy.core"].__dict__; exec(code,
namespace)`), or the namespace it passes bound anew (`namespace = vars(core)` where it was `namespace =
{}`) were all still vouched for, and the rename was followed while the code run could store the renamed
name in its module. An item that matched nothing was silently ignored.

Generated: the author vouches on 2.0 with the item its refusal prints (`run(code)` executes the code in
a fresh dict); 2.1 changes the hook one way (kept, reformatted, moved to another def, a method, module
level; duplicated; the names it passes bound anew). The oracle: Python imports the release and calls each
place that runs the code with code that stores the old name (`size = len`): does `rptoy.core.size` stay
the renamed definition? radpatch never follows the rename where it does not; it follows it where nothing
changed but formatting; a move, a copy or a rebinding is refused, naming what changed; an item that no
longer matches its place is reported stale in 2.1 (`verify --json` and text)."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

from radpatch.releases import exec_sites
from tests.lib.generated import sample
from tests.lib.toy_releases import DIST, GOOD, HOOK_HEAD, RENAME_ENTRY, hook_keeps_rename, hook_release

HEAD = HOOK_HEAD
BASE = "def run(code):\n    namespace = {}\n    exec(code, namespace)\n    return namespace\n\n\nENTRIES = [run]\n"
HOOKS = {  # (2.1's hook, what changed: "" kept, else words the refusal says of it)
    "kept": (BASE, ""),
    "reformatted": (BASE.replace("exec(code, namespace)", "exec(code,  namespace)  # run it"), ""),
    "moved to another def": (BASE.replace("run", "tweak"), "the item vouches for it in run"),
    "moved into a method": (
        "class Runner:\n    def run(self, code):\n        namespace = {}\n        exec(code, namespace)\n\n\n"
        "ENTRIES = [Runner().run]\n",
        "the item vouches for it in run",
    ),
    "moved to module level": (
        'code = os.environ.get("RPTOY_CODE", "")\nnamespace = {}\nexec(code, namespace)\nENTRIES = []\n',
        "the item vouches for it in run",
    ),
    "duplicated in its def": (
        BASE.replace("exec(code, namespace)\n", "exec(code, namespace)\n    exec(code, namespace)\n"),
        "the 2nd such call in run",
    ),
    "copied to a def on the module": (
        BASE.replace(
            "ENTRIES = [run]",
            'def tweak(code):\n    namespace = sys.modules["rptoy.core"].__dict__\n    exec(code, namespace)\n\n\n'
            "ENTRIES = [run, tweak]",
        ),
        "the item vouches for it in run",
    ),
    "namespace = vars(core)": (BASE.replace("namespace = {}", "namespace = vars(core)"), "the names it passes"),
    "namespace = core.__dict__": (BASE.replace("namespace = {}", "namespace = core.__dict__"), "the names it passes"),
    "rebound after the fresh dict": (
        BASE.replace("namespace = {}\n", "namespace = {}\n    namespace = vars(core)\n"),
        "the names it passes",
    ),
    "a parameter's default": (
        BASE.replace("(code):\n    namespace = {}\n", "(code, namespace=vars(core)):\n"),
        "the names it passes",
    ),
    "a global": (
        BASE.replace("    namespace = {}\n", "    global namespace\n").replace(
            "def run", "namespace = vars(core)\n\n\ndef run"
        ),
        "the names it passes",
    ),
    "a copy of the module's dict": (
        BASE.replace("namespace = {}", "namespace = dict(vars(core))"),
        "the names it passes",
    ),
    "the code rewritten": (BASE.replace("namespace = {}\n", "namespace = {}\n    code = code.strip()\n"), "the names"),
}
CASES = sample(list(HOOKS))


def _verify(radpatch: Any, reg: Path, version: str) -> dict[str, Any]:
    told: dict[str, Any] = json.loads(
        radpatch("--registry", str(reg), "verify", "cap", "--versions", version, "--json").out
    )
    return told


@pytest.mark.parametrize("change", CASES)
def test_a_vouch_holds_only_where_and_as_it_was_vouched(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path, change: str
) -> None:
    hook, said = HOOKS[change]
    second = hook_release(hook)
    safe = hook_keeps_rename(tmp_path / "oracle", second)
    loopback(DIST, {"1.0": {"rptoy/__init__.py": "", "rptoy/core.py": GOOD}, "2.0": hook_release(BASE), "2.1": second})
    reg = write_registry("cap", RENAME_ENTRY)
    refused = _verify(radpatch, reg, "2.0")["results"][0]["error"] or ""
    added = refused.split("add to the entry: ", 1)[1]  # the item the refusal prints, as the author adds it
    reg = write_registry("cap", RENAME_ENTRY + added + "\n")
    vouched = _verify(radpatch, reg, "2.0")["results"][0]
    assert "moved: size is now rptoy.planning.size_of" in (vouched["error"] or ""), vouched
    assert vouched["stale_vouched_exec"] == [], vouched

    result = _verify(radpatch, reg, "2.1")["results"][0]
    error = result["error"] or ""
    followed = "not followed" not in error and "moved: size is now rptoy.planning.size_of" in error
    assert safe or not followed, error  # never followed where the code run can store the old name
    if not said:
        assert safe and followed and result["stale_vouched_exec"] == [], result
        return
    assert not followed and "rptoy/hook.py:" in error and said in error, error
    stale = [s["why"] for s in result["stale_vouched_exec"]]
    if change.startswith(("duplicated", "copied")):  # the vouched call is still there, the code around it is not
        assert len(stale) == 1 and stale[0].startswith("at rptoy/hook.py:"), result
        assert "the code the call depends on (" in stale[0] and "run" in stale[0], result  # reads: (vouch2 #1)
    else:
        assert len(stale) == 1 and result["stale_vouched_exec"][0]["item"] == 0, result
    if change == "copied to a def on the module":
        line = [i for i, t in enumerate((HEAD + hook).splitlines(), 1) if "exec(code" in t][-1]
        assert f"hook.py:{line} " in error and "in tweak" in error, error  # names the copy, not the vouched call


def test_a_stale_item_is_said_in_text_with_its_release_and_what_to_do(
    loopback: Any, write_registry: Any, radpatch: Any
) -> None:
    loopback(DIST, {"2.0": hook_release(BASE), "2.1": hook_release(BASE.replace("run", "tweak"))})
    item = {"file": "rptoy/hook.py", "scope": "run", "code": "exec(code, namespace)"}
    item["binds"] = ["parameter code", "namespace = {}"]  # as 2.0's refusal prints it
    (site,) = exec_sites.sites("rptoy/hook.py", ast.parse(HEAD + BASE))
    item["reads"] = site.reads
    reg = write_registry("cap", RENAME_ENTRY + "vouched_exec: " + json.dumps([item]) + "\n")
    text = radpatch("--registry", str(reg), "verify", "cap", "--versions", ">=2.0").out
    assert "2.0: vouched_exec" not in text, text
    line = next(t for t in text.splitlines() if t.startswith("2.1: vouched_exec[0]"))
    assert "rptoy/hook.py (run): `exec(code, namespace)` matches nothing in 2.1" in line, line
    assert "in tweak" in line and "drop it, or replace it" in line, line
    ported = radpatch("--registry", str(reg), "port", "cap", "--to", "==2.1", "--dry-run").out
    assert "2.1: vouched_exec[0] rptoy/hook.py (run): `exec(code, namespace)` matches nothing in 2.1" in ported, ported


def test_an_item_is_not_stale_where_its_file_is_not_there_yet(
    loopback: Any, write_registry: Any, radpatch: Any
) -> None:
    """vouch2 #2: releases older than the first with the item's file said the item was stale there; they
    say it does not apply (the file is not there), once per item, and `--json` lists it apart."""
    loopback(DIST, {"1.0": {"rptoy/__init__.py": "", "rptoy/core.py": GOOD}, "2.0": hook_release(BASE)})
    (site,) = exec_sites.sites("rptoy/hook.py", ast.parse(HEAD + BASE))
    item = {"file": "rptoy/hook.py", "scope": "run", "code": "exec(code, namespace)", "binds": list(site.binds)}
    reg = write_registry("cap", RENAME_ENTRY + "vouched_exec: " + json.dumps([{**item, "reads": site.reads}]) + "\n")
    told = json.loads(radpatch("--registry", str(reg), "verify", "cap", "--versions", ">=1.0", "--json").out)
    by = {r["version"]: r for r in told["results"]}
    assert by["1.0"]["stale_vouched_exec"] == [] and by["1.0"]["absent_vouched_exec"] == [0], by["1.0"]
    assert by["2.0"]["stale_vouched_exec"] == [] and by["2.0"]["absent_vouched_exec"] == [], by["2.0"]
    text = radpatch("--registry", str(reg), "verify", "cap", "--versions", ">=1.0").out
    assert "matches nothing" not in text, text
    said = (
        "vouched_exec[0] rptoy/hook.py (run): `exec(code, namespace)` does not apply to 1.0: there is no rptoy/hook.py"
    )
    assert [t for t in text.splitlines() if "vouched_exec[0]" in t] == [
        said + " there (not stale: nothing there for it to vouch for)"
    ], text
    ported = radpatch("--registry", str(reg), "port", "cap", "--to", ">=1.0", "--dry-run").out
    assert "matches nothing" not in ported and f"  {said}" in ported, ported
