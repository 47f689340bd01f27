"""The toy entry the overlap tests (tests/prove/overlaps/test_overlap*.py,
tests/releases/test_overlaps_*.py) write again and again: its head up to `rewrites:` and `write`,
that head with given rewrites, written and loaded; and the toy installed package the state tests
of stacked entries start from (`unpack_toy`, `toy_with_entries`)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from radpatch.registry.loader import load_patch
from radpatch.registry.model import Patch
from tests.lib.registry import write_entry
from tests.lib.site import Site
from tests.lib.wheels import build_wheel

HEAD = """\
summary: toy
description: toy
distribution: toypkg
supported: "{supported}"
modules:
  core: toypkg.core
rewrites:
"""


def text(body: str, supported: str = ">=1.0,<2", requires: tuple[str, ...] = ()) -> str:
    """HEAD (with `requires:` first when given) and `body`, its rewrites."""
    after = f"requires: [{', '.join(requires)}]\n" if requires else ""
    return after + HEAD.format(supported=supported) + body


def one_rewrite(name: str, op: str, requires: tuple[str, ...] = ()) -> str:
    """text() of the one rewrite `op` (its YAML mapping on one line), its id `name`."""
    return text(f"  - id: {name}\n    {op}\n", requires=requires)


def refused_overlap(err: str) -> str:
    """What apply's refusal in `err` says entries a and b both do (it names the two, in either order)."""
    said = err.split(" overlap: ", 1)[1].split("\n")[0]
    first, what = said.split(" both ", 1)
    assert first in ("a (a) and b (b)", "b (b) and a (a)"), err
    return what


def write(reg: Path, name: str, body: str, supported: str = ">=1.0,<2", requires: tuple[str, ...] = ()) -> Patch:
    """`reg`/`name`.yaml: text(body, supported, requires), loaded."""
    return load_patch(write_entry(reg, name, text(body, supported, requires)))


# Two build stages (tests/prove/overlaps/test_overlaps_applied*.py): `pa` from registry r1 inserts at `total = 0`;
# the second stage's `pb` (r2) is given.
CORE = "def plan(spec):\n    total = 0\n    size = len(spec)\n    return total + size\n"
AT_TOTAL = '  - id: {id}\n    insert_after: {{scope: plan, find: "total = 0", code: "total = {n}"}}\n'
ELSEWHERE = '  - id: size\n    replace: {scope: plan, find: "len(spec)", with: "len(spec) + 1"}\n'


def stages(site: Site, write_registry: Any, second: str) -> tuple[Path, Path]:
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": CORE})
    return stage(write_registry, "pa", AT_TOTAL.format(id="pa", n=1), "r1"), stage(write_registry, "pb", second, "r2")


def older_record(site: Site, name: str = "pa") -> dict[str, Any]:
    """`name`'s record without the `touches` key, as an older radpatch wrote it; the record as it was."""
    record = site.root / ".radpatch/record.json"
    data: dict[str, Any] = json.loads(record.read_text())
    before = json.loads(json.dumps(data))
    del data["patches"][name]["touches"]
    record.write_text(json.dumps(data))
    return before


def stage(write_registry: Any, name: str, body: str, dirname: str, requires: tuple[str, ...] = ()) -> Path:
    """Registry `dirname` holding entry `name`: text(body, requires=requires)."""
    return write_registry(name, text(body, requires=requires), dirname=dirname)  # type: ignore[no-any-return]


def unpack_toy(site: Site, tmp_path: Path, src: str) -> Path:
    """toypkg 1.0 (its core.py `src`) built as a wheel and unpacked into `site` as pip lays out a
    pure-Python wheel, RECORD and all; the path of its core.py."""
    wheel = build_wheel(tmp_path / "wheels", "toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": src})
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site.root)
    return site.root / "toypkg/core.py"


def toy_with_entries(
    site: Site, write_registry: Any, tmp_path: Path, src: str, entries: dict[str, str]
) -> tuple[Path, Path]:
    """`unpack_toy`, and one registry holding each of `entries` (name -> its rewrites' lines) under
    HEAD: the registry and toypkg/core.py."""
    core = unpack_toy(site, tmp_path, src)
    reg = Path()
    for name, body in entries.items():
        reg = write_registry(name, HEAD.format(supported=">=1.0,<2") + body)
    return reg, core


# A literal passed to a call and what holds its call (tests/prove/overlaps/test_overlaps_call_form.py,
# tests/releases/test_overlaps_call_form_reported.py): the module (CALL_SRC), the call-form rewrites, the other entry's.
CALL = 'p.add("--x", ["a", "b"], choices=["a", "b"], opts={"j": 0})'
CALL_SRC = f'def build(p):\n    {CALL}\n    p.add("--y")\n    p.other("--x", choices=[\'a\'])\n    return p\n'

# the call-form rewrite: its YAML (without the pick) and the argument it addresses
CALL_OPS = {
    "add_element keyword": ("add_element: {scope: build, call: p.add, keyword: choices, element: '\"c\"'", "choices"),
    "remove_element keyword": (
        "remove_element: {scope: build, call: p.add, keyword: choices, element: '\"a\"'",
        "choices",
    ),
    "add_element positional": ("add_element: {scope: build, call: p.add, argument: 2, element: '\"c\"'", "#2"),
    "set_item keyword": ("set_item: {scope: build, call: p.add, keyword: opts, key: '\"k\"', value: '1'", "opts"),
}
PICKS = {"one call": "", "occurrence 1": ", occurrence: 1"}


