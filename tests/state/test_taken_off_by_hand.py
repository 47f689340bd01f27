"""Entries stacked on one file, some of their lines put back by hand, so that the file is byte for byte
what applying the others alone writes on the installed file (issue 21, att63 F8), on a real
pip-installed wheel. Seen before: every entry read drifted in `status`, `--check` and the engine-start
check, and `revert` of any was refused ("put the files back to the installed bytes").

The oracle is a second venv where only the entries kept are applied: the hand-edited file must be its
bytes exactly (else the case is no such composition). Every reader must say the kept entries applied and
the ones taken off not applied (the reason saying so); then the next apply or revert works from there:
reverting the kept ones gives the installed bytes, reverting the ones taken off leaves the file and the
kept ones as they are, applying the ones taken off puts them back on top (every entry applied), and
reverting all gives the installed bytes (a dry run of the step works first, writing nothing). A file
that is no such composition stays drifted, and its revert is refused, writing nothing.
"""

from __future__ import annotations

import itertools
import json
import subprocess
from pathlib import Path

import pytest

from tests.lib.generated import sample
from tests.lib.installed import Demo, Env, add_registry
from tests.lib.processes import clean_env

REPO = Path(__file__).resolve().parents[2]
ALPHA = "rphard_demo/alpha.py"
# name -> (scope, find, with): stacked on alpha.py in this order
STACK = {
    "e1": ("compute", "y = x + 1", "y = x + 2"),
    "e2": ("compute", "return y", "return y * 3"),
    "e3": ("caller", "return compute(2)", "return compute(5)"),
}
OFF = [("e1",), ("e2",), ("e3",), ("e1", "e3"), ("e1", "e2"), ("e2", "e3")]
NEXT = ("revert kept", "revert off", "apply off")
CASES = sample(list(itertools.product(OFF, NEXT)))

ENGINE_START = """\
import json, sys
from pathlib import Path
from radpatch.state.engine_start import check
got = check(Path(sys.argv[1]), tuple(sys.argv[2:]), package="rphard_demo")
print(json.dumps({c.name: [c.state.value.replace(" ", "-"), c.satisfied, c.detail] for c in got}))
"""


def entry(name: str) -> str:
    scope, find, with_ = STACK[name]
    return (
        f'summary: {name}\ndescription: {name}\ndistribution: rphard-demo\nsupported: ">=1.0,<2"\n'
        f'modules:\n  m: rphard_demo.alpha\nrewrites:\n  - id: r\n    replace: {{scope: {scope}, find: "{find}", '
        f'with: "{with_}"}}\n'
    )


def stacked(env: Env, tmp: Path) -> Env:
    for name in STACK:
        add_registry(env, tmp, name, entry(name))
    return env


def readers(env: Env) -> dict[str, dict[str, tuple[str, str]]]:
    """Each entry's state (and reason) as status --json, status --check and the engine-start check
    in the target interpreter (with RADPATCH_REQUIRE's rule) say it."""
    out = env.run("status", "--json", *STACK)
    assert out.returncode == 0, out.stderr
    status = {s["patch"]: (s["state"], s["reason"] or "") for s in json.loads(out.stdout)}
    done = subprocess.run(
        [str(env.python), "-c", ENGINE_START, str(env.site), *STACK],
        capture_output=True,
        text=True,
        env=clean_env(PYTHONPATH=str(REPO)),
        check=True,
    )
    engine = json.loads(done.stdout)
    got: dict[str, dict[str, tuple[str, str]]] = {}
    for name in STACK:
        check = env.run("status", "--check", name)
        assert check.returncode in (0, 3), check.stderr
        state, satisfied, detail = engine[name]
        got[name] = {
            "status": status[name],
            "--check": ("applied" if check.returncode == 0 else "not passed", check.stderr),
            "engine start": (state, detail),
            "RADPATCH_REQUIRE": ("applied" if satisfied else "not passed", detail),
        }
    return got


def agree(env: Env, want: dict[str, str], case: object) -> dict[str, dict[str, tuple[str, str]]]:
    got = readers(env)
    for name, state in want.items():
        passed = "applied" if state == "applied" else "not passed"
        seen = {who: s for who, (s, _) in got[name].items()}
        assert seen == {"status": state, "--check": passed, "engine start": state, "RADPATCH_REQUIRE": passed}, (
            case,
            name,
            got[name],
        )
    return got


