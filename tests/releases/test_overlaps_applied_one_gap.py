"""A one-gap pair (an `add_import` and an insertion after the last import, prove.overlaps.gaps) applied in
two build stages, each with its own `--registry` (att23c N1): the entry applied first is known only
from its record, and the second is judged with it as a one-stage apply of both is (refused, naming
both), in both stage orders; an insertion that stays next to its own anchor (`limit = 3` before the
statement after the imports) still applies across stages, as it does in one stage. Each verdict is checked
against the code the real engine writes when the two are applied in one run, in each order."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.lib.site import Site

CORE = "import sys\n\n\ndef where():\n    return sys.platform\n"
HEAD = 'summary: t\ndescription: t\ndistribution: toypkg\nsupported: ">=1.0"\nmodules:\n  m: toypkg.core\nrewrites:\n'
IMPORT = "  - add_import:\n      import: import json\n"
AFTER = '  - insert_after: {scope: <module>, find: "import sys", code: "json = None"}\n'
# the same place, binding no name the import binds: only the gap (the file's texts) shows the overlap
AFTER_Z = '  - insert_after: {scope: <module>, find: "import sys", code: "z = None"}\n'
BEFORE = '  - insert_before: {scope: <module>, find: "def where():\\n    return sys.platform", code: "limit = 3"}\n'


def _json_in(site: Site) -> str:
    """What `toypkg.core.json` (and its `limit`) is when the installed module is imported (in a
    fresh interpreter)."""
    code = "import toypkg.core as c; print(getattr(c.json, '__name__', c.json), getattr(c, 'limit', '-'))"
    env = {"PYTHONPATH": str(site.root), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout


def _registries(write_registry: Any, insertion: str) -> tuple[Path, Path]:
    return write_registry("p", HEAD + insertion, dirname="r1"), write_registry("q", HEAD + IMPORT, dirname="r2")


def _one_stage_orders_agree(site: Site, radpatch: Any, write_registry: Any, insertion: str) -> bool:
    """Apply the two in one run in each order (`requires:`), reading the module each time."""
    seen = []
    for first, then in (("p", "q"), ("q", "p")):
        site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": CORE})
        body = {"p": insertion, "q": IMPORT}
        reg = write_registry(first, HEAD + body[first], dirname=f"one-{first}")
        write_registry(then, f"requires: [{first}]\n" + HEAD + body[then], dirname=f"one-{first}")
        r = radpatch("--registry", str(reg), "apply", first, then)
        seen.append(_json_in(site) if r.code == 0 else f"refused: {r.err}")
        for d in [*site.root.glob("toypkg-*.dist-info"), site.root / ".radpatch"]:
            shutil.rmtree(d, ignore_errors=True)
    return seen[0] == seen[1]


@pytest.mark.parametrize("first", ["p", "q"])
def test_a_one_gap_pair_across_two_stages_is_refused_naming_both(
    site: Site, radpatch: Any, write_registry: Any, first: str
) -> None:
    assert not _one_stage_orders_agree(site, radpatch, write_registry, AFTER)  # the order decides the code
    one, two = _registries(write_registry, AFTER)
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": CORE})
    stage = {"p": one, "q": two}
    then = "q" if first == "p" else "p"
    assert radpatch("--registry", str(stage[first]), "apply", first).code == 0
    after_first = (site.root / "toypkg/core.py").read_bytes()
    r = radpatch("--registry", str(stage[then]), "apply", then)
    assert r.code == 1, r.out + r.err
    assert f"{then} and {first} overlap" in r.err, r.err
    # `json = None` binds the name the import adds: the records' touches say so before the file's gap does
    assert "insert at the same place" in r.err or "bind the same module-level name `json`" in r.err, r.err
    assert "drifted" not in r.err and "radpatch restore" not in r.err
    assert f"pass {first}'s registry with --registry as well" in r.err
    assert (site.root / "toypkg/core.py").read_bytes() == after_first
    status = radpatch("--registry", str(stage[first]), "--registry", str(stage[then]), "apply", then)
    assert status.code == 1 and "overlap" in status.err  # with both registries: the one-stage verdict


@pytest.mark.parametrize("first", ["p", "q"])
def test_an_insertion_before_the_next_statement_applies_across_stages(
    site: Site, radpatch: Any, write_registry: Any, first: str
) -> None:
    assert _one_stage_orders_agree(site, radpatch, write_registry, BEFORE)  # either order: the same code
    one, two = _registries(write_registry, BEFORE)
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": CORE})
    stage = {"p": one, "q": two}
    then = "q" if first == "p" else "p"
    assert radpatch("--registry", str(stage[first]), "apply", first).code == 0
    r = radpatch("--registry", str(stage[then]), "apply", then)
    assert r.code == 0, r.out + r.err
    assert _json_in(site).split() == ["json", "3"]


def test_a_record_whose_texts_are_gone_cannot_be_checked(site: Site, radpatch: Any, write_registry: Any) -> None:
    one, two = _registries(write_registry, AFTER_Z)
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": CORE})
    assert radpatch("--registry", str(two), "apply", "q").code == 0
    for kept in (site.root / ".radpatch/originals").iterdir():
        kept.unlink()
    data = json.loads((site.root / ".radpatch/record.json").read_text())
    assert "q" in data["patches"]
    r = radpatch("--registry", str(one), "apply", "p")
    assert r.code == 1, r.out + r.err
    assert "cannot check" in r.err and "pass q's registry with --registry as well" in r.err
