"""An entry renamed after it was applied, with an applied entry stacked on it that `requires:` it, in
generated sequences of apply, revert, rename (the entry, then the dependant's `requires:`) and a
reinstall of the wheel, on the demo's real wheel pip-installed into a venv, radpatch run as its own
process. After every step: what the record names and requires, the files' bytes and each command's
exit are compared with a small reference model, and `status`, `status --check`, the engine-start
check (radpatch.plugin.check) and revert must agree (att43 #6: `apply NEW` took the record over while
the dependant's entry still required the old name; `revert NEW` then lifted the dependant instead of
refusing; #7: after a reinstall `apply NEW` was refused as overlapping the stale record of the old
name), also while the dependant requires the new name and the code is recorded under the old one
(state44: status read it drifted, the engine-start check applied; and a revert of the dependant whose
entry requires the old name stopped with "unknown patch"). `RADPATCH_MODEL_EXAMPLES=N
RADPATCH_MODEL_SEED=S` runs more generated sequences."""

from __future__ import annotations

import itertools
import json
import os
import random
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.lib.installed import DEMO_DIST, DEMO_PATCH, DEMO_VERSION, Demo, Env
from tests.lib.registry import write_entry
from tests.lib.venvs import pip

OLD, NEW, UP = DEMO_PATCH, "rphard2", "up"
UPPER = (
    'summary: s\ndescription: d\ndistribution: rphard-demo\nsupported: ">=1.0,<2"\nrequires: [{req}]\n'
    "modules:\n  beta: rphard_demo.sub.beta\nrewrites:\n  - id: r\n    file: beta\n"
    '    replace: {{scope: limit, find: "return min(n, cap)", with: "return min(n, cap) or 0"}}\n'
)
MOVES = ("rename-req", "apply-new", "apply-up", "revert-lower", "revert-up", "reinstall")
FOUND = [  # the reviews' cases, then generated ones
    ("rename", "apply-new", "revert-lower", "revert-up"),
    ("rename", "rename-req", "apply-new", "revert-lower"),
    ("rename", "reinstall", "apply-new", "apply-up"),
    # state44: the dependant requires the new name, the code recorded under the old one (status read
    # it drifted, the engine-start check applied); a revert of the dependant whose entry requires the
    # old name, which no registry has (it stopped with "unknown patch")
    ("rename", "rename-req", "revert-lower", "revert-up"),
    ("rename", "revert-up", "apply-new", "revert-lower"),
]
_rng = random.Random(int(os.environ.get("RADPATCH_MODEL_SEED", "0")))
_ALL = [("rename", *m) for m in itertools.product(MOVES, repeat=3)]
# at most every sequence: RADPATCH_MODEL_EXAMPLES=300, as the other machines take it, runs all 216
SEQUENCES = FOUND + _rng.sample(_ALL, min(len(_ALL), int(os.environ.get("RADPATCH_MODEL_EXAMPLES", "5"))))


@dataclass
class Model:
    """The registry's names, what the record holds (name -> requires as recorded), whose code the
    files carry ("L": the renamed entry's, "U": the dependant's)."""

    lower: str = OLD  # the renamed entry's name in the registry
    up_req: str = OLD  # what the dependant's entry requires
    records: dict[str, tuple[str, ...]] = field(default_factory=lambda: {OLD: (), UP: (OLD,)})
    on: set[str] = field(default_factory=lambda: {"L", "U"})

    @property
    def lower_record(self) -> str | None:
        return next((n for n in self.records if n != UP), None)

    def _lower_on(self) -> int:
        """apply of the renamed entry (its registry name): 0, or 1 when refused."""
        rec = self.lower_record
        if "L" in self.on and rec == self.lower:
            return 0
        if "L" in self.on:  # recorded under the old name: taken over, unless the dependant still requires it
            if UP in self.records and self.up_req == OLD:
                return 1
            self.records = {
                (NEW if n == OLD else n): tuple(NEW if r == OLD else r for r in q) for n, q in self.records.items()
            }
            return 0
        if rec is not None:  # a stale record (reinstalled): the run writes the same bytes and replaces it
            del self.records[rec]
        self.records[self.lower] = ()
        self.on.add("L")
        return 0

    def step(self, move: str) -> int:
        """The expected exit code of the move, the model moved on."""
        if move == "rename":
            self.lower = NEW
        elif move == "rename-req":
            self.up_req = self.lower
        elif move == "reinstall":
            self.on = set()
        elif move == "apply-new":
            return self._lower_on()
        elif move == "apply-up":
            if self.up_req != self.lower:
                return 2  # the dependant requires a name no registry has
            if self._lower_on():
                return 1
            self.on.add("U")
            self.records[UP] = (self.lower,)
        elif move == "revert-up":  # from the record, whatever its entry's `requires:` names
            self.on.discard("U")
            self.records.pop(UP, None)
        elif move == "revert-lower":
            if "U" in self.on:  # the dependant is applied and requires it (by its record, or its entry)
                return 1
            self.on.discard("L")
            self.records.pop(self.lower_record or self.lower, None)
        return 0

    def name_of_lower(self) -> str:
        return self.lower_record or self.lower

    @property
    def under_old_name(self) -> bool:
        """The dependant's entry requires the renamed entry's new name, whose code is applied under the old
        name's record (before `apply NEW`): the takeover rule makes it the same entry, so it is met."""
        return self.up_req == self.lower != self.lower_record and self.lower_record is not None and "L" in self.on

    def up_state(self) -> str:
        if "U" not in self.on:
            return "not-applied"
        # as it was applied: what its record requires is on (a revert of it is refused while U is on),
        # whatever its entry requires now (a revision's requirement is a note), as at engine start
        assert all(r in self.records for r in self.records[UP]), self.records
        return "applied"


