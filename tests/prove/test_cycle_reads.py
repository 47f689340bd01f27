"""A new import that closes an import cycle through another module of the package, where that module
takes a name back from the patched module at import time before the patched module binds it, is
refused by a plain apply, naming the module, its line and the name (att21 F2: only
`--import-check` caught it).

Generated: how the other module takes the name (from-import absolute, relative, aliased; an
attribute read through `from . import mod` or `import pp.mod as m`; inside a function: later, so
fine) times where the patch puts its new import (above the binding, below it) times the cycle's
length (the other module imported directly, or through a third). The oracle imports the patched
module in a fresh interpreter: the proof refuses exactly the patches whose import fails.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.prove import names, names_check
from tests.lib.generated import sample
from tests.lib.package_imports import judge, site_env, write_package

ORIGINAL = "import os\n\nVALUE = 1\n\n\ndef f():\n    return VALUE\n"
TAKES = {  # pp/other.py
    "from-absolute": "from pp.mod import VALUE\n\n\ndef helper():\n    return VALUE\n",
    "from-relative": "from .mod import VALUE\n\n\ndef helper():\n    return VALUE\n",
    "from-aliased": "from .mod import VALUE as V\n\n\ndef helper():\n    return V\n",
    "attr-from-package": "from . import mod\n\nV = mod.VALUE\n\n\ndef helper():\n    return V\n",
    "attr-module-alias": "import pp.mod as m\n\nV = m.VALUE\n\n\ndef helper():\n    return V\n",
    "in-function": "def helper():\n    from pp.mod import VALUE\n    return VALUE\n",
    "module-only": "import pp.mod\n\n\ndef helper():\n    return pp.mod.VALUE\n",
}
WHERE = {  # the patched pp/mod.py
    "above": ORIGINAL.replace("import os\n", "import os\nfrom pp.IMPORTED import helper\n"),
    "below": ORIGINAL.replace("VALUE = 1\n", "VALUE = 1\nfrom pp.IMPORTED import helper\n"),
}
CHAINS = ("direct", "through-third")


def write(root: Path, take: str, chain: str, mod: str, init: str = "") -> Path:
    third = {"third": "from pp.other import helper\n"} if chain == "through-third" else {}
    return write_package(root, {"__init__": init, "other": TAKES[take], **third, "mod": mod})


ALL_CASES = list(itertools.product(TAKES, WHERE, CHAINS))
CASES = sample(ALL_CASES)


@pytest.mark.parametrize(("take", "where", "chain"), CASES, ids=["-".join(c) for c in CASES])
def test_a_new_import_whose_cycle_takes_a_name_not_bound_yet_is_refused(
    take: str, where: str, chain: str, tmp_path: Path
) -> None:
    root = tmp_path / "site"
    write(root, take, chain, ORIGINAL)
    patched = WHERE[where].replace("IMPORTED", "other" if chain == "direct" else "third")
    truth, refused = judge(root, patched, "import pp.mod")
    assert (refused is not None) == truth, (take, where, chain, refused)
    if refused is not None:
        assert "`VALUE` (line 2, at module level) is taken from this module by pp/other.py:" in refused.why
        assert "the import at line 2 runs while this module binds it only at line 4" in refused.why, refused.why
        assert refused.hint == names_check.CYCLE_READ_HINT and names.CYCLE_READ in names.PER_USE


def test_a_module_on_the_cycle_radpatch_cannot_read_is_refused_with_the_reason(tmp_path: Path) -> None:
    """Unsure is a refusal that says why and names the import check, not an acceptance."""
    root = tmp_path / "site"
    env = site_env(root)
    mod = write(root, "from-absolute", "direct", ORIGINAL)
    before = mod.read_bytes()
    after = WHERE["above"].replace("IMPORTED", "other").encode()
    (root / "pp" / "other.py").write_bytes(b"from pp.mod import VALUE\n\x00def helper(:\n")
    refused = names_check.names_refusal(before, after, str(mod), env, "pp.mod")
    assert refused is not None and "pp/other.py, which the import at line 2 runs" in refused.why, refused
    assert "cannot read" in refused.why and "--import-check" in refused.why


def test_both_outcomes_are_generated() -> None:
    assert any(w == "above" and t.startswith("from") for t, w, _ in ALL_CASES)
    assert any(w == "below" or t == "in-function" for t, w, _ in ALL_CASES)


INITS = {  # pp/__init__.py, which has started before pp.mod runs: the new import finds pp in sys.modules
    "imports-mod": "from .mod import VALUE\n",
    "imports-mod-then-other": "from .mod import VALUE\nfrom . import other\n",
    "imports-other-then-mod": "from . import other\nfrom .mod import VALUE\n",
}
PARENT_TAKES = {**TAKES, "nothing": "def helper():\n    return 1\n"}
ALL_PARENT_CASES = list(itertools.product(INITS, PARENT_TAKES, WHERE))
PARENT_CASES = sample(ALL_PARENT_CASES)


@pytest.mark.parametrize(("init", "take", "where"), PARENT_CASES, ids=["-".join(c) for c in PARENT_CASES])
def test_a_new_import_through_the_running_parent_package_is_judged_by_what_runs(
    init: str, take: str, where: str, tmp_path: Path
) -> None:
    """The package's __init__ imports the patched module (as vLLM's do): a new import of a sibling
    goes through the parent package, already running, so only the sibling's own reads can fail it
    (a sibling that takes nothing from pp.mod imports fine: it was refused as a cycle through pp)."""
    root = tmp_path / "site"
    other = PARENT_TAKES[take]
    write_package(root, {"__init__": INITS[init], "other": other, "mod": ORIGINAL})
    patched = WHERE[where].replace("IMPORTED", "other")
    truth, refused = judge(root, patched, "import pp.mod")
    assert (refused is not None) == truth, (init, take, where, refused)


def test_the_parent_family_has_both_outcomes() -> None:
    assert any(t == "nothing" for _, t, _ in ALL_PARENT_CASES)
    assert any(w == "above" and t.startswith("from") for _, t, w in ALL_PARENT_CASES)
