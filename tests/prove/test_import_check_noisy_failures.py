"""`apply --import-check` when the pristine module already fails to import with a text that is
not the same from one process to the next (issue 21, att21b F2; prove/import_failures.py).

A device error naming an object (`<_Dev object at 0x7f...>`: the address moves per process) or a
set of strings (its order follows the per-process hash seed) is the same failure in the patched
and the pristine import: a patch that changes a function the import never runs is inconclusive,
and applied, not refused. A patch that changes what the raising line prints (a constant it reads)
is refused, said to fail at the same line, differently; one that adds a line raising above it is
refused, the pristine module said to fail elsewhere. Neither refusal says the unpatched module
imports: it does not.

Generated: each noisy failure times each patch; every case imports the module for real (the
radpatch interpreter, in a subprocess) through the CLI, and each case is first checked to fail
pristine as it says, in a fresh interpreter.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.registry import entry_head
from tests.lib.site import Site

HEAD = "N = 1\n\n\ndef helper():\n    return 3\n\n\nclass _Dev:\n    pass\n\n\n"
NOISES = {  # the pristine module's own failure, its text varying per process; {N} in it reads the constant
    "object-address": "_dev = _Dev()\nraise RuntimeError(f'no device for {_dev!r} (N={N})')\n",
    "set-of-strings": (
        "_B = {'cuda', 'rocm', 'tpu', 'xpu', 'hpu', 'neuron', 'cpu', 'mps'}\n"
        "raise RuntimeError(f'no backend among {_B} (N={N})')\n"
    ),
    "frozenset-in-dict": "raise KeyError({'n': N, 'want': frozenset({'a1', 'b2', 'c3', 'd4', 'e5', 'f6'})})\n",
    "set-of-objects": "raise ValueError(f'{N}: none of {set([_Dev(), _Dev(), _Dev()])} fits')\n",
}
PATCHES = {  # (find, with, what the check says: None inconclusive, else the refusal's words)
    "function-never-run": ("return 3", "return 30", None),
    "constant-the-raise-reads": ("N = 1", "N = 2", "the unpatched module fails at the same line, differently ("),
    "new-raise-above": ("N = 1", "N = 1\nZ = 1 / 0", "a line the patch added; the unpatched module fails elsewhere ("),
}
CASES = sample(itertools.product(NOISES, PATCHES))


@pytest.mark.parametrize(("noise", "patch"), CASES, ids=["-".join(c) for c in CASES])
def test_a_pristine_failure_whose_text_varies_per_process_is_the_same_failure(
    site: Site, write_registry: Any, radpatch: Any, noise: str, patch: str
) -> None:
    text = HEAD + NOISES[noise]
    site.install("icnz", "1.0", {"icnz/__init__.py": "", "icnz/core.py": text})
    core = site.root / "icnz" / "core.py"
    code = f"import sys; sys.path.insert(0, {str(site.root)!r}); import icnz.core"
    pristine = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True)
    assert pristine.returncode == 1 and NOISES[noise].split("raise ")[1][:5] in pristine.stderr, pristine.stderr
    find, with_, says = PATCHES[patch]
    spec = f"{{scope: <module>, find: {json.dumps(find)}, with: {json.dumps(with_)}}}"
    rewrite = f"  - id: r\n    file: core\n    replace: {spec}\n"
    if patch == "function-never-run":
        rewrite = rewrite.replace("<module>", "helper")
    reg = write_registry("nz", entry_head("noisy failure", "icnz", {"core": "icnz.core"}) + rewrite)

    r = radpatch("--registry", str(reg), "apply", "--import-check", "nz")

    if says is None:
        assert r.code == 0, r
        assert "nz: import check inconclusive for icnz.core: the unpatched module does not import either (" in r.out
        assert core.read_bytes() == text.replace(find, with_).encode()
    else:
        assert r.code == 1, r
        first = r.err.splitlines()[0]
        assert "nz: import check: icnz.core does not import once patched: " in first, r.err
        assert says in first, first
        assert "it imports unpatched" not in first, first
        assert core.read_bytes() == text.encode()  # nothing written


def test_a_pristine_import_and_a_patched_failure_still_say_it_imports_unpatched(
    site: Site, write_registry: Any, radpatch: Any
) -> None:
    """The control: the pristine module imports, the patch makes it raise: the refusal says so."""
    site.install("icnz", "1.0", {"icnz/__init__.py": "", "icnz/core.py": HEAD})
    rewrite = textwrap.dedent("""\
      - id: r
        file: core
        replace: {scope: <module>, find: "N = 1", with: "N = 1 / 0"}
    """)
    reg = write_registry("nz", entry_head("noisy failure", "icnz", {"core": "icnz.core"}) + rewrite)

    r = radpatch("--registry", str(reg), "apply", "--import-check", "nz")

    assert r.code == 1, r
    assert "ZeroDivisionError: division by zero, raised at icnz.core line 1; it imports unpatched (" in r.err, r.err
