"""A new use, in a function, of a name whose only binding that runs on the target is its fallback
constant fails when the function is called (att21 pass 4): `if TYPE_CHECKING: import json as X` /
`else: X = None`, or `try: import absent as X` / `except ImportError: X = None` on a target without
it, and a patch that makes `f` return `X.dumps(1)`: applied, `status --check` green, AttributeError at
the first call. The import-time case is tests/prove/test_fallback_only.py.

Generated: fallback shapes (a missing module in a try, a present one, `if TYPE_CHECKING:` and its
aliases and negation, a version test) times where the use sits (a function, a method, a nested
function) times how it is guarded (not at all, `if X is not None:`, an early return, a local binding,
a `global X` another function binds). Each patched module is imported and its function called in a
subprocess of this interpreter: the proof must refuse exactly those that fail."""

from __future__ import annotations

import itertools
import sys
import sysconfig
from pathlib import Path

import pytest

from radpatch.install.environment import PythonEnv
from radpatch.prove import names_check
from tests.lib.fresh_runs import fresh_run
from tests.lib.generated import sample

SHAPES = {  # how the module binds X; whether X is only its fallback constant (None) at run time
    "try-missing": ("try:\n    import _rp_absent_module as X\nexcept ImportError:\n    X = None\n", True),
    "try-present": ("try:\n    import json as X\nexcept ImportError:\n    X = None\n", False),
    "type-checking": (
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import json as X\nelse:\n    X = None\n",
        True,
    ),
    "type-checking-alias": (
        "import typing\n\nTC = typing.TYPE_CHECKING\nif TC:\n    import json as X\nelse:\n    X = None\n",
        True,
    ),
    "not-type-checking": (
        "from typing import TYPE_CHECKING\n\nif not TYPE_CHECKING:\n    import json as X\nelse:\n    X = None\n",
        False,
    ),
    "version-test": (
        "import sys\n\nif sys.version_info >= (3, 99):\n    import json as X\nelse:\n    X = None\n",
        True,
    ),
}

GUARDS = {  # the new body ({I}: its indentation); whether it still fails on a fallback-only X
    "none": ("{I}return X.dumps(1)\n", True),
    "if-not-none": ("{I}if X is not None:\n{I}    return X.dumps(1)\n{I}return 0\n", False),
    "early-return": ("{I}if X is None:\n{I}    return 0\n{I}return X.dumps(1)\n", False),
    "local": ("{I}X = __import__('json')\n{I}return X.dumps(1)\n", False),
    "global-elsewhere": ("{I}return X.dumps(1)\n", False),  # load() binds X first
}

PLACES = {  # the function holding the use, and how the check calls it
    "function": ("def f():\n{body}", "m.f()"),
    "method": ("class C:\n    def m(self):\n{body}", "m.C().m()"),
    "nested": ("def f():\n    def inner():\n{body}    return inner()\n", "m.f()"),
}
ORIGINAL_BODY = "{I}return 0\n"


def source(shape: str, guard: str | None, place: str) -> str:
    head = SHAPES[shape][0]
    if guard == "global-elsewhere":
        head += "\n\ndef load():\n    global X\n    import json as X\n"
    template = PLACES[place][0]
    indent = "        " if place != "function" else "    "
    body = (GUARDS[guard][0] if guard else ORIGINAL_BODY).format(I=indent)
    return head + "\n\n" + template.format(body=body)


def fails(root: Path, place: str) -> bool:
    code = (
        f"import sys; sys.path.insert(0, {str(root)!r}); import fo.mod as m\n"
        f"if hasattr(m, 'load'): m.load()\n{PLACES[place][1]}"
    )
    done = fresh_run(sys.executable, code, (), ("-I", "-B"))
    assert done.returncode == 0 or "AttributeError" in done.stderr, done.stderr
    return done.returncode != 0


# a generated family: every case unsampled, a sample turning with the interpreter (tests/lib/generated.py)
CASES = sample(itertools.product(SHAPES, GUARDS, PLACES))


@pytest.mark.parametrize(("shape", "guard", "place"), CASES, ids=["-".join(c) for c in CASES])
def test_a_new_call_time_use_of_a_fallback_only_name_is_refused(
    shape: str, guard: str, place: str, tmp_path: Path
) -> None:
    root = tmp_path / "site"
    (root / "fo").mkdir(parents=True)
    (root / "fo" / "__init__.py").write_text("")
    mod = root / "fo" / "mod.py"
    env = PythonEnv(sys.executable, (root, Path(sysconfig.get_paths()["stdlib"])), root, sys.version_info[:2])
    mod.write_text(source(shape, None, place))
    before = mod.read_bytes()
    assert not fails(root, place)
    mod.write_text(source(shape, guard, place))
    after = mod.read_bytes()
    truth = fails(root, place)
    assert truth == (SHAPES[shape][1] and GUARDS[guard][1]), after.decode()
    mod.write_bytes(before)
    refused = names_check.names_refusal(before, after, str(mod), env, "fo.mod")
    assert (refused is not None) == truth, (after.decode(), refused)
    if refused is not None:
        assert "runs when called, where `X` is only its fallback constant" in refused.why, refused.why
