"""A patch that takes a module-level name away (deletes it, renames it) while another module of the
same installed package imports it from the patched module is refused, naming the importing
module's file:line (att21 F3: `from toyq.mod import LEGACY` broke on a delete that passed even
`--import-check`).

Generated: how the other module takes the name (from-import absolute, relative, through the
package's __init__; an attribute read through `from . import mod`, `import pp.mod as m`, `import
pp.mod`, at import or in a function; guarded by `except ImportError`; in a function) times what the
patch does to the name (delete it, rename it, rename it keeping an alias, leave it). The oracle
imports every module of the patched package in a fresh interpreter and calls `use()`: the proof
refuses exactly the patches that make one of them fail.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.prove import names, names_check
from tests.lib.generated import sample
from tests.lib.package_imports import judge, site_env, write_package

ORIGINAL = "import os\n\nLEGACY = 1\nMODERN = 2\n\n\ndef helper(x):\n    return x\n\n\nclass Old:\n    pass\n"
OTHERS = {  # pp/other.py, taking NAME from pp.mod
    "from-absolute": "from pp.mod import NAME\n\n\ndef use():\n    return NAME\n",
    "from-relative": "from .mod import NAME\n\n\ndef use():\n    return NAME\n",
    "from-aliased": "from .mod import NAME as _n\n\n\ndef use():\n    return _n\n",
    "attr-import-time": "from . import mod\n\nVALUE = mod.NAME\n\n\ndef use():\n    return VALUE\n",
    "attr-module-alias": "import pp.mod as m\n\n\ndef use():\n    return m.NAME\n",
    "attr-dotted": "import pp.mod\n\n\ndef use():\n    return pp.mod.NAME\n",
    "in-function": "def use():\n    from pp.mod import NAME\n    return NAME\n",
    "guarded": "try:\n    from pp.mod import NAME\nexcept ImportError:\n    NAME = None\n\n\ndef use():\n    return 1\n",  # noqa: E501
    "other-name": "from pp.mod import MODERN\n\n\ndef use():\n    return MODERN\n",
}
INITS = {"plain": "", "reexports": "from .mod import NAME\n"}
CHANGES = {  # (the name, the patched module)
    "delete-constant": ("LEGACY", ORIGINAL.replace("LEGACY = 1\n", "")),
    "rename-def": ("helper", ORIGINAL.replace("def helper(", "def helper2(")),
    "rename-class": ("Old", ORIGINAL.replace("class Old:", "class New:")),
    "rename-keeping-alias": ("helper", ORIGINAL.replace("def helper(", "def helper2(") + "\nhelper = helper2\n"),
    "unchanged-name": ("LEGACY", ORIGINAL.replace("MODERN = 2\n", "MODERN = 3\n")),
}


def write(root: Path, other: str, init: str, name: str, mod: str) -> Path:
    taking = {"__init__": INITS[init].replace("NAME", name), "other": OTHERS[other].replace("NAME", name)}
    return write_package(root, {**taking, "mod": mod})


ALL_CASES = list(itertools.product(OTHERS, INITS, CHANGES))
CASES = sample(ALL_CASES)


@pytest.mark.parametrize(("other", "init", "change"), CASES, ids=["-".join(c) for c in CASES])
def test_a_name_another_module_imports_from_the_module_is_not_taken_away(
    other: str, init: str, change: str, tmp_path: Path
) -> None:
    root = tmp_path / "site"
    name, patched = CHANGES[change]
    write(root, other, init, name, ORIGINAL)
    truth, refused = judge(root, patched, "import pp.mod, pp.other; pp.other.use()")
    assert (refused is not None) == truth, (other, init, change, refused)
    if refused is not None:
        assert f"`{name}` (line " in refused.why and "no longer bound by the module" in refused.why, refused.why
        assert ("pp/other.py:" in refused.why) or ("pp/__init__.py:1" in refused.why), refused.why
        assert refused.hint == names_check.IMPORTED_ELSEWHERE_HINT
        assert names.IMPORTED_ELSEWHERE in names.PER_USE


def test_both_outcomes_are_generated() -> None:
    assert any(c[2] == "delete-constant" and c[0] == "from-absolute" for c in ALL_CASES)
    assert any(c[2] in ("rename-keeping-alias", "unchanged-name") for c in ALL_CASES)


@pytest.mark.parametrize("requires", [False, True], ids=["requires-nothing", "requires-entries"])
@pytest.mark.parametrize("other", ["from-absolute", "from-relative", "attr-module-alias"])
def test_an_importer_the_entry_itself_changes_is_read_as_the_entry_leaves_it(
    other: str, requires: bool, tmp_path: Path
) -> None:
    """A real series (omni-infer's prometheus_dp_logging.patch) removes `setup_default_loggers` from
    loggers.py and, in the same entry, the import of it from async_llm.py: the installed importer is
    not what runs, whether or not the entry requires others (names_check.unjudged is then None)."""
    root = tmp_path / "site"
    env = site_env(root)
    name, patched = CHANGES["delete-constant"]
    mod = write(root, other, "plain", name, ORIGINAL)
    before = mod.read_bytes()
    after = patched.encode()
    refused = names_check.names_refusal(before, after, str(mod), env, "pp.mod")
    assert refused is not None and "pp/other.py:" in refused.why  # the installed importer breaks: refused
    own = ("pp.mod", "pp.other")  # the entry changes both modules (names_check.own_modules)
    skip = None if requires else own  # names_check.unjudged
    assert names_check.names_refusal(before, after, str(mod), env, "pp.mod", skip, own) is None
