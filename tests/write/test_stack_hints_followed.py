"""A refused revert, or an apply refused because someone put some of an entry's files back, prints a
hint that a user can follow to the end: each command it names, run in order as printed, succeeds,
and then the command first refused succeeds (rev53, issue 20/21: the revert hint's search stopped
at a refusal other than "cannot stay on", a dependant drifted, and named what it had found so far,
so following it gave that entry's own refusal; the apply-side hint named every entry stacked
above, also those a revert lifts and puts back).

Each case is a random stack of 2-4 entries on two modules of a wheel pip-installed into a venv,
applied one at a time: an entry inserts a line into a function of its own in one module or both,
or right after the line of an earlier entry (it does not apply without that one); it may require
earlier entries and create a module. Then one random disturbance: none, a code line added to a
module (the entries on it drift), a comment line added, an entry above deleted from the registry
(it cannot go on again), or the module an entry created deleted by hand (partly put back). The
command is `revert` of an entry others stand on, or, for a deleted module, `apply` of its entry.
The oracle is radpatch itself run as a user runs it: every `radpatch VERB ARGS` of the hint in
order (restore reads the wheel given with `--wheel`, offline), then the command again; a revert
the hint names takes off only entries that cannot stay (each left out, `revert --dry-run` is
refused)."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.lib.agree import DIST, Target, fresh
from tests.lib.generated import seeds
from tests.lib.registry import write_entry
from tests.lib.venvs import make_venv
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel  # a real wheel pip-installed into a venv: the real tier

MODULES = ("m", "n")
MOST = 4
HEAD = 'summary: s\ndescription: d\ndistribution: rpagree\nsupported: ">=1.0,<2"\n'
DISTURB = ("none", "edit", "comment", "gone", "deleted")


@dataclass(frozen=True)
class Entry:
    i: int
    modules: str  # "m", "n" or "mn" (one only for an entry on another's line)
    func: int  # the function it writes in
    on: int | None  # the entry whose line it inserts after (None: its own function's return)
    requires: tuple[int, ...]
    makes: bool  # also creates the module made<i>

    @property
    def name(self) -> str:
        return f"e{self.i}"

    def yaml(self) -> str:
        rewrites = ""
        for m in self.modules:
            if self.on is None:
                rw = f"insert_before: {{scope: f{self.i}, find: \"return '{m}{self.i}'\", code: x{self.i} = 1}}"
            else:
                rw = f'insert_after: {{scope: f{self.func}, find: "x{self.on} = 1", code: x{self.i} = 1}}'
            rewrites += f"  - id: {m}\n    file: {m}\n    {rw}\n"
        mods = {m: f"rpagree.{m}" for m in self.modules}
        if self.makes:
            mods[f"made{self.i}"] = f"rpagree.made{self.i}"
            rewrites += f"  - id: made\n    file: made{self.i}\n    create_module: {{content: made{self.i}.py}}\n"
        reqs = f"requires: [{', '.join(f'e{r}' for r in self.requires)}]\n" if self.requires else ""
        modules = "".join(f"  {k}: {v}\n" for k, v in mods.items())
        return HEAD + reqs + f"modules:\n{modules}rewrites:\n{rewrites}"


def _source(module: str) -> str:
    return "".join(f"def f{i}():\n    return '{module}{i}'\n\n\n" for i in range(MOST))


@dataclass(frozen=True)
class Case:
    stack: tuple[Entry, ...]
    disturb: str
    target: int  # the entry reverted, or (deleted) the one whose module is deleted and applied again
    module: str  # the module edited ("edit", "comment")
    gone: int | None  # the entry deleted from the registry ("gone")


def _case(seed: int) -> Case:
    rng = random.Random(seed)
    out: list[Entry] = []
    taken: set[int] = set()
    for i in range(rng.randint(2, MOST)):
        requires = tuple(j for j in range(i) if rng.random() < 0.3)
        free = [j for j in range(i) if j not in taken]
        makes = rng.random() < 0.3
        if free and rng.random() < 0.5:
            on = rng.choice(free)
            taken.add(on)
            out.append(Entry(i, rng.choice(out[on].modules), out[on].func, on, requires, makes))
        else:
            out.append(Entry(i, rng.choice(("m", "n", "mn")), i, None, requires, makes))
    disturb = DISTURB[seed % len(DISTURB)]
    if disturb == "deleted":
        makers = [e.i for e in out if e.makes]
        if not makers:
            out[0] = Entry(0, out[0].modules, out[0].func, out[0].on, out[0].requires, True)
            makers = [0]
        target = rng.choice(makers)
    else:  # one that something requires or lies on, when there is one
        held = [e.i for e in out if e.i in taken or any(e.i in f.requires for f in out)]
        target = rng.choice(held or [e.i for e in out])
    above = [e.i for e in out if e.i > target]
    gone = rng.choice(above) if disturb == "gone" and above else None
    return Case(tuple(out), disturb, target, rng.choice(MODULES), gone)


CASES = {f"seed{s}": _case(s) for s in seeds(60)}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Target:
    base = tmp_path_factory.mktemp("rpfollow")
    files: dict[str, str | bytes] = {"rpagree/__init__.py": ""}
    files.update({f"rpagree/{m}.py": _source(m) for m in MODULES})
    wheel = build_wheel(base / "wheels", DIST, "1.0", files)
    t = Target(base / "template", base / "registry", wheel.parent)
    make_venv(t.venv)
    t.reinstall()
    return t


COMMAND = re.compile(r"radpatch (apply|revert|restore) ([^,;()`\n]+)")


def commands(hint: str) -> list[list[str]]:
    """Each `radpatch VERB ARGS` the hint names, in order."""
    return [[verb, *args.split()] for verb, args in COMMAND.findall(hint)]


def _hint(err: str) -> str:
    return err.split("radpatch: error: ", 1)[-1]


@pytest.mark.parametrize("name", CASES)
def test_a_stack_hint_followed_to_the_end_succeeds(template: Target, tmp_path: Path, name: str) -> None:
    case = CASES[name]
    t = fresh(template, tmp_path / "venv")  # type: ignore[arg-type]
    t.registry = tmp_path / "registry"
    for e in case.stack:
        payload = {f"made{e.i}.py": f"def made():\n    return {e.i}\n"} if e.makes else None
        write_entry(t.registry, e.name, e.yaml(), payload, dedent=False)
    for e in case.stack:
        code, _, err = t.radpatch("apply", e.name)
        assert code == 0, err
    verb = "revert"
    if case.disturb in ("edit", "comment"):
        path = t.site / "rpagree" / f"{case.module}.py"
        path.write_text(path.read_text() + ("EXTRA = 1\n" if case.disturb == "edit" else "# a note\n"))
    elif case.disturb == "gone" and case.gone is not None:
        (t.registry / f"e{case.gone}.yaml").unlink()
    elif case.disturb == "deleted":
        (t.site / "rpagree" / f"made{case.target}.py").unlink()
        verb = "apply"
    asked = [verb, f"e{case.target}"]
    code, _, err = t.radpatch(*asked)
    assert "Traceback" not in err and "internal error" not in err, err
    if code == 0:
        return
    hint = _hint(err)
    steps = commands(hint)
    assert steps, f"`radpatch {' '.join(asked)}` refused with no command to follow:\n{err}"
    for step in steps:
        if step[0] == "revert":  # each entry named beyond the one asked cannot stay on
            for left_out in (n for n in step[1:] if n != asked[1]):
                without = [n for n in step[1:] if n != left_out]
                dry, _, _ = t.radpatch("revert", "--dry-run", *without)
                assert dry != 0, f"{err}\n`revert {' '.join(without)}` would succeed: {left_out} can stay on"
        extra = ["--wheel", str(t.wheels)] if step[0] == "restore" else []
        code, _, got = t.radpatch(*step, *extra)
        assert code == 0, f"the hint of\n{err}\nfollowed as printed: `radpatch {' '.join(step)}` is refused:\n{got}"
    code, _, got = t.radpatch(*asked)
    assert code == 0, f"the hint of\n{err}\nfollowed to the end, and `radpatch {' '.join(asked)}` is refused:\n{got}"
