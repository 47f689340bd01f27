"""A `vouched_exec:` item's `binds`: the statements binding the names an exec passes, in the scope Python
reads them from (issue 23, att52 #3b; radpatch.releases.exec_sites).

Generated: where the call stands and where the namespace it passes is bound (module level, a def's own
name over the module's, a def reading the module's, `global` in another def or its own, a closure,
`nonlocal` in a sibling def, a class body between, the class body itself, a parameter's default, a `for`
target, `:=`, a default evaluated at module level, a lambda, a comprehension) x the runner (`exec`,
`eval`). Each binding gives the namespace its own tag. The oracle: Python runs the module and the code
the call runs says which tag its namespace has. That binding must be among the site's `binds`: a change
to it invalidates the vouch."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from radpatch.releases import exec_sites
from tests.lib.generated import sample

SHAPES = {
    "module level": 'ns = {"tag": "m1"}\nRUN\n\n\ndef main():\n    pass\n',
    "a def's own": 'ns = {"tag": "m1"}\n\n\ndef main():\n    ns = {"tag": "f1"}\n    RUN\n',
    "a def reading the module's": 'ns = {"tag": "m1"}\n\n\ndef main():\n    RUN\n',
    "global in another def": (
        'ns = {"tag": "m1"}\n\n\ndef setup():\n    global ns\n    ns = {"tag": "g1"}\n\n\n'
        "def main():\n    setup()\n    RUN\n"
    ),
    "global in its def": 'ns = {"tag": "m1"}\n\n\ndef main():\n    global ns\n    ns = {"tag": "g2"}\n    RUN\n',
    "a closure": 'def main():\n    ns = {"tag": "o1"}\n\n    def inner():\n        RUN\n\n    inner()\n',
    "nonlocal in a sibling def": (
        'def main():\n    ns = {"tag": "o1"}\n\n    def setup():\n        nonlocal ns\n        ns = {"tag": "n1"}\n\n'
        "    setup()\n\n    def inner():\n        RUN\n\n    inner()\n"
    ),
    "a class body between": (
        'ns = {"tag": "m1"}\n\n\nclass C:\n    ns = {"tag": "c1"}\n\n    def run(self):\n        RUN\n\n\n'
        "def main():\n    C().run()\n"
    ),
    "the class body": 'ns = {"tag": "m1"}\n\n\nclass C:\n    ns = {"tag": "c1"}\n    RUN\n\n\ndef main():\n    pass\n',
    "a parameter's default": 'def run(ns={"tag": "p1"}):\n    RUN\n\n\ndef main():\n    run()\n',
    "a for target": 'def main():\n    for ns in [{"tag": "l1"}]:\n        RUN\n',
    "a walrus": 'def main():\n    if ns := {"tag": "x1"}:\n        RUN\n',
    "a default at module level": 'ns = {"tag": "m1"}\n\n\ndef main(x=RUNX):\n    pass\n',
    "a lambda": 'ns = {"tag": "m1"}\n\n\ndef main():\n    ns = {"tag": "f1"}\n    (lambda: RUNX)()\n',
    "a comprehension": 'def main():\n    ns = {"tag": "f1"}\n    [RUNX for _ in range(1)]\n',
}
HEAD = "CODE = \"import builtins; builtins.SEEN = tag\"\nEXPR = \"__import__('builtins').__setattr__('SEEN', tag)\"\n\n"
RUNNERS = {"exec": "exec(CODE, ns)", "eval": "eval(EXPR, ns)"}  # code that is no literal: radpatch cannot read it
CASES = sample([(s, r) for s in SHAPES for r in RUNNERS])


def _seen(tmp: Path, source: str) -> str:
    """The tag of the namespace the call ran its code in, as Python runs the module."""
    (tmp / "mod.py").write_text(source)
    code = f"import sys, builtins; sys.path.insert(0, {str(tmp)!r}); import mod; mod.main(); print(builtins.SEEN)"
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.mark.parametrize(("shape", "runner"), CASES, ids=["-".join(c) for c in CASES])
def test_binds_hold_the_binding_python_reads(tmp_path: Path, shape: str, runner: str) -> None:
    call = RUNNERS[runner]
    source = HEAD + SHAPES[shape].replace("RUNX", call).replace("RUN", call)
    tag = _seen(tmp_path, source)
    (site,) = exec_sites.sites("mod.py", ast.parse(source))
    assert any(f"'tag': '{tag}'" in b for b in site.binds), (tag, site, textwrap.indent(source, "  "))
