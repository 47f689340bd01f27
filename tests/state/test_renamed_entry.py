"""An entry renamed in the registry after it was applied (rphard.yaml -> rphard2.yaml), alone or as the
lower of a stacked pair, with its rewrites the same or revised too (write.takeover, docs/state.md "An
entry no registry given has"). Generated sequences, each step compared with a small reference model of
what the record names and what the files hold, on the demo's real wheel pip-installed into a venv,
radpatch run as its own process (att40 #3: status said rphard2 not-applied while its code ran, and
`apply rphard2` was refused as an overlap with its own old name)."""

from __future__ import annotations

import itertools
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.lib.installed import DEMO_PATCH, DEMO_TARGETS, Env
from tests.lib.registry import write_entry

NEW = "rphard2"
UP = "up"
UPPER = (
    'summary: s\ndescription: d\ndistribution: rphard-demo\nsupported: ">=1.0,<2"\n{requires}'
    "modules:\n  beta: rphard_demo.sub.beta\nrewrites:\n  - id: r\n    file: beta\n"
    '    replace: {{scope: limit, find: "return min(n, cap)", with: "return min(n, cap) or 0"}}\n'
)


@dataclass
class Model:
    """What the record names, and which files are as the first applies left them."""

    recorded: set[str] = field(default_factory=set)
    files: str = "patched"  # "patched": as the applies left them; "original": the wheel's bytes
    requires: str = ""  # what the loaded upper entry requires ("" none): a recorded upper whose requirement
    # is recorded under no such name reads applied, as its record says, with the note "its entry now
    # requires X, which is not applied"


def _registries(env: Env, tmp: Path, revised: bool, upper: str | None, lower: str) -> None:
    """The demo's entry as `lower` (revised: beta's cap 20 -> 21), and the upper entry when stacked."""
    src = env.registries[0]
    d = tmp / f"registry-{lower}-{revised}"
    if not d.exists():
        shutil.copytree(src, d)
        text = (d / f"{DEMO_PATCH}.yaml").read_text()
        if revised:
            text = text.replace("with: cap = 20", "with: cap = 21")
        (d / f"{DEMO_PATCH}.yaml").unlink()
        (d / f"{lower}.yaml").write_text(text)
    regs = [d]
    if upper is not None:
        u = tmp / f"registry-up-{lower}"
        requires = f"requires: [{lower}]\n" if upper == "requires" else ""
        write_entry(u, UP, UPPER.format(requires=requires), dedent=False)
        regs.append(u)
    env.registries = tuple(regs)


def _status(env: Env) -> dict[str, dict[str, object]]:
    import json

    out = env.run("status", "--json")
    assert out.returncode == 0, out.stderr
    return {s["patch"]: s for s in json.loads(out.stdout)}


def _agree(env: Env, model: Model, patched: dict[str, bytes], step: str) -> None:
    assert set(env.record()) == model.recorded, (step, env.record().keys())
    want = patched if model.files == "patched" else env.original
    assert env.read() == want, step
    states = _status(env)
    for name in model.recorded:  # applied by what it was applied with (the record), as at engine start
        assert states[name]["state"] == "applied", (step, name, states[name])
        gained = name == UP and model.requires and model.requires not in model.recorded
        said = f"its entry now requires {model.requires}, which is not applied" in str(states[name]["reason"])
        assert said is bool(gained), (step, name, states[name])


CASES = list(
    itertools.product([False, True], [None, "requires", "independent"], ["apply", "revert-old", "apply-revert"])
)


@pytest.mark.parametrize(("revised", "upper", "then"), CASES, ids=[f"{r}-{u}-{t}" for r, u, t in CASES])
def test_a_renamed_entry_is_taken_over_only_when_it_writes_the_same_bytes(
    demo_env: Env, tmp_path: Path, revised: bool, upper: str | None, then: str
) -> None:
    env, model = demo_env, Model()
    _registries(env, tmp_path, False, upper, DEMO_PATCH)
    names = [DEMO_PATCH, *([UP] if upper else [])]
    out = env.run("apply", *names)
    assert out.returncode == 0, out.stderr
    patched = env.read()
    model.recorded = set(names)
    _agree(env, model, patched, "applied")

    _registries(env, tmp_path, revised, upper, NEW)  # renamed (and revised): the old name is in no registry
    model.requires = NEW if upper == "requires" else ""
    new = _status(env)[NEW]
    assert new["state"] == "not-applied", new
    assert ("applied here as rphard" in str(new["reason"])) is not revised, new["reason"]

    if then in ("apply", "apply-revert"):
        out = env.run("apply", NEW)
        if revised:  # other bytes: no takeover, still the overlap refusal; nothing changes
            assert out.returncode == 1, out.stdout + out.stderr
            assert "overlap" in out.stderr, out.stderr
        else:
            assert out.returncode == 0, out.stdout + out.stderr
            assert "took over the record of rphard" in out.stdout, out.stdout
            model.recorded = (model.recorded - {DEMO_PATCH}) | {NEW}
            if upper == "requires":
                assert env.record()[UP]["requires"] == [NEW], env.record()[UP]  # type: ignore[index]
        _agree(env, model, patched, f"apply {NEW}")
    if then in ("revert-old", "apply-revert"):
        lower = NEW if then == "apply-revert" and not revised else DEMO_PATCH
        out = env.run("revert", *([UP] if upper else []), lower)
        assert out.returncode == 0, out.stdout + out.stderr
        model.recorded, model.files = set(), "original"
        _agree(env, model, patched, f"revert {lower}")


def test_dry_run_takes_nothing_over(demo_env: Env, tmp_path: Path) -> None:
    env = demo_env
    assert env.run("apply", DEMO_PATCH).returncode == 0
    before = (env.state_dir / "record.json").read_bytes()
    _registries(env, tmp_path, False, None, NEW)
    out = env.run("apply", "--dry-run", NEW)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "would take over the record of rphard" in out.stdout, out.stdout
    assert (env.state_dir / "record.json").read_bytes() == before
    assert env.path(DEMO_TARGETS[1]).read_bytes() != env.original[DEMO_TARGETS[1]]
