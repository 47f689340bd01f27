"""Issue 20 (att20 F1): a diff adding a definition in a new branch exclusive with the module's other
definitions of that name (an `elif`, an `else`) imports into an entry
the real engine applies AST-equal to GNU patch, `status --check` accepts and revert undoes
(tests/lib/importing, on a pip-installed toy wheel). A diff whose added definition does run with
another one (a new `if` before an if/else that always rebinds it) is refused by `import` itself,
naming the patch file and apply's refusal, with nothing written: import proves what it writes as
apply does (importing.dry_run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.generated import sample
from tests.lib.importing import diff_imported_refused, imported_as_gnu_patch_give_each, imported_as_gnu_patch_gives

# a real wheel pip-installed into a venv: the real tier (tests/lib/tier.py)
pytestmark = pytest.mark.wheel

DEF = "    def pick(x):\n        return x + {n}\n"
HEAD = "import sys\n\n"
TAIL = "\n\ndef after():\n    return pick(1)\n"

# (before, after): the after adds a third definition of `pick`, never run with the other two
SHAPES = {
    # tests radpatch cannot decide for the target (a version test is decided: a branch dead on the
    # target is dead code, refused by placement's reachability, prove/placement/target_version)
    "elif": (
        "if sys.platform.startswith('linux'):\n{a}else:\n{b}",
        "if sys.platform.startswith('linux'):\n{a}elif sys.platform == 'win32':\n{c}else:\n{b}",
    ),
    "else-of-an-if": (
        "if sys.platform.startswith('linux'):\n{a}",
        "if sys.platform.startswith('linux'):\n{a}else:\n{c}",
    ),
}
CASES = sample(SHAPES)


def _case(shape: str) -> tuple[str, str]:
    a, b, c = (DEF.format(n=n) for n in (1, 2, 3))
    before, after = SHAPES[shape]
    return HEAD + before.format(a=a, b=b) + TAIL, HEAD + after.format(a=a, b=b, c=c) + TAIL


@pytest.fixture(scope="module")
def passed_together(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, object]]:
    return imported_as_gnu_patch_give_each(tmp_path_factory.mktemp("exclusive"), [_case(s) for s in CASES])


@pytest.mark.parametrize("shape", CASES)
def test_a_definition_in_a_new_exclusive_branch_imports_and_applies(
    tmp_path: Path, passed_together: dict[int, dict[str, object]], shape: str
) -> None:
    if CASES.index(shape) not in passed_together:  # alone, for the failing check's message
        imported_as_gnu_patch_gives(tmp_path, *_case(shape))


def test_a_definition_in_a_handler_that_never_runs_is_not_written(tmp_path: Path) -> None:
    """A try's new fallback handler (`except OSError:` after `except ImportError:` of an import that
    succeeds on the install) never runs: placement refuses it (att21c, prove/placement/fallbacks;
    tests/prove/test_patched_fallbacks), so import writes nothing, naming why."""
    a, c = DEF.format(n=1), DEF.format(n=3)
    guard = "try:\n    from json import loads as pick\nexcept ImportError:\n"
    before, after = HEAD + guard + a + TAIL, HEAD + guard + a + f"except OSError:\n{c}" + TAIL
    out, reg = diff_imported_refused(tmp_path, before, after)
    assert out.returncode == 1, out.stdout + out.stderr
    first = out.stderr.splitlines()[0]
    assert "change.patch: the entry import would write is refused by apply" in first, first
    assert "so the patched fallback never runs" in first, first
    assert "Traceback" not in out.stderr
    assert not reg.exists() or not any(reg.iterdir())


def test_an_entry_apply_would_refuse_is_not_written(tmp_path: Path) -> None:
    a, b, c = (DEF.format(n=n) for n in (1, 1, 1))
    before = HEAD + f"if sys.version_info >= (3, 8):\n{a}else:\n{b}" + TAIL
    after = HEAD + f"if sys.platform == 'win32':\n{c}\n" + before[len(HEAD) :]  # the if/else below always rebinds it
    out, reg = diff_imported_refused(tmp_path, before, after)
    assert out.returncode == 1, out.stdout + out.stderr
    first = out.stderr.splitlines()[0]
    assert (
        first.startswith("radpatch: error: ")
        and "change.patch: the entry import would write is refused by apply" in first
    )
    assert "the def `pick` it adds would share its name with the def `pick`" in first, first
    assert "Traceback" not in out.stderr
    assert not reg.exists() or not any(reg.iterdir())
