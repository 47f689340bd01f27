"""A new import-time use of a name whose only binding that runs on the target is its fallback
constant is refused (att21 F5: `tomllib = None` on a 3.10 target, then a new `CONF =
tomllib.loads(...)`, was applied and the module raised AttributeError at import).

Generated: how the module binds the name (a version test's two branches in both orders and
spellings, a try/except ImportError, a module every target has) times the new use (an attribute
call at module level, in a class body, a call of the name, a subscript; controls: inside a def,
under `if X is not None:`, behind `X and`) times the target's version. The oracle runs each
patched module with `sys` and the import of `tomllib` as the target has them: the proof refuses
exactly the modules that fail at import.
"""

from __future__ import annotations

import builtins
import collections
import itertools
import types
from typing import Any

import pytest

from radpatch.prove import names
from radpatch.prove.names.fallback_only import fallback_uses
from tests.lib.generated import sample

BINDINGS = {
    "version-new-first": "if sys.version_info >= (3, 11):\n    import tomllib as X\nelse:\n    X = None\n",
    "version-old-first": "if sys.version_info < (3, 11):\n    X = None\nelse:\n    import tomllib as X\n",
    "version-minor": "if sys.version_info.minor >= 11:\n    from tomllib import loads as X\nelse:\n    X = None\n",
    "try-import": "try:\n    import tomllib as X\nexcept ImportError:\n    X = None\n",
    "try-from": "try:\n    from tomllib import loads as X\nexcept ImportError:\n    X = None\n",
    "every-target": "try:\n    import json as X\nexcept ImportError:\n    X = None\n",
}
USES = {
    "attribute-call": "CONF = X.loads('a = 1')\n",
    "class-body": "class C:\n    conf = X.loads('a = 1')\n",
    "call": "CONF = X('a = 1')\n",
    "subscript": "CONF = X['a']\n",
    "in-def": "def g():\n    return X.loads('a = 1')\n",
    "guarded": "if X is not None:\n    CONF = X.loads('a = 1')\n",
    "and": "CONF = X and X.loads('a = 1')\n",
}
VERSIONS = ((3, 10), (3, 12))


def module(binding: str, use: str | None) -> str:
    return "import sys\n" + BINDINGS[binding] + "\nCONF = {}\n" + (USES[use] if use else "")


def fails(source: str, version: tuple[int, int]) -> bool:
    info = collections.namedtuple("version_info", "major minor micro releaselevel serial")(*version, 0, "final", 0)
    fake = types.SimpleNamespace(version_info=info)
    real = builtins.__import__

    def fake_import(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "sys":
            return fake
        if name == "tomllib" and version < (3, 11):
            raise ModuleNotFoundError("No module named 'tomllib'")
        return real(name, *args, **kwargs)

    namespace: dict[str, Any] = {"__name__": "generated", "__builtins__": {**vars(builtins), "__import__": fake_import}}
    try:
        exec(compile(source, "generated.py", "exec"), namespace)
        if callable(namespace.get("g")):  # a use in a function fails when it is called (att21 pass 4)
            namespace["g"]()
    except (AttributeError, TypeError):
        return namespace.get("X", ...) is None  # the fallback's failure, not the real module's own
    except Exception:  # noqa: BLE001 - a real module's own error (json.loads of toml, json['a']): it ran
        return False
    return False


ALL_CASES = list(itertools.product(BINDINGS, USES, VERSIONS))
CASES = sample(ALL_CASES)


@pytest.mark.parametrize(("binding", "use", "version"), CASES, ids=[f"{b}-{u}-{v[0]}.{v[1]}" for b, u, v in CASES])
def test_a_new_use_of_a_name_that_is_only_its_fallback_on_the_target_is_refused(
    binding: str, use: str, version: tuple[int, int]
) -> None:
    before, after = module(binding, None), module(binding, use)
    assert not fails(before, version)
    truth = fails(after, version)

    def present(name: str) -> bool:
        return not (name == "tomllib" and version < (3, 11))

    found = fallback_uses(before.encode(), after.encode(), version, present)
    assert bool(found) == truth, (after, version, found)
    if found:
        p = found[0]
        assert p.kind == names.FALLBACK_ONLY and p.name == "X" and p.scope == ("g" if use == "in-def" else "<module>")
        assert f"only its fallback constant on Python {version[0]}.{version[1]}" in p.describe(), p.describe()
        lines = after.splitlines()
        assert p.line == next(i + 1 for i, x in enumerate(lines) if i > lines.index("CONF = {}") and "X" in x)


def test_an_old_use_is_not_the_patch_s_problem() -> None:
    """The original already has the use: the patch did not add it (the module already fails, or the
    target does not run it)."""
    source = module("try-import", "attribute-call")
    assert fallback_uses(source.encode(), (source + "Y = 1\n").encode(), (3, 10), lambda n: n != "tomllib") == []


def test_both_outcomes_are_generated() -> None:
    assert any(b.startswith("version") and u == "attribute-call" and v == (3, 10) for b, u, v in ALL_CASES)
    assert any(u in ("guarded", "in-def") for _, u, _ in ALL_CASES)
