"""A package `pp` whose `__init__` imports its module `mod` in one of several ways (INITS: the
`__init__`'s text and other files), and `fails`: whether importing it really fails, run by this
interpreter in a subprocess (the proofs of partially initialised packages are held to it)."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.lib.fresh_runs import fresh_run

INITS = {
    "from-module": ("from .mod import VALUE\nEXTRA = 5\n", {}),
    "import-module": ("from . import mod\nEXTRA = 5\n", {}),
    "absolute": ("import pp.mod\nEXTRA = 5\n", {}),
    "through-sibling": ("from .other import O\nEXTRA = 5\n", {"other.py": "from pp.mod import VALUE\nO = VALUE\n"}),
    "in-try": ("try:\n    from .mod import VALUE\nexcept ImportError:\n    pass\nEXTRA = 5\n", {}),
    "bound-before": ("EXTRA = 5\nfrom .mod import VALUE\n", {}),
    "no-import": ("EXTRA = 5\n", {}),
    "import-in-function": ("def load():\n    from .mod import VALUE\n\n\nEXTRA = 5\n", {}),
    # star imports: the one that imports mod binds its names only after mod has run (att21c F6)
    "star-module": ("from .mod import *\nEXTRA = 5\n", {}),
    "star-absolute": ("from pp.mod import *\nEXTRA = 5\n", {}),
    "star-after": ("from .mod import VALUE\nfrom .other import *\nEXTRA = 5\n", {"other.py": "O = 1\n"}),
    "star-bound-before": ("EXTRA = 5\nfrom .mod import *\n", {}),
}


def fails(root: Path) -> bool:
    """Whether `import pp.mod` fails, or leaves pp without a name its __init__ takes from it at import
    time (an `except ImportError` in the __init__ swallowed the failure)."""
    init = (root / "pp" / "__init__.py").read_text()
    check = "; pp.VALUE" if init.startswith(("from .mod import VALUE", "try:", "EXTRA = 5\nfrom")) else ""
    code = f"import sys; sys.path.insert(0, {str(root)!r}); import pp.mod, pp{check}"
    done = fresh_run(sys.executable, code, (), ("-I", "-B"))
    assert done.returncode == 0 or "ImportError" in done.stderr or "AttributeError" in done.stderr, done.stderr
    return done.returncode != 0


ORIGINAL = "VALUE = 1\n\n\ndef f():\n    return VALUE\n"


def build(root: Path, init: str, mod: str) -> Path:
    """The package `pp` under `root`: the `__init__` INITS[init] names (and its other files), and
    `pp/mod.py` holding `mod`; returns mod.py's path."""
    text, extra = INITS[init]
    pkg = root / "pp"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text(text)
    for name, body in extra.items():
        (pkg / name).write_text(body)
    (pkg / "mod.py").write_text(mod)
    return pkg / "mod.py"
