"""Where add_import puts its line when a later rewrite of the same entry uses the name at import
time (rewrite/ops/common/import_lines.py: imports_before_uses).

Generated: module layouts (a docstring, `from __future__`, a comment header, a coding line; no
early import, a plain one, a try/except import, a TYPE_CHECKING block; a late import after each of
the module's statements) x where the new use lands (module-level code, a class body, a function
body). For each:

- the entry without the import is refused by the names step, and its hint names an `add_import`
  rewrite; the test follows it literally (the add_import prepended) and that entry applies;
- the bytes are those of the old placement (after_imports alone) whenever the old placement
  applied, byte for byte;
- every patched module is imported and run in a subprocess of the target interpreter (here, this
  interpreter), which prints what its code computes.

The case of the finding goes through the CLI on an installed distribution: apply, status --check,
the module run, revert byte for byte.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from radpatch.errors import RefusedError
from radpatch.prove import plan
from radpatch.rewrite import runner
from radpatch.rewrite.ops.add_import import AddImport
from radpatch.rewrite.ops.common import import_lines
from radpatch.rewrite.ops.replace import Replace
from tests.lib.generated import sample
from tests.lib.rewrites import patch_of
from tests.lib.site import Site

HEADS = {
    "bare": "",
    "docstring": '"""Doc."""\n',
    "future": '"""Doc."""\nfrom __future__ import annotations\n',
    "comment": "# a header\n# of two lines\n\n",
    "coding": "# -*- coding: utf-8 -*-\n",
}
EARLY = {
    "none": "",
    "plain": "import os\n",
    "try": "try:\n    import _rp_nowhere as fast\nexcept ImportError:\n    fast = None\n",
    "typing": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import json\n",
}
BODY = ("X = 1\n", "class C:\n    Y = 2\n", "def f():\n    return 3\n")
LATE = "import sys\n"
USES = {  # where the new use lands: the rewrite, and what the module computes then
    "module": (Replace("<module>", "X = 1", "X = json.dumps(1)"), ('"1"', 2, 3)),
    "class-body": (Replace("C", "Y = 2", "Y = json.dumps(2)"), (1, '"2"', 3)),
    "function": (Replace("f", "return 3", "return json.dumps(3)"), (1, 2, '"3"')),
}
ADD = AddImport("import json")


def layouts() -> list[tuple[str, str]]:
    out = []
    for (h, head), (e, early), late in itertools.product(HEADS.items(), EARLY.items(), range(len(BODY) + 1)):
        body = list(BODY)
        body.insert(late, LATE)
        out.append((f"{h}-{e}-late{late}", head + early + "".join(body)))
    return out


def old_placement(monkeypatch: pytest.MonkeyPatch, patch: Any, before: bytes) -> bytes | None:
    """The patched bytes as they were before imports_before_uses (after_imports alone), or None
    when the proof refused them."""
    with monkeypatch.context() as m:
        m.setattr(import_lines, "imports_before_uses", lambda original, src: src)
        try:
            return plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), before).after
        except RefusedError:
            return None


def test_every_layout_applies_with_its_import_and_keeps_the_old_bytes_where_they_applied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    applied: dict[str, tuple[bytes, tuple[object, ...]]] = {}
    moved = kept = 0
    every = list(itertools.product(layouts(), USES))
    cases = sample(every)
    for (name, text), use in cases:
        rewrite, expect = USES[use]
        case = f"{name}-{use}"
        before = text.encode()
        alone = patch_of(rewrite)
        with pytest.raises(RefusedError) as info:
            plan.plan(alone, alone.rewrites, "mod", Path("mod.py"), before)
        assert "`json`" in info.value.message, (case, info.value.message)
        assert "an `add_import` rewrite before it" in (info.value.hint or ""), (case, info.value.hint)
        patch = patch_of(ADD, rewrite)  # the hint, followed literally
        try:
            after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), before).after
        except RefusedError as exc:
            pytest.fail(f"{case}: the entry the hint asks for is refused: {exc.message}")
        old = old_placement(monkeypatch, patch, before)
        if old is not None:
            assert after == old, case
            kept += 1
        else:
            moved += 1
        assert runner.backward(patch, patch.rewrites, after, "mod.py") == before, case
        assert runner.forward(patch, patch.rewrites, before, "mod.py") == after, case
        applied[case] = (after, expect)
    # both kinds were generated (the late import below a use, and the rest), seen wherever the run takes at
    # least half the family (every case, or the fast tier's rest run); a slice of it may hold one kind
    assert (moved and kept) or len(cases) * 2 < len(every)
    for i, (after, _) in enumerate(applied.values()):
        (tmp_path / f"m{i}.py").write_bytes(after)
    script = (
        "import importlib, json, sys\n"
        "out = []\n"
        f"for i in range({len(applied)}):\n"
        "    m = importlib.import_module(f'm{i}')\n"
        "    out.append([repr(m.X) if isinstance(m.X, str) else m.X, repr(m.C.Y) if isinstance(m.C.Y, str) else m.C.Y,"
        " repr(m.f()) if isinstance(m.f(), str) else m.f()])\n"
        "print(json.dumps(out))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    for (case, (_, expect)), values in zip(applied.items(), got):
        assert tuple(values) == tuple(v.replace('"', "'") if isinstance(v, str) else v for v in expect), case


def test_the_import_goes_after_the_last_import_above_the_use() -> None:
    before = b"import os\nX = 1\nimport sys\n"
    patch = patch_of(ADD, USES["module"][0])
    after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), before).after
    assert after == b"import os\nimport json  # radpatch: added import\nX = json.dumps(1)\nimport sys\n"


def test_two_imports_each_go_above_their_own_use() -> None:
    before = b'"""Doc."""\nA = 1\nimport os\nB = 2\nimport sys\n'
    patch = patch_of(
        AddImport("import json"),
        AddImport("import math"),
        Replace("<module>", "A = 1", "A = math.floor(1.5)"),
        Replace("<module>", "B = 2", "B = json.dumps(2)"),
    )
    after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), before).after
    assert after == (
        b'"""Doc."""\nimport math  # radpatch: added import\nA = math.floor(1.5)\nimport os\n'
        b"import json  # radpatch: added import\nB = json.dumps(2)\nimport sys\n"
    )
    assert runner.backward(patch, patch.rewrites, after, "mod.py") == before


CORE = "import os\nX = 1\nimport sys\n"
ENTRY = textwrap.dedent("""\
    summary: import above its use
    description: changes rpimp.core
    distribution: rpimp
    supported: ">=1.0,<2"
    modules:
      core: rpimp.core
    rewrites:
      - {id: imp, file: core, add_import: {import: import json}}
      - {id: use, file: core, replace: {scope: "<module>", find: X = 1, with: X = json.dumps(1)}}
    """)


def test_the_finding_through_the_cli(site: Site, write_registry: Any, radpatch: Any) -> None:
    site.install("rpimp", "1.0", {"rpimp/__init__.py": "", "rpimp/core.py": CORE})
    reg = write_registry("imp", ENTRY)
    path = site.root / "rpimp" / "core.py"
    r = radpatch("--registry", str(reg), "apply", "imp")
    assert r.code == 0, r.err
    assert path.read_text() == "import os\nimport json  # radpatch: added import\nX = json.dumps(1)\nimport sys\n"
    assert radpatch("--registry", str(reg), "status", "--check").code == 0
    run = subprocess.run(
        [sys.executable, "-c", "import rpimp.core as m; print(m.X)"], cwd=site.root, capture_output=True, text=True
    )
    assert run.stdout.strip() == "1", run.stderr
    assert radpatch("--registry", str(reg), "revert", "imp").code == 0
    assert path.read_text() == CORE
