"""Code run by `exec` that radpatch cannot read, vouched for in the entry (issue 23, exec51).

vLLM's `vllm/compilation/codegen.py` runs generated code (`exec(code, namespace)`), which may store
any name: every rename verify could follow in vLLM was refused there. The refusal now names each such
call by file:line and statement and prints the `vouched_exec:` YAML to add; with it the rename is
followed, `show` and `verify` say the assumption, `verify --json` carries it. The item is anchored by
its file, scope and statement as a syntax tree, and what the names it passes hold (att52 #3:
tests/releases/test_vouched_exec_place.py): a release that changes the statement is refused again,
naming it; a bad item is a registry error at file:line and key path."""

from __future__ import annotations

import ast
import json
from typing import Any

import yaml

from radpatch.releases import exec_sites
from tests.lib.toy_releases import DIST, GOOD, RENAME_ENTRY, RENAMED

ENTRY = RENAME_ENTRY
HOOK = "def run(code, consts=None):\n    namespace = {{}}\n    {call}  # noqa: S102\n    return namespace\n"


def _release(call: str) -> dict[str, str | bytes]:
    return {
        "rptoy/__init__.py": "",
        "rptoy/core.py": "from rptoy import planning\n\nsize = planning.size_of\n",
        "rptoy/planning.py": RENAMED,
        "rptoy/hook.py": HOOK.format(call=call),
    }


def _error(radpatch: Any, reg: Any, version: str) -> tuple[str, dict[str, Any]]:
    told = json.loads(radpatch("--registry", str(reg), "verify", "cap", "--versions", version, "--json").out)
    return told["results"][0]["error"] or "", told


def test_unread_exec_is_refused_with_the_yaml_and_vouching_follows_the_rename(
    loopback: Any, write_registry: Any, radpatch: Any
) -> None:
    loopback(
        DIST,
        {
            "1.0": {"rptoy/__init__.py": "", "rptoy/core.py": GOOD},
            "2.0": _release("exec(code, namespace)"),
            "3.0": _release("exec(code, consts)"),  # the statement changed: no longer vouched for
        },
    )
    reg = write_registry("cap", ENTRY)
    error, _ = _error(radpatch, reg, "2.0")
    assert "is not followed as a rename" in error and "rptoy/hook.py:3 `exec(code, namespace)`" in error, error
    added = error.split("add to the entry: ", 1)[1]
    item = {"file": "rptoy/hook.py", "scope": "run", "code": "exec(code, namespace)"}
    binds = ["parameter code", "namespace = {}"]  # what the names it passes hold
    hook = str(_release("exec(code, namespace)")["rptoy/hook.py"])
    (site,) = exec_sites.sites("rptoy/hook.py", ast.parse(hook))  # and the code it depends on (vouch2 #1)
    item["reads"] = site.reads
    assert len(site.reads) == 12 and yaml.safe_load(added) == {"vouched_exec": [{**item, "binds": binds}]}

    reg = write_registry("cap", ENTRY + added + "\n")
    error, told = _error(radpatch, reg, "2.0")
    assert "not followed" not in error and "moved: size is now rptoy.planning.size_of" in error, error
    assert told["vouched_exec"] == [{**item, "occurrence": 1, "binds": binds}]
    shown = radpatch("--registry", str(reg), "show", "cap").out
    assert "assumes (vouched_exec" in shown and "rptoy/hook.py (run): `exec(code, namespace)`" in shown, shown
    text = radpatch("--registry", str(reg), "verify", "cap", "--versions", "2.0").out
    assert "assumes: rptoy/hook.py (run): `exec(code, namespace)`" in text, text
    assert "not what it imports" in text and "not what it imports" in shown, (text, shown)  # att57 F7: no more

    error, _ = _error(radpatch, reg, "3.0")
    assert "rptoy/hook.py:3 `exec(code, consts)`" in error, error
    assert 'vouched_exec: list: {file: rptoy/hook.py, scope: "run", code: "exec(code, consts)", binds: [' in error


def test_a_bad_vouched_exec_item_is_a_registry_error_at_its_line(write_registry: Any, radpatch: Any) -> None:
    bad = {
        '[{file: rptoy/hook.py, code: "print(code)"}]': "vouched_exec[0].code: the statement calls no exec or eval",
        '[{file: ../hook.py, code: "exec(code)"}]': "vouched_exec[0].file: '../hook.py' is not a module's path",
        '[{file: rptoy/hook.py, code: "exec("}]': "vouched_exec[0].code: not Python code",
        "[{file: rptoy/hook.py}]": "vouched_exec[0]: missing required key 'code'",
        "rptoy/hook.py": "vouched_exec: expected a list",
        '[{file: rptoy/hook.py, scope: "a b", code: "exec(code)"}]': "vouched_exec[0].scope: 'a b' is not a dotted",
        '[{file: rptoy/hook.py, code: "exec(code)", occurrence: 0}]': "vouched_exec[0].occurrence: '0' is not an",
        '[{file: rptoy/hook.py, code: "exec(code)", binds: x}]': "vouched_exec[0].binds: expected a",
        '[{file: rptoy/hook.py, code: "exec(code)", reads: x1}]': "vouched_exec[0].reads: 'x1' is not a digest",
    }
    for value, said in bad.items():
        reg = write_registry("cap", ENTRY + f"vouched_exec: {value}\n")
        got = radpatch("--registry", str(reg), "show", "cap")
        assert got.code != 0 and f"cap.yaml:{ENTRY.count(chr(10)) + 1}:" in got.err and said in got.err, got.err


def test_an_item_naming_no_place_vouches_for_nothing_and_says_so(
    loopback: Any, write_registry: Any, radpatch: Any
) -> None:
    loopback(DIST, {"2.0": _release("exec(code, namespace)")})
    old = 'vouched_exec: [{file: rptoy/hook.py, code: "exec(code, namespace)"}]\n'  # as exec51 printed it
    error, told = _error(radpatch, write_registry("cap", ENTRY + old), "2.0")
    assert "rptoy/hook.py:3 `exec(code, namespace)` (the item names no place" in error, error
    assert 'list: {file: rptoy/hook.py, scope: "run", code: "exec(code, namespace)", binds: [' in error, error
    assert told["results"][0]["stale_vouched_exec"][0]["item"] == 0, told
