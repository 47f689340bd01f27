"""fill_module: code for a module that holds no statement (an empty `__init__.py`, one of comments
only), which no other operation can anchor on.

Literal sources run through plan.plan as apply does (the proof, the structural inverse, byte for
byte); apply, status and revert through the CLI on an installed distribution. Its import from a
diff, against GNU patch on pip-installed wheels: tests/importing/test_module_emptied_or_empty.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from radpatch.registry.loader import load_patch
from radpatch.rewrite.ops import OPERATIONS
from radpatch.rewrite.ops.fill_module import FillModule
from tests.lib.registry import entry_head, load_problems, write_entry
from tests.lib.rewrites import check, refuse
from tests.lib.site import Site

CODE = "from .core import X\n\n\ndef f():\n    return X\n"


def test_found_by_the_operations_table() -> None:
    assert OPERATIONS["fill_module"] is FillModule


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("", CODE),
        ("\n\n", "\n\n" + CODE),
        ("# SPDX-License-Identifier: Apache-2.0\n", "# SPDX-License-Identifier: Apache-2.0\n" + CODE),
        ("# no newline at the end", "# no newline at the end\n" + CODE),
    ],
    ids=["empty", "blank-lines", "comments", "no-final-newline"],
)
def test_the_code_goes_after_what_the_module_holds_and_comes_off_byte_for_byte(before: str, after: str) -> None:
    check(before, FillModule(CODE), after, exact=not before.endswith("end"))


def test_the_codes_own_leading_comment_comes_off_with_it() -> None:
    code = "# re-exported for the plugin\nfrom .core import X\n"
    check("# licence\n", FillModule(code), "# licence\n" + code)


def test_a_module_with_a_statement_is_refused_with_the_operations_that_anchor_on_it() -> None:
    err = refuse('"""Docs."""\n', FillModule(CODE))
    assert "has a statement (line 1)" in err.message
    assert "insert_before/insert_after" in err.hint


def test_loaded_from_yaml_as_a_registry_writes_it(tmp_path: Path) -> None:
    head = entry_head("fill", "toypkg", {"pkg": "toypkg"})
    entry = write_entry(
        tmp_path,
        "fill",
        head
        + "  - id: fill\n    fill_module:\n      code: |\n"
        + "".join(f"        {ln}\n" if ln else "\n" for ln in CODE.splitlines()),
    )
    (rewrite,) = load_patch(entry).rewrites
    assert rewrite.op == FillModule(CODE)


def _site_with_empty_init(site: Site) -> None:
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": "X = 1\n"})


def test_apply_status_and_revert_on_an_installed_empty_init(site: Site, write_registry, radpatch) -> None:  # type: ignore[no-untyped-def]
    _site_with_empty_init(site)
    body = "".join(f"        {ln}\n" if ln else "\n" for ln in CODE.splitlines())
    reg = write_registry(
        "fill",
        entry_head("fill", "toypkg", {"pkg": "toypkg"})
        + f"""\
  - id: fill
    fill_module:
      code: |
{body}""",
    )
    assert radpatch("--registry", str(reg), "apply", "fill").code == 0
    assert (site.root / "toypkg/__init__.py").read_text() == CODE
    status = radpatch("--registry", str(reg), "status", "--check", "fill")
    assert status.code == 0, status.out + status.err
    r = radpatch("--registry", str(reg), "revert", "fill")
    assert r.code == 0, r.err
    assert (site.root / "toypkg/__init__.py").read_bytes() == b""


def _entry(name: str, rewrite: str, requires: str = "") -> str:
    head = entry_head(name, "toypkg", {"pkg": "toypkg"})
    return head.replace("rewrites:\n", f"requires: [{requires}]\nrewrites:\n" if requires else "rewrites:\n") + rewrite


FILL = "  - id: fill\n    fill_module:\n      code: |\n        from .core import X\n"
ON_TOP = "  - id: more\n    insert_after: {scope: <module>, find: from .core import X, code: Y = X + 1}\n"
OTHER = "  - id: other\n    fill_module: {code: Z = 3}\n"


def test_an_entry_stacked_on_the_filled_code_needs_it_and_both_come_off(site: Site, write_registry, radpatch) -> None:  # type: ignore[no-untyped-def]
    _site_with_empty_init(site)
    write_registry("fill", _entry("fill", FILL))
    reg = write_registry("on_top", _entry("on_top", ON_TOP, requires="fill"))
    assert radpatch("--registry", str(reg), "apply", "fill", "on_top").code == 0
    assert (site.root / "toypkg/__init__.py").read_text() == "from .core import X\nY = X + 1\n"
    alone = radpatch("--registry", str(reg), "revert", "fill")
    assert alone.code != 0 and "on_top is applied and requires it" in alone.err, alone.err
    assert radpatch("--registry", str(reg), "revert", "on_top", "fill").code == 0
    assert (site.root / "toypkg/__init__.py").read_bytes() == b""


def test_two_entries_filling_one_module_overlap_and_neither_is_written(site: Site, write_registry, radpatch) -> None:  # type: ignore[no-untyped-def]
    _site_with_empty_init(site)
    write_registry("fill", _entry("fill", FILL))
    reg = write_registry("other", _entry("other", OTHER))
    r = radpatch("--registry", str(reg), "apply", "fill", "other")
    assert r.code != 0 and "fill and other overlap" in r.err and "the same statements in <module>" in r.err, r.err
    assert (site.root / "toypkg/__init__.py").read_bytes() == b""


IMPORT = "  - id: imp\n    add_import: {import: import os}\n"


@pytest.mark.parametrize("requires", ["fill", ""], ids=["requires", "no-requires"])
def test_an_import_added_to_the_filled_module_builds_on_it(site: Site, write_registry, radpatch, requires: str) -> None:  # type: ignore[no-untyped-def]
    """att64 F1: add_import on top of a fill was refused ("imp undoes fill's change ... the module has a
    statement"), with `requires:` too: fill, proven again under imp's code, found its module holding a
    statement. Its code is where fill writes (Occupied): imp builds on fill, which is said, not refused."""
    _site_with_empty_init(site)
    write_registry("fill", _entry("fill", FILL))
    reg = write_registry("imp", _entry("imp", IMPORT, requires=requires))
    r = radpatch("--registry", str(reg), "apply", "fill", "imp")
    assert r.code == 0, r.err
    assert "imp: builds on fill's code in toypkg/__init__.py" in r.out + r.err
    assert ("as its `requires:` says" if requires else "declare `requires: [fill]` on imp") in r.out + r.err
    code = (site.root / "toypkg/__init__.py").read_text()
    assert code.startswith("from .core import X\n") and "import os  # radpatch: added import" in code, code
    assert radpatch("--registry", str(reg), "revert", "imp", "fill").code == 0
    assert (site.root / "toypkg/__init__.py").read_bytes() == b""


def test_blank_lines_the_code_opens_with_stay_between_the_header_and_it() -> None:
    """att64 F2: vLLM's empty modules hold a licence header; the code goes one blank line under it."""
    header = "# SPDX-License-Identifier: Apache-2.0\n"
    check(header, FillModule("\nfrom .core import X\n"), header + "\nfrom .core import X\n")


def test_an_empty_code_is_refused_saying_what_to_write(tmp_path: Path) -> None:
    """att64 F3: it was told to write 'the Python code to match', and to use `delete`."""
    entry = write_entry(tmp_path, "e", entry_head("e", "toypkg", {"pkg": "toypkg"}) + '  - fill_module: {code: ""}\n')
    (problem,) = load_problems(entry)
    assert "fill_module.code: is empty; write the Python code this rewrite adds" in problem, problem
