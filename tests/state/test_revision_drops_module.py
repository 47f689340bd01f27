"""A revision of an entry that drops one of the modules it patched, crossed with a hand edit of one
recorded file (att48 #1, issue 21's one state model), on a real pip-installed wheel.

The two-file demo entry is applied to rphard_demo/alpha.py and rphard_demo/sub/beta.py; then its
registry entry is revised (kept as it was, its description changed, or its rewrites of one module
dropped) and one recorded file is edited by hand: put back to the installed bytes, a comment line
added, or a code line added (or nothing). Seen before: a revision naming only alpha, beta put back by
hand, read applied in `status --check` ("applied from a different revision") and drifted at engine
start, and `revert` was refused; alpha put back instead, status named beta as changed.

The oracle is the files themselves, by `ast` (Python's own parse): each recorded file's code is the
wheel's, the applied patch's, or neither. Every reader must say the one thing that follows: `status
--json`, `status --check`, and the engine-start check run in the target interpreter with the entry
required (RADPATCH_REQUIRE): applied when both carry it, not applied when neither does, drifted for a
mix (the reason naming the file put back, in both) or a code edit. And `revert` takes the patch off
what still carries it (each file's code the wheel's afterwards, the comment kept), or is refused,
writing nothing, where a file is in neither form; then every reader says not applied.
"""

from __future__ import annotations

import ast
import itertools
import json
import subprocess
from pathlib import Path

import pytest

from tests.lib.generated import sample
from tests.lib.installed import DEMO_PATCH, DEMO_PAYLOAD, DEMO_REGISTRY, Demo, Env
from tests.lib.processes import clean_env
from tests.lib.registry import write_entry

REPO = Path(__file__).resolve().parents[2]
FILES = {"alpha": "rphard_demo/alpha.py", "beta": "rphard_demo/sub/beta.py"}
REVISIONS = ("same", "description", "drops beta", "drops alpha")
EDITS = ("put back", "comment", "code")
CASES = sample([("none", "-", rev) for rev in REVISIONS] + list(itertools.product(EDITS, FILES, REVISIONS)))

ENGINE_START = """\
import json, sys
from pathlib import Path
from radpatch.state.engine_start import check
(c,) = check(Path(sys.argv[1]), (sys.argv[2],), package="rphard_demo")
print(json.dumps([c.state.value.replace(" ", "-"), c.satisfied, c.detail]))
"""


def revised(revision: str) -> str:
    """The demo entry as `revision` has it: a rewrite's `file:` names the module key it patches."""
    if revision == "same":
        return DEMO_REGISTRY
    if revision == "description":
        return DEMO_REGISTRY.replace("Doubles alpha", "Revised: doubles alpha")
    drop = revision.split()[1]
    head, _, rewrites = DEMO_REGISTRY.partition("rewrites:\n")
    head = "".join(line for line in head.splitlines(keepends=True) if not line.strip().startswith(f"{drop}:"))
    kept = [r for r in rewrites.split("  - id: ")[1:] if f"file: {drop}\n" not in r]
    return head + "rewrites:\n" + "".join("  - id: " + r for r in kept)


def form(data: bytes, demo: Demo, rel: str) -> str:
    """What the file's code is (ast): the wheel's, the applied patch's, or neither."""
    code = ast.dump(ast.parse(data))
    if code == ast.dump(ast.parse(demo.original[rel])):
        return "original"
    return "patched" if code == ast.dump(ast.parse(demo.patched[rel])) else "other"


def expected(forms: dict[str, str]) -> str:
    seen = set(forms.values())
    if seen == {"patched"}:
        return "applied"
    return "not-applied" if seen == {"original"} else "drifted"


def readers(env: Env) -> dict[str, tuple[str, str]]:
    """The entry's state and reason as each reader says it: status --json, status --check (its exit
    code: applied or not), the engine-start check in the target interpreter, and whether
    RADPATCH_REQUIRE would let the engine start."""
    out = env.run("status", "--json", DEMO_PATCH)
    assert out.returncode == 0, out.stderr
    (st,) = json.loads(out.stdout)
    check = env.run("status", "--check", DEMO_PATCH)
    assert check.returncode in (0, 3), check.stderr
    done = subprocess.run(
        [str(env.python), "-c", ENGINE_START, str(env.site), DEMO_PATCH],
        capture_output=True,
        text=True,
        env=clean_env(PYTHONPATH=str(REPO)),
        check=True,
    )
    state, satisfied, detail = json.loads(done.stdout)
    return {
        "status": (st["state"], st["reason"] or ""),
        "--check": ("applied" if check.returncode == 0 else "not passed", check.stderr),
        "engine start": (state, detail),
        "RADPATCH_REQUIRE": ("applied" if satisfied else "not passed", detail),
    }


def agree(got: dict[str, tuple[str, str]], want: str, case: object) -> None:
    states = {who: s for who, (s, _) in got.items()}
    passed = "applied" if want == "applied" else "not passed"
    assert states == {"status": want, "--check": passed, "engine start": want, "RADPATCH_REQUIRE": passed}, (
        case,
        got,
    )


@pytest.mark.parametrize(("edit", "which", "revision"), CASES)
def test_every_reader_agrees_after_a_revision_and_a_hand_edit(
    demo: Demo, demo_env: Env, tmp_path: Path, edit: str, which: str, revision: str
) -> None:
    env, case = demo_env, (edit, which, revision)
    assert env.run("apply", DEMO_PATCH).returncode == 0
    registry = tmp_path / "revised"
    write_entry(registry, DEMO_PATCH, revised(revision), {"rphard_payload.py": DEMO_PAYLOAD}, dedent=False)
    env.registries = (registry,)
    if edit != "none":
        path = env.path(FILES[which])
        if edit == "put back":
            path.write_bytes(demo.original[FILES[which]])
        else:
            with path.open("a") as fh:
                fh.write("# a note by hand\n" if edit == "comment" else "EDITED = 1\n")
    forms = {rel: form(env.path(rel).read_bytes(), demo, rel) for rel in FILES.values()}
    want = expected(forms)
    got = readers(env)
    agree(got, want, case)
    if want == "drifted" and "other" not in forms.values():  # a file put back: both name it, and only it
        back, other = FILES[which], next(r for r in FILES.values() if r != FILES[which])
        for who in ("status", "engine start"):
            assert back in got[who][1] and other not in got[who][1], (case, who, got[who])
    before = env.read()
    out = env.run("revert", DEMO_PATCH)
    if "other" in forms.values():  # a file in neither form: nothing is written
        assert out.returncode == 1 and env.read() == before, (case, out.stdout, out.stderr)
        return
    assert out.returncode == 0, (case, out.stdout, out.stderr)
    after = {rel: form(env.path(rel).read_bytes(), demo, rel) for rel in FILES.values()}
    assert after == dict.fromkeys(FILES.values(), "original"), (case, after, out.stdout)
    if edit in ("none", "put back"):  # exactly the wheel's bytes again
        assert env.read() == demo.original, case
    agree(readers(env), "not-applied", case)
