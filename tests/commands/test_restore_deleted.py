"""A file radpatch patched, then deleted by hand (att40 #6): status and revert read incompatible with
the hint "check the registry's modules", though the module is the distribution's (its RECORD lists
it) and radpatch kept its installed bytes. Now the refusal says the file was deleted and points at
`radpatch restore`, which puts it back from radpatch's kept originals, offline (no index is
reachable here), after which the patch reads not applied and the files are RECORD's.

Generated: which of the demo's files is deleted, and the command asked first."""

from __future__ import annotations

import hashlib
import itertools

import pytest

from tests.lib.generated import sample
from tests.lib.installed import DEMO_PATCH, Env

pytestmark = pytest.mark.wheel

CASES = sample(list(itertools.product((0, 1), ("status", "revert"))))


@pytest.mark.parametrize(("which", "first"), CASES)
def test_a_deleted_patched_file_is_put_back_from_the_kept_original(demo_env: Env, which: int, first: str) -> None:
    installed = demo_env.read()
    assert demo_env.run("apply", DEMO_PATCH).returncode == 0
    rel = demo_env.targets[which % len(demo_env.targets)]
    demo_env.path(rel).unlink()

    asked = demo_env.run(*((first, "--check") if first == "status" else (first,)), DEMO_PATCH)

    said = asked.stdout + asked.stderr
    assert asked.returncode != 0 and "Traceback" not in said, said
    assert "its RECORD lists it (deleted since)" in said and f"radpatch restore {rel}" in said, said
    assert "check the registry's modules" not in said, said
    restored = demo_env.run("restore", rel)
    assert restored.returncode == 0, restored.stdout + restored.stderr
    assert "radpatch's kept originals" in restored.stdout, restored.stdout
    assert hashlib.sha256(demo_env.path(rel).read_bytes()).digest() == hashlib.sha256(installed[rel]).digest()
    rest = [r for r in demo_env.targets if r != rel]
    others = demo_env.run("restore", *rest)  # what its note says: every file of it restored, revert forgets it
    assert others.returncode == 0 and "radpatch's kept originals" in others.stdout, others.stdout + others.stderr
    done = demo_env.run("revert", DEMO_PATCH)
    assert done.returncode == 0, done.stdout + done.stderr
    assert demo_env.read() == installed
    check = demo_env.run("status", "--json", DEMO_PATCH)
    assert '"not-applied"' in check.stdout or '"not applied"' in check.stdout, check.stdout
