"""A decorator on the scope (or its class) blocks an obsolete verdict only where radpatch cannot read
what it does (issue 23, after hz23h): a standard one that rebinds no attribute (`functools.lru_cache`,
`functools.cache`, `dataclasses.dataclass`) or one the module defines whose code calls only what the
module holds does not; one of another module, or a local one that calls out or uses `setattr`, says
"cannot tell" (not carried). The entry deletes `self.timeout = 30` from `Engine.configure`; each
release is run, and one whose `Engine().configure()` still leaves `timeout == 30` is never carried."""

from __future__ import annotations

import importlib
import itertools
import sys
from pathlib import Path

import pytest

from radpatch.releases import carried

BASE = """\
class Engine:
    def configure(self):
        self.a = 1
        self.timeout = 30
        self.b = 2
        return self
"""
AFTER = BASE.replace("        self.timeout = 30\n", "")

LOCAL = """\
import functools


def marked(f):
    @functools.wraps(f)
    def w(self):
        out = f(self)
        {line}
        return out
    return w


"""
# move -> (module head, class decorator line, method decorator line, other modules); {v}: the value
MOVES: dict[str, tuple[str, str, str, dict[str, str]]] = {
    "lru-cache": ("import functools\n\n\n", "", "@functools.lru_cache(maxsize=None)", {}),
    "from-import-cache": ("from functools import cache\n\n\n", "", "@cache", {}),
    "dataclass": ("import dataclasses\n\n\n", "@dataclasses.dataclass", "", {}),
    "local-plain": (LOCAL.format(line="pass"), "", "@marked", {}),
    "local-binds": (LOCAL.format(line="self.timeout = {v}"), "", "@marked", {}),
    "local-setattr": (LOCAL.format(line='setattr(self, "timeout", {v})'), "", "@marked", {}),
    "local-calls-out": (
        "from . import settings\n" + LOCAL.format(line="settings.apply(self)"),
        "",
        "@marked",
        {"settings": "def apply(obj):\n    obj.timeout = {v}\n"},
    ),
    "other-module": ("from . import settings\n\n\n", "", "@settings.marked", {"settings": LOCAL}),
}
READABLE = {"lru-cache", "from-import-cache", "dataclass", "local-plain", "local-binds"}


def release(move: str, value: int) -> dict[str, str]:
    head, cls_deco, deco, others = MOVES[move]
    core = head.replace("{v}", str(value)) + (f"{cls_deco}\n" if cls_deco else "") + "class Engine:\n"
    core += f"    {deco}\n" if deco else ""
    core += "    def configure(self):\n        self.a = 1\n        self.b = 2\n        return self\n"
    return {"core": core, **{k: _filled(v, value) for k, v in others.items()}}


def _filled(text: str, value: int) -> str:
    """Another module's source with its value, and LOCAL's line binding it."""
    text = text.replace("{v}", str(value))
    return text.format(line=f"self.timeout = {value}") if "{line}" in text else text


def still_sets_30(tmp: Path, name: str, modules: dict[str, str]) -> bool:
    """Run the release: does `Engine().configure()` leave `timeout == 30`?"""
    pkg = tmp / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for mod, text in modules.items():
        (pkg / f"{mod}.py").write_text(text)
    sys.path.insert(0, str(tmp))
    try:
        core = importlib.import_module(f"{name}.core")
        return getattr(core.Engine().configure(), "timeout", None) == 30
    finally:
        sys.path.remove(str(tmp))
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]


@pytest.mark.parametrize(("move", "value"), list(itertools.product(MOVES, (30, 60))))
def test_only_a_decorator_radpatch_cannot_read_blocks_the_carried_verdict(
    tmp_path: Path, move: str, value: int
) -> None:
    modules = release(move, value)
    behaves = still_sets_30(tmp_path, f"toyd_{move.replace('-', '_')}_{value}", modules)
    got = carried.carries(BASE.encode(), AFTER.encode(), modules["core"].encode())
    if behaves:
        assert got is False, (move, value, "the release still sets timeout = 30: not obsolete")
    elif move in READABLE:
        assert got is True, (move, value, "the decorator's code is read: the binding is gone")
    else:
        assert got is False, (move, value, "the decorator's code is not read: cannot tell, not carried")


def test_the_reference_is_not_one_answer(tmp_path: Path) -> None:
    seen = {still_sets_30(tmp_path, f"toyd_ref_{v}", release("local-binds", v)) for v in (30, 60)}
    assert seen == {True, False}
