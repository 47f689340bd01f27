"""A module of the package imported under a `try` whose handler swallows the failure may stop
early, so what it imports does not surely run (issue 21, att21b F3; names/package_scan.py).

`toyq/__init__.py` doing `try: from . import other` / `except ImportError: pass`, and `other.py`
stopping at `import rp_absent_...` above its `import xml.dom.minidom`: a new `xml.dom.minidom` read
in `toyq/m.py` (which only does `import xml`) raises AttributeError at import, so it is refused. The
same import spelled where it surely ran to its end (plain, a handler that re-raises, a `finally`)
still binds the read.

Generated: where the import of `other` stands (each placement) times where that placement is
(`toyq/__init__.py`, or `toyq/m.py` itself above the read) times what `other` does (imports
minidom, or stops first at a missing module) times radpatch's own Python and the other targets.
The target imports each patched `toyq.m` in a fresh interpreter: every patch whose read raises
AttributeError there must be refused; a patch that imports is refused only where the placement
cannot tell that `other` ran to its end (a swallowing handler: the documented conservative side).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from radpatch.install.environment import python_env
from radpatch.prove import names_check
from tests.lib.fresh_runs import fresh_run
from tests.lib.generated import sample
from tests.lib.interpreters import OTHER_TARGETS


@dataclass(frozen=True)
class Placement:
    text: str  # the import of `other` (relative: the same text in the package's `__init__` or in m.py)
    mid: str = ""  # toyq/mid.py when the placement goes through it
    swallowing: bool = True  # whether `other` may have stopped early once the module holding it ran


TRY = "try:\n    {body}\nexcept {kind}:\n    {handler}\n"
PLACEMENTS = {
    "plain": Placement("from . import other\n", swallowing=False),
    "try-importerror-pass": Placement(TRY.format(body="from . import other", kind="ImportError", handler="pass")),
    "try-exception-pass": Placement(TRY.format(body="from . import other", kind="Exception", handler="pass")),
    "try-bare-except-flag": Placement("try:\n    from . import other\nexcept:  # noqa: E722\n    other = None\n"),
    "try-reraise": Placement(
        TRY.format(body="from . import other", kind="ImportError", handler="raise"), swallowing=False
    ),
    "try-missing-first": Placement(
        TRY.format(body="import rp_absent_first_ab12\n    from . import other", kind="ImportError", handler="pass")
    ),
    "try-else": Placement("try:\n    import json\nexcept ImportError:\n    pass\nelse:\n    from . import other\n"),
    "try-finally": Placement("try:\n    pass\nfinally:\n    from . import other\n", swallowing=False),
    "through-mid": Placement(
        "from . import mid\n", mid=TRY.format(body="from . import other", kind="ImportError", handler="pass")
    ),
    "mid-plain": Placement("from . import mid\n", mid="from . import other\n", swallowing=False),
}
WHERE = ("init", "own")
OTHERS = {
    "imports-minidom": "import xml.dom.minidom\n",
    "stops-early": "import rp_absent_other_ab12\nimport xml.dom.minidom\n",
}
EXES = {"own": sys.executable, **{v: str(p) for v, p in OTHER_TARGETS.items()}}
CASES = sample(itertools.product(EXES, PLACEMENTS, WHERE, OTHERS))
target_env = functools.cache(python_env)


def _package(root: Path, placement: Placement, where: str, other: str) -> tuple[str, str]:
    """Writes toyq under `root`; returns m.py's text before and after the patch (the after on disk)."""
    pkg = root / "toyq"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(placement.text if where == "init" else "")
    (pkg / "other.py").write_text(OTHERS[other])
    if placement.mid:
        (pkg / "mid.py").write_text(placement.mid)
    before = "import xml\n" + (placement.text if where == "own" else "") + "\nEND = 1\n"
    after = before + "DOC = xml.dom.minidom.Document\n"
    (pkg / "m.py").write_text(after)
    return before, after


@pytest.mark.parametrize(("exe", "placement", "where", "other"), CASES, ids=["-".join(c) for c in CASES])
def test_a_sibling_imported_under_a_swallowing_try_does_not_bind_the_read(
    exe: str, placement: str, where: str, other: str, tmp_path: Path
) -> None:
    place = PLACEMENTS[placement]
    before, after = _package(tmp_path, place, where, other)
    code = f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import toyq.m"
    run = fresh_run(EXES[exe], code)
    attribute_error = "AttributeError" in run.stderr and "'dom'" in run.stderr
    (tmp_path / "toyq" / "m.py").write_text(before)
    env = target_env(EXES[exe])
    env = dataclasses.replace(env, paths=(tmp_path, *env.paths))

    refused = names_check.names_refusal(before.encode(), after.encode(), "toyq/m.py", env, module="toyq.m")

    why = None if refused is None else refused.why
    if attribute_error:  # wrong code at import: always refused
        assert why is not None, run.stderr[-300:]
    if run.returncode == 0:  # it imports: refused only where `other` may have stopped early
        assert (why is not None) == place.swallowing, why
    if why is not None:
        assert "add_import: import xml.dom.minidom" in why, why
