"""A vouch sees the code of its module the call depends on, not only its statement and binds (issue 23, vouch2 #1).

`binds` names the statements binding the names an exec passes. A release could change what the call
runs, or where its code can store, under unchanged statements: the text of the code built by a def it
calls, what a caller of its def passes in a parameter, what an attribute it passes holds, the namespace
changed in place (before the call, or its result copied into a module after it), an import added to
the module that rebinds the namespace (a star import: att57 F6). Each was still vouched
for, and the rename followed where the code run rebinds the old name.

Generated: per way the hook runs code (a generator def, a parameter, an attribute, a fresh dict), 2.0
as vouched (the item its refusal prints) and 2.1 changed one way. The oracle: Python imports 2.1 and
calls each place that runs code with code storing the old name (`size = len`): does `rptoy.core.size`
stay the renamed definition? radpatch never follows the rename where it does not; where only
formatting, comments or code the call does not depend on changed, the vouch holds and the rename is
followed; where the code the call depends on changed, it is refused naming what to read again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.toy_releases import DIST, GOOD, RENAME_ENTRY, hook_keeps_rename, hook_release

STORE = '"import rptoy.core as c\\nc.size = len\\n"'  # code that rebinds the old name in rptoy.core
BASES = {
    "text": (
        "def _text(code):\n    return code\n\n\n"
        "def run(code):\n    namespace = {}\n    exec(_text(code), namespace)\n    return namespace\n\n\n"
        "def unrelated():\n    return 1\n\n\nENTRIES = [run]\n"
    ),
    "parameter": (
        "def run(code, namespace):\n    exec(code, namespace)\n    return namespace\n\n\n"
        "def entry(code):\n    return run(code, {})\n\n\n"
        "def unrelated():\n    return 1\n\n\nENTRIES = [entry]\n"
    ),
    "attribute": (
        "class Runner:\n    def __init__(self):\n        self.namespace = {}\n\n"
        "    def run(self, code):\n        exec(code, self.namespace)\n        return self.namespace\n\n\n"
        "def unrelated():\n    return 1\n\n\nENTRIES = [Runner().run]\n"
    ),
    "in place": (
        "def run(code):\n    namespace = {}\n    exec(code, namespace)\n    return namespace\n\n\n"
        "def unrelated():\n    return 1\n\n\nENTRIES = [run]\n"
    ),
    "run at import": (  # a def the module runs at import sets the namespace (att56 F11)
        "NS = {}\n\n\n"
        "def run(code):\n    exec(code, NS)\n    return NS\n\n\n"
        'def configure():\n    globals()["NS"] = {}\n\n\n'
        "configure()\n\n\n"
        "def unrelated():\n    return 1\n\n\nENTRIES = [run]\n"
    ),
}
NEUTRAL = {  # changes that leave what the code run does, and the code the call depends on, alone: followed
    "reformatted": lambda b: b.replace("    return ", "    return  ").replace("\n\n\nENTRIES", "  # done\n\n\nENTRIES"),
    "an unrelated def changed": lambda b: b.replace("def unrelated():\n    return 1", "def unrelated():\n    return 2"),
    "an unrelated def added": lambda b: b + "\n\ndef more():\n    return core\n",
}
CHANGES = {  # per way: 2.1's change of the code the call depends on (its statement and binds unchanged)
    "text": {
        "the generator's text": lambda b: b.replace("    return code\n", f"    return {STORE}\n"),
        "the generator's text, elsewhere": lambda b: (
            b.replace("    return code\n", "    return PRELUDE\n") + f"\n\nPRELUDE = {STORE}\n"
        ),
    },
    "parameter": {
        "a caller passes the module's dict": lambda b: b.replace("run(code, {})", "run(code, vars(core))"),
        "a caller passes other code": lambda b: b.replace("run(code, {})", f"run({STORE}, {{}})"),
    },
    "attribute": {
        "the attribute holds the module's dict": lambda b: b.replace(
            "self.namespace = {}", "self.namespace = vars(core)"
        ),
        "the attribute set again elsewhere": lambda b: b.replace(
            "    def run(self, code):",
            "    def reset(self):\n        self.namespace = vars(core)\n\n    def run(self, code):",
        ).replace("ENTRIES = [Runner().run]", "r = Runner()\nr.reset()\nENTRIES = [r.run]"),
    },
    "in place": {
        "the result copied into the module": lambda b: b.replace(
            "    return namespace\n", "    vars(core).update(namespace)\n    return namespace\n"
        ),
        "the result set on the module": lambda b: b.replace(
            "    return namespace\n", '    setattr(core, "size", namespace["size"])\n    return namespace\n'
        ),
        "the namespace filled before": lambda b: b.replace(
            "    namespace = {}\n", "    namespace = {}\n    namespace.update(vars(core))\n"
        ),
        "the module's namespace updated at module level": lambda b: b + '\n\nglobals().update(ran=run("x = 1"))\n',
    },
    "run at import": {
        "the def rebinds it through globals()": lambda b: b.replace('"] = {}', '"] = vars(core)'),
        "the def rebinds it on the module": lambda b: b.replace(
            'globals()["NS"] = {}', 'setattr(sys.modules[__name__], "NS", vars(core))'
        ),
        "the def runs as a decorator": lambda b: b.replace(
            'def configure():\n    globals()["NS"] = {}\n\n\nconfigure()\n',
            'def configure(fn):\n    globals()["NS"] = vars(core)\n    return fn\n\n\n'
            "@configure\ndef _hooked():\n    pass\n",
        ),
        "the def runs through an alias": lambda b: b.replace('"] = {}', '"] = vars(core)').replace(
            "\nconfigure()", "\nsetup = configure\nsetup()"
        ),
        "a star import rebinds it": lambda b: b.replace("\nconfigure()\n", "\nconfigure()\nfrom rptoy.util import *\n"),
    },
}
UTIL = {"rptoy/util.py": "from rptoy import core\n\nNS = vars(core)\n"}  # what the star import binds (att57 F6)
CASES = sample(
    [(way, n, "") for way in BASES for n in NEUTRAL] + [(way, "", c) for way in CHANGES for c in CHANGES[way]]
)


def _verify(radpatch: Any, reg: Path, version: str) -> dict[str, Any]:
    out = radpatch("--registry", str(reg), "verify", "cap", "--versions", version, "--json").out
    result: dict[str, Any] = json.loads(out)["results"][0]
    return result


@pytest.mark.parametrize(("way", "neutral", "change"), CASES, ids=[f"{w}-{n or c}" for w, n, c in CASES])
def test_a_vouch_holds_only_while_the_code_the_call_depends_on_is_unchanged(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path, way: str, neutral: str, change: str
) -> None:
    base = BASES[way]
    hook = NEUTRAL[neutral](base) if neutral else CHANGES[way][change](base)
    assert hook != base, (way, neutral, change)
    others = UTIL if "star" in change else None
    safe = hook_keeps_rename(tmp_path / "oracle", hook_release(hook, others))
    assert hook_keeps_rename(tmp_path / "oracle0", hook_release(base, others))  # 2.0 as vouched: stores nothing
    loopback(
        DIST,
        {
            "1.0": {"rptoy/__init__.py": "", "rptoy/core.py": GOOD},
            "2.0": hook_release(base, others),
            "2.1": hook_release(hook, others),
        },
    )
    reg = write_registry("cap", RENAME_ENTRY)
    added = (_verify(radpatch, reg, "2.0")["error"] or "").split("add to the entry: ", 1)[1]
    reg = write_registry("cap", RENAME_ENTRY + added + "\n")
    vouched = _verify(radpatch, reg, "2.0")
    assert "moved: size is now rptoy.planning.size_of" in (vouched["error"] or ""), vouched

    result = _verify(radpatch, reg, "2.1")
    error = result["error"] or ""
    followed = "not followed" not in error and "moved: size is now rptoy.planning.size_of" in error
    assert safe or not followed, error  # never followed where the code run rebinds the old name
    if neutral:
        assert safe and followed and result["stale_vouched_exec"] == [], result
        return
    assert not followed and "rptoy/hook.py:" in error, error
    if "which may store `size`" not in error:  # refused for code radpatch reads (`setattr(core, "size", ...)`)
        assert "the code the call depends on (" in error and "changed: reads " in error, error
        assert "read it again" in error, error
    assert [s["item"] for s in result["stale_vouched_exec"]] == [0], result
