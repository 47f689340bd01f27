"""att23d F7: two entries that each add a new module constant (set_constant of new names) go into
one gap after the imports, and the two orders write different bytes; yet they commute (each binds
a name the other neither binds nor reads), so apply takes them in either order without
`requires:`, in one run and in two build stages (the record this radpatch wrote is compared, not
"cannot check"), and list does not report them. Generated pairs of such insertions are checked
against the engine's two orders: commute only when both orders apply and the module they give
defines the same names to the same values."""

from __future__ import annotations

import os
from itertools import permutations
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from radpatch.prove.overlaps import commute, gaps, pairs
from radpatch.registry.model import Patch
from tests.lib.overlaps import HEAD, write
from tests.lib.site import Site

SRC = "import os\n\nX = 1\n\n\ndef f():\n    return X\n"
OPS = {
    "a": "set_constant: {name: RP_A, value: 1}",
    "b": 'set_constant: {name: RP_B, value: \'int(os.environ.get("RP_B", "2"))\'}',
    "c": "set_constant: {name: RP_C, value: RP_A + 1}",  # reads RP_A
    "a5": "set_constant: {name: RP_A, value: 5}",  # the same name, another value
    "json": 'add_import: {import: "import json"}',
    "as_b": 'add_import: {import: "from os import sep as RP_B"}',  # binds RP_B
    "lst": "set_constant: {name: RP_L, value: '[RP_B]'}",  # reads RP_B
    # att23e G1: values that do more than compute themselves; the orders differ through the
    # environment (setdefault) or a name the walrus binds
    "safe": 'set_constant: {name: RP_S, value: \'os.environ.setdefault("RP_MODE", "safe")\'}',
    "fast": 'set_constant: {name: RP_F, value: \'os.environ.setdefault("RP_MODE", "fast")\'}',
    "walrus": "set_constant: {name: RP_W, value: '(RP_B := 3)'}",
}


def _run(text: str) -> dict[str, object]:
    """The module's names and values when it runs (a module that fails: the error's name)."""
    space: dict[str, object] = {}
    environ = dict(os.environ)  # each run starts from the same environment, and leaves it so
    try:
        exec(compile(text, "core.py", "exec"), space)  # noqa: S102 - the toy module the two orders wrote
    except Exception as exc:  # noqa: BLE001 - an order that writes a module failing at import
        return {"error": type(exc).__name__}
    finally:
        os.environ.clear()
        os.environ.update(environ)
    return {k: getattr(v, "__name__", v) for k, v in space.items() if not k.startswith("__") and not callable(v)}


def _ops(tmp_path: Path) -> dict[str, Patch]:
    return {k: write(tmp_path, f"e_{k}", f"  - id: r\n    {op}\n") for k, op in OPS.items()}


@pytest.mark.parametrize(("x", "y"), list(permutations(OPS, 2)))
def test_commute_only_when_both_orders_give_the_same_module(tmp_path: Path, x: str, y: str) -> None:
    ps = _ops(tmp_path)
    a, b = ps[x].rewrites[0].op, ps[y].rewrites[0].op
    one, two = commute.forward(a, SRC), commute.forward(b, SRC)
    ab, ba = gaps.in_order(a, b, SRC), gaps.in_order(b, a, SRC)
    said = one is not None and two is not None and commute.independent(SRC, one, two)
    engine = ab is not None and ba is not None and _run(ab) == _run(ba)
    assert engine or not said, (ab, ba)  # never "commute" where the engine's two orders differ
    if frozenset((x, y)) in COMMUTE:
        assert said
    if frozenset((x, y)) in APART:
        assert not said and not engine
    if frozenset((x, y)) in IMPURE:
        assert not said


# new names that neither reads: they commute (the cases the rule is for)
COMMUTE = {frozenset(p) for p in (("a", "b"), ("a", "json"), ("b", "json"), ("a5", "b"), ("as_b", "a"))}
# one name bound twice (to different things): the two orders give different modules
APART = {frozenset(p) for p in (("a", "a5"), ("as_b", "b"), ("safe", "fast"))}
# a value that may do more than compute itself (a call not known to only read, a walrus) never
# commutes, whatever the other binds: radpatch cannot tell its effects apart (att23e G1)
IMPURE = {frozenset(p) for p in (("safe", "a"), ("fast", "json"), ("walrus", "a"), ("walrus", "b"))}


ENTRY = HEAD.format(supported=">=1.0,<2") + "  - id: r\n    {op}\n"


def _install(site: Site) -> Path:
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": SRC})
    return site.root / "toypkg/core.py"


@pytest.mark.parametrize("names", [("a", "b"), ("b", "a")])
def test_two_new_constants_apply_in_one_run_either_way(
    site: Site, radpatch: Any, write_registry: Any, names: tuple[str, str]
) -> None:
    core = _install(site)
    write_registry("a", ENTRY.format(op=OPS["a"]))
    reg = write_registry("b", ENTRY.format(op=OPS["b"]))
    r = radpatch("--registry", str(reg), "apply", *names)
    assert r.code == 0, r.out + r.err
    assert {"RP_A": 1, "RP_B": 2}.items() <= _run(core.read_text()).items()


@pytest.mark.parametrize("names", [("a", "b"), ("b", "a")])
def test_two_new_constants_apply_across_two_stages(
    site: Site, radpatch: Any, write_registry: Any, names: tuple[str, str]
) -> None:
    core = _install(site)
    regs = {n: write_registry(n, ENTRY.format(op=OPS[n]), dirname=f"r{n}") for n in names}
    for n in names:
        r = radpatch("--registry", str(regs[n]), "apply", n)
        assert r.code == 0, r.out + r.err
        assert "cannot check" not in r.err
    assert {"RP_A": 1, "RP_B": 2}.items() <= _run(core.read_text()).items()


@pytest.mark.parametrize("stages", [False, True])
def test_one_new_name_bound_twice_still_needs_an_order(
    site: Site, radpatch: Any, write_registry: Any, stages: bool
) -> None:
    core = _install(site)
    if not stages:
        write_registry("a", ENTRY.format(op=OPS["a"]))
        reg = write_registry("a5", ENTRY.format(op=OPS["a5"]))
        r = radpatch("--registry", str(reg), "apply", "a", "a5")
    else:
        ra = write_registry("a", ENTRY.format(op=OPS["a"]), dirname="ra")
        r5 = write_registry("a5", ENTRY.format(op=OPS["a5"]), dirname="r5")
        assert radpatch("--registry", str(ra), "apply", "a").code == 0
        r = radpatch("--registry", str(r5), "apply", "a5")
    assert r.code == 1, r.out + r.err
    assert "a and a5 overlap" in r.err or "a5 and a overlap" in r.err
    assert "RP_A = 5" not in core.read_text()


def test_list_does_not_report_two_new_constants_that_commute(tmp_path: Path) -> None:
    ps = _ops(tmp_path)
    assert pairs.find([ps["a"], ps["b"]], [Version("1.0")], texts=lambda *_: SRC) == []
    (o,) = pairs.find([ps["a"], ps["a5"]], [Version("1.0")], texts=lambda *_: SRC)
    assert "change the same constant" in o.what
    after_os = '  - id: r\n    insert_after: {scope: <module>, find: "import os", code: "Z = 0"}\n'
    anchored = write(tmp_path, "z", after_os)
    assert [o.second for o in pairs.find([ps["a"], anchored], [Version("1.0")], texts=lambda *_: SRC)] == ["z"]