def _registry(env: Env, tmp: Path, m: Model) -> None:
    src = env.registries[0]
    d = tmp / f"reg-{m.lower}-{m.up_req}"
    if not d.exists():
        base = tmp / "reg-base"
        if not base.exists():
            base.mkdir()
            for f in src.iterdir():
                (base / f.name).write_bytes(f.read_bytes())
        d.mkdir()
        for f in base.iterdir():
            name = f"{m.lower}.yaml" if f.name == f"{DEMO_PATCH}.yaml" else f.name
            (d / name).write_bytes(f.read_bytes())
        write_entry(d, UP, UPPER.format(req=m.up_req), dedent=False)
    env.registries = (d,)


def _start_check(env: Env, name: str) -> tuple[bool, dict[str, tuple[bool, tuple[str, ...]]]]:
    """The engine-start check's word on `name` (required), and each recorded patch: (satisfied, requires)."""
    from radpatch import plugin

    checks = plugin.check(env.site, (name,), package="rphard_demo")
    every = {c.name: (c.satisfied, c.record.requires if c.record else ()) for c in checks}
    return every[name][0], every


def _agree(env: Env, m: Model, files: dict[frozenset[str], dict[str, bytes]], step: str) -> None:
    record = env.record()
    assert {n: tuple(r["requires"]) for n, r in record.items()} == m.records, (step, record)  # type: ignore[index]
    assert env.read() == files[frozenset(m.on)], (step, m.on)
    out = env.run("status", "--json")
    assert out.returncode == 0, (step, out.stderr)
    states = {s["patch"]: s for s in json.loads(out.stdout)}
    lower = m.lower_record
    if lower is not None:
        assert states[lower]["state"] == ("applied" if "L" in m.on else "not-applied"), (step, states[lower])
    if UP in m.records:
        assert states[UP]["state"] == m.up_state(), (step, states[UP])
        said = f"its requirement {NEW} is applied under its old name {OLD}" in str(states[UP]["reason"])
        assert said is (m.under_old_name and "U" in m.on), (step, states[UP])
    for name in {*m.records, m.lower, UP}:
        checked = env.run("status", "--check", name).returncode
        started, every = _start_check(env, name)
        assert (checked == 0) is started, (step, name, checked, every)
    if lower is not None:  # revert refuses exactly while the engine-start check has a dependant applied on it
        refused = env.run("revert", "--dry-run", lower)
        held = any(ok and lower in req for n, (ok, req) in every.items() if n != lower)
        assert (refused.returncode == 1) is held, (step, refused.stdout + refused.stderr, every)
    if m.lower == NEW and m.lower_record == OLD and "L" in m.on:  # `revert NEW` before the takeover
        out = env.run("revert", "--dry-run", NEW)  # its code is on under OLD: never "nothing to revert"
        said = out.stdout + out.stderr
        assert out.returncode == 1 and "nothing to revert" not in said, (step, said)
        assert f"radpatch revert {OLD}" in said, (step, said)  # also while a dependant requires it (att46 #5)
    if m.lower == NEW and NEW not in m.records:  # status offers the takeover exactly when apply makes it
        offered = "records it under this name" in str(states[NEW]["reason"])
        dry = env.run("apply", "--dry-run", NEW)
        assert offered is ("would take over" in dry.stdout and dry.returncode == 0), (step, states[NEW], dry.stderr)


def _reinstall(env: Env, demo: Demo) -> None:
    pip(env.python, "install", "--force-reinstall", "--no-deps", "--no-index", "--find-links",
        str(demo.wheel.parent), f"{DEMO_DIST}=={DEMO_VERSION}")  # fmt: skip


@pytest.mark.parametrize("moves", SEQUENCES, ids=["-".join(s) for s in SEQUENCES])
def test_a_renamed_entry_with_a_dependant_agrees_with_the_model(
    demo: Demo, demo_env: Env, tmp_path: Path, moves: tuple[str, ...]
) -> None:
    env, m = demo_env, Model()
    _registry(env, tmp_path, m)
    files = {frozenset(): env.read()}
    assert env.run("apply", OLD).returncode == 0
    files[frozenset({"L"})] = env.read()
    out = env.run("apply", UP)
    assert out.returncode == 0, out.stderr
    files[frozenset({"L", "U"})] = env.read()
    _agree(env, m, files, "applied")
    for i, move in enumerate(moves):
        verb, _, which = move.partition("-")
        argv = [verb, {"new": m.lower, "up": UP, "lower": m.name_of_lower()}.get(which, "")]
        want = m.step(move)
        _registry(env, tmp_path, m)
        if move == "reinstall":
            _reinstall(env, demo)
        elif verb in ("apply", "revert"):
            got = env.run(*argv)
            assert got.returncode == want, (moves[: i + 1], got.stdout + got.stderr)
        _agree(env, m, files, " ".join(moves[: i + 1]))
