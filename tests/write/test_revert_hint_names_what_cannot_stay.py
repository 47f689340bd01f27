"""A refused revert names, in its hint, one command that succeeds as printed, and names in it only
entries that cannot stay on: those that require what comes off (`requires:`, down any chain) and
those above it on a file that do not go on again without it (written on its code), closed under
both; not the ones a revert lifts and puts back (att50 #4: `revert B` of a diamond A <- B, C <- D
with G written on D's code and H on G's hinted `revert D B`, refused in turn for G, then for H).

Each case is a random stack of 3-6 entries on two modules of a fake site-packages, applied one at
a time: each entry inserts a line into a function of its own in one module or both, or right after
the line of an earlier entry (on its code: it does not apply without that one), and requires some
earlier entries; so an entry lifted off one module may lie under another in the other module. One
entry is reverted. The oracle is radpatch run as a user runs it: the hint followed exactly as
printed succeeds in one step, and the same command with any one entry it added left out is refused
(that entry cannot stay); the entries left on read applied, and each module is what applying them
alone in order writes (its text from the rewrites' meaning: a line inserted before the return or
after the line of the entry below)."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import seeds
from tests.lib.registry import entry_head, write_entry
from tests.lib.site import Site

MODULES = ("m", "n")
MOST = 6


@dataclass(frozen=True)
class Entry:
    i: int
    modules: str  # the modules it changes: "m", "n" or both ("mn"; one only for an entry on another's line)
    func: int  # the function it writes in: its own, or that of the entry at the bottom of its chain
    on: int | None  # the entry whose line it inserts after (None: its own function's return)
    requires: tuple[int, ...]

    @property
    def name(self) -> str:
        return f"e{self.i}"

    def yaml(self) -> str:
        rewrites = ""
        for m in self.modules:
            if self.on is None:
                find = f"return '{m}{self.i}'"
                rewrite = f'insert_before: {{scope: f{self.i}, find: "{find}", code: x{self.i} = 1}}'
            else:
                rewrite = f'insert_after: {{scope: f{self.func}, find: "x{self.on} = 1", code: x{self.i} = 1}}'
            rewrites += f"  - id: {m}\n    file: {m}\n    {rewrite}\n"
        reqs = f"requires: [{', '.join(f'e{r}' for r in self.requires)}]\n" if self.requires else ""
        return reqs + entry_head("s", "rpstack", {m: f"rpstack.{m}" for m in self.modules}) + rewrites


def _source(module: str) -> str:
    return "".join(f"def f{i}():\n    return '{module}{i}'\n\n\n" for i in range(MOST))


def _stack(seed: int) -> tuple[list[Entry], int]:
    """A random stack (each entry on at most one entry's line, so the modules' texts are fixed) and
    the entry to revert: on even seeds the one the most entries require or lie on, down any chain;
    on odd ones any that something requires or lies on (any entry, when none is)."""
    rng = random.Random(seed)
    out: list[Entry] = []
    taken: set[int] = set()
    for i in range(rng.randint(3, MOST)):
        requires = tuple(j for j in range(i) if rng.random() < 0.3)
        free = [j for j in range(i) if j not in taken]
        if free and rng.random() < 0.6:
            on = rng.choice(free)
            taken.add(on)
            out.append(Entry(i, rng.choice(out[on].modules), out[on].func, on, requires))
        else:
            out.append(Entry(i, rng.choice(("m", "n", "mn")), i, None, requires))
    held = [e.i for e in out if e.i in taken or any(e.i in f.requires for f in out)]
    if seed % 2 == 0:
        return out, max(range(len(out)), key=lambda i: (len(_held_by(out, i)), rng.random()))
    return out, rng.choice(held or [e.i for e in out])


def _held_by(stack: list[Entry], i: int) -> set[int]:
    """The entries that require entry `i` or lie on its line, down any chain of either."""
    out = {i}
    while more := {e.i for e in stack if e.i not in out and (out & set(e.requires) or e.on in out)}:
        out |= more
    return out - {i}


DIAMOND = (  # att50 #4: a <- b, c <- d (requires:), e, f on their own, g on d's line, h on g's
    [
        Entry(0, "m", 0, None, ()),
        Entry(1, "m", 1, None, (0,)),
        Entry(2, "n", 2, None, (0,)),
        Entry(3, "m", 3, None, (1, 2)),
        Entry(4, "m", 4, None, ()),
        Entry(5, "n", 5, None, ()),
        Entry(6, "m", 3, 3, ()),
        Entry(7, "m", 3, 6, ()),
    ],
    1,
)
CASES = {"att50-diamond": DIAMOND, **{f"seed{s}": _stack(s) for s in seeds(40)}}


def _expected(stack: list[Entry], on: set[int]) -> dict[str, str]:
    text = {m: _source(m) for m in MODULES}
    for e in stack:
        if e.i not in on:
            continue
        for m in e.modules:
            if e.on is None:
                ret = f"    return '{m}{e.i}'\n"
                text[m] = text[m].replace(ret, f"    x{e.i} = 1\n{ret}")
            else:
                text[m] = text[m].replace(f"    x{e.on} = 1\n", f"    x{e.on} = 1\n    x{e.i} = 1\n")
    return text


def _hint(err: str) -> list[str]:
    line = next((ln for ln in err.splitlines() if "radpatch revert " in ln), None)
    assert line is not None, err
    return line.split("radpatch revert ", 1)[1].split()


@pytest.mark.parametrize("case", CASES)
def test_a_revert_hint_succeeds_and_names_only_what_cannot_stay(
    site: Site, radpatch: Any, tmp_path: Path, case: str
) -> None:
    stack, target = CASES[case]
    site.install("rpstack", "1.0", {"rpstack/__init__.py": "", **{f"rpstack/{m}.py": _source(m) for m in MODULES}})
    reg = tmp_path / "registry"
    for e in stack:
        write_entry(reg, e.name, e.yaml(), dedent=False)
    for e in stack:
        r = radpatch("--registry", str(reg), "apply", e.name)
        assert r.code == 0, r.err
    asked = f"e{target}"
    r = radpatch("--registry", str(reg), "revert", asked)
    if r.code == 0:
        off = {asked}
    else:
        named = _hint(r.err)
        assert asked in named, r.err
        for left_out in (n for n in named if n != asked):  # each one it added cannot stay on
            without = [n for n in named if n != left_out]
            dry = radpatch("--registry", str(reg), "revert", "--dry-run", *without)
            assert dry.code != 0, f"{r.err}\n`revert {' '.join(without)}` would succeed: {left_out} can stay on"
        again = radpatch("--registry", str(reg), "revert", *named)
        assert again.code == 0, f"the hint of\n{r.err}\nfollowed as printed is refused:\n{again.err}"
        off = set(named)
    names = [e.name for e in stack]
    status = json.loads(radpatch("--registry", str(reg), "status", "--json", *names).out)
    states = {s["patch"]: s["state"] for s in status}
    assert states == {e.name: "not-applied" if e.name in off else "applied" for e in stack}
    on = {e.i for e in stack if e.name not in off}
    assert {m: (site.root / "rpstack" / f"{m}.py").read_text() for m in MODULES} == _expected(stack, on)