def call_form_others(op: str, argument: str) -> dict[str, str]:
    """The other entry's rewrite of test_overlaps_call_form*, by what it is (beside the call-form `op`)."""
    keyword = argument if not argument.startswith("#") else "choices"
    same = CALL_OPS[op][0]
    return {
        "replace statement": f"replace: {{scope: build, find: '{CALL}', with: 'p.add(\"--z\")'}}",
        "replace call": f"replace: {{scope: build, find: '{CALL}', with: 'f()'}}",
        "picked replace": f"replace: {{scope: build, find: '{CALL}', with: 'f()', occurrence: 1}}",
        "delete statement": f"delete: {{scope: build, find: '{CALL}'}}",
        "replace_body": f"replace_body: {{function: build, find: '{CALL}', with: 'pass'}}",
        "replace function": 'replace: {scope: <module>, find: "def build(p):\\n    pass", '
        'with: "def build(p):\\n    return 1"}',
        "set_keyword": f"set_keyword: {{scope: build, call: p.add, keyword: {keyword}, from: 'None', to: '1'}}",
        "same argument picked otherwise": same + ", occurrence: 2, within: 'if p:'}",
        # what must not meet
        "another callee": "replace: {scope: build, find: 'p.other(\"--x\", choices=[\"a\"])', with: 'f()'}",
        "no such argument": "replace: {scope: build, find: 'p.add(\"--y\")', with: 'f()'}",
        "another keyword": "set_keyword: {scope: build, call: p.add, keyword: other, from: 'None', to: '1'}",
        "another occurrence": same + ", occurrence: 2}",
    }


# A call-form rewrite and a rewrite that writes a call it may pick, or replaces the display itself (ovl44:
# tests/prove/overlaps/test_overlap_call_written.py, tests/releases/test_overlaps_call_written_reported.py).
# The modules: the call there and `p.add("--y")` to rewrite, or only `p.add("--y")` (the call exists only
# in the code the other writes); a call bound to a name (its call expression is no statement).
CALL_WRITTEN_SRCS = {
    "call there": CALL_SRC,
    "call only written": 'def build(p):\n    p.add("--y")\n    keep = ["a"]\n    return p\n',
    "call assigned": f'def build(p):\n    r = {CALL}\n    p.add("--y")\n    keep = ["a"]\n    return r\n',
}
_FULL = 'p.add(\\"--w\\", [\\"a\\", \\"q\\"], choices=[\\"a\\", \\"q\\"], opts={\\"q\\": 1})'
CALL_WRITTEN_OTHERS = {
    "replace writes the call": f'replace: {{scope: build, find: \'p.add("--y")\', with: "{_FULL}"}}',
    "insert writes the call": f'insert_after: {{scope: build, find: \'p.add("--y")\', code: "{_FULL}"}}',
    "replace the list display": 'replace: {scope: build, find: \'["a", "b"]\', with: \'["z"]\'}',
    "replace the second list display": 'replace: {scope: build, find: \'["a", "b"]\', with: \'["z"]\', occurrence: 2}',
    "replace the dict display": "replace: {scope: build, find: '{\"j\": 0}', with: '{\"z\": 0}'}",
    "replace the call expression": f"replace: {{scope: build, find: '{CALL}', with: 'f()'}}",
    # what must not meet: a call to another callee written, a call passing no such argument, another display
    "writes another callee": "replace: {scope: build, find: 'p.add(\"--y\")', "
    "with: 'p.more(\"--y\", [1], choices=[1])'}",
    "writes no such argument": "replace: {scope: build, find: 'p.add(\"--y\")', with: 'p.add(\"--w\")'}",
    "replace another display": "replace: {scope: build, find: '[\"a\"]', with: '[\"z\"]'}",
}


def released_toy(
    site: Site, loopback: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, core: str, wheel: bool = False
) -> None:
    """toypkg 1.0 (`toypkg/core.py` is `core`) on the loopback index and installed in `site` (`wheel`:
    built as a wheel and unpacked as pip lays it out, unpack_toy), with no shipped registry: what the
    list/verify/apply agreement tests run on."""
    from radpatch.registry import catalog

    (tmp_path / "none").mkdir()
    monkeypatch.setattr(catalog, "shipped_registry", lambda: tmp_path / "none")
    files = {"toypkg/__init__.py": "", "toypkg/core.py": core}
    loopback("toypkg", {"1.0": files})
    if wheel:
        unpack_toy(site, tmp_path, core)
    else:
        site.install("toypkg", "1.0", files)


def run_entry(p: Patch, text: str | None) -> str | None:
    """The oracle's step: entry `p` run whole by radpatch's rewrite runner on `text` (None: it fails)."""
    from radpatch.errors import RadpatchError
    from radpatch.rewrite import runner
    from radpatch.rewrite.matching import MatchFailure

    if text is None:
        return None
    try:
        return runner.forward(p, p.rewrites, text.encode(), "toypkg/core.py").decode()
    except (RadpatchError, MatchFailure, SyntaxError, ValueError):
        return None


def orders_differ(first: Patch, then: Patch, text: str) -> bool | None:
    """The both-orders oracle: each entry run whole by the rewrite runner, `first` then `then` and the
    other way round. True when they write different code or one order fails (a stack), or both fail
    although each applies alone; False when they write the same code; None when neither order
    applies and one entry does not apply alone (no pair to judge)."""
    import ast

    one, two = run_entry(then, run_entry(first, text)), run_entry(first, run_entry(then, text))
    if one is None and two is None:
        return True if run_entry(first, text) is not None and run_entry(then, text) is not None else None
    return one is None or two is None or ast.dump(ast.parse(one)) != ast.dump(ast.parse(two))