def put_back(data: bytes, names: tuple[str, ...]) -> bytes:
    text = data.decode()
    for name in names:
        _, find, with_ = STACK[name]
        assert text.count(with_) == 1, (name, text)
        text = text.replace(with_, find)
    return text.encode()


@pytest.mark.parametrize(
    ("off", "then"), CASES, ids=[f"{'_'.join(off)}_off-{then.replace(' ', '_')}" for off, then in CASES]
)
def test_a_stack_with_entries_taken_off_by_hand_reads_as_what_it_is(
    demo: Demo, demo_env: Env, tmp_path: Path, off: tuple[str, ...], then: str
) -> None:
    env, case = stacked(demo_env, tmp_path), (off, then)
    kept = tuple(n for n in STACK if n not in off)
    oracle = stacked(demo.fresh(tmp_path / "oracle"), tmp_path / "oracle-registries")
    assert oracle.run("apply", *kept).returncode == 0
    assert env.run("apply", *STACK).returncode == 0
    full = env.path(ALPHA).read_bytes()
    env.path(ALPHA).write_bytes(put_back(full, off))
    assert env.path(ALPHA).read_bytes() == oracle.path(ALPHA).read_bytes(), case  # exactly the kept ones' result

    got = agree(env, {**dict.fromkeys(kept, "applied"), **dict.fromkeys(off, "not-applied")}, case)
    suffix = off == tuple(STACK)[len(kept) :]  # the top ones: the file is a link's own result, read as before
    for name in off if not suffix else ():  # both say why, naming what the file carries
        for who in ("status", "engine start"):
            assert "taken off by hand" in got[name][who][1] and ", ".join(kept) in got[name][who][1], (case, who, got)

    before = env.read()  # a dry run of the next step plans on the file as it is, and writes nothing
    command = {"revert kept": ("revert", *kept), "revert off": ("revert", *off), "apply off": ("apply", *off)}[then]
    out = env.run(*command, "--dry-run")
    assert out.returncode == 0 and env.read() == before, (case, out.stdout, out.stderr)
    if then == "revert kept":
        out = env.run("revert", *kept)
        assert out.returncode == 0, (case, out.stdout, out.stderr)
        assert env.path(ALPHA).read_bytes() == demo.original[ALPHA], case
        agree(env, dict.fromkeys(STACK, "not-applied"), case)
    elif then == "revert off":
        before = env.path(ALPHA).read_bytes()
        out = env.run("revert", *off)
        assert out.returncode == 0, (case, out.stdout, out.stderr)
        assert env.path(ALPHA).read_bytes() == before, case
        agree(env, {**dict.fromkeys(kept, "applied"), **dict.fromkeys(off, "not-applied")}, case)
    else:
        out = env.run("apply", *off)
        assert out.returncode == 0, (case, out.stdout, out.stderr)
        assert suffix or "taken off it by hand" in out.stdout, (case, out.stdout)  # the record follows the file
        data = env.path(ALPHA).read_bytes()
        assert all(STACK[n][2].encode() in data for n in STACK), (case, data)
        agree(env, dict.fromkeys(STACK, "applied"), case)
    out = env.run("revert", *STACK)  # and everything comes off from there
    assert out.returncode == 0, (case, out.stdout, out.stderr)
    assert env.path(ALPHA).read_bytes() == demo.original[ALPHA], case
    agree(env, dict.fromkeys(STACK, "not-applied"), case)


def test_a_file_that_is_no_such_composition_stays_drifted(demo_env: Env, tmp_path: Path) -> None:
    env = stacked(demo_env, tmp_path)
    assert env.run("apply", *STACK).returncode == 0
    path = env.path(ALPHA)
    path.write_bytes(path.read_bytes().replace(b"y = x + 2", b"y = x + 4"))  # e1's line changed, not put back
    agree(env, dict.fromkeys(["e1", "e2", "e3"], "drifted"), "code edit")
    before = env.read()
    out = env.run("revert", "e3")
    assert out.returncode == 1 and env.read() == before, (out.stdout, out.stderr)
    assert "put the files back to the installed bytes" in out.stderr, out.stderr
