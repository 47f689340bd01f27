"""The operations are found in radpatch/rewrite/ops/, one module each, and loading a registry
does not import libcst (status runs in every image build; libcst costs a quarter of a second)."""

from __future__ import annotations

import dataclasses
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import radpatch.rewrite.ops as ops_package
from radpatch.registry.model import Operation
from radpatch.rewrite.ops import OPERATIONS
from tests.lib.generated import seeds

ROOT = Path(__file__).resolve().parents[3]


def test_every_module_of_the_ops_package_but_common_declares_an_operation() -> None:
    modules = {m.name for m in pkgutil.iter_modules(ops_package.__path__)} - {"common"}
    declaring = {spec.__module__.rsplit(".", 1)[1] for spec in OPERATIONS.values()}
    assert declaring == modules


def test_each_yaml_key_loads_into_the_spec_that_declares_it() -> None:
    for key, spec in OPERATIONS.items():
        assert issubclass(spec, Operation) and key in spec.keys(), key
        assert dataclasses.is_dataclass(spec) and spec.__dataclass_params__.frozen, key  # type: ignore[attr-defined]
        assert (spec.__doc__ or "").strip() and spec.EXAMPLE.strip() and spec.FIELDS, key
        if spec.build.__func__ is Operation.build.__func__:  # type: ignore[attr-defined]
            names = {f.name for f in dataclasses.fields(spec)}
            assert {f.name for f in spec.FIELDS} <= names, (key, names)  # each YAML key is an attribute


def test_insert_before_and_insert_after_share_one_spec() -> None:
    assert OPERATIONS["insert_before"] is OPERATIONS["insert_after"]
    assert list(OPERATIONS) == sorted(OPERATIONS)  # the reference and the schema list them by key


def _loaded_after(code: str) -> dict[str, bool]:
    probe = (
        f"import sys, json; {code}; "
        "print(json.dumps({m: m in sys.modules for m in "
        "('libcst', 'radpatch.rewrite.matching', 'radpatch.rewrite.ops.common', 'radpatch.rewrite.ops')}))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def test_loading_every_registry_entry_does_not_import_libcst() -> None:
    loaded = _loaded_after(
        "from radpatch.registry.catalog import Registry; r = Registry.discover(('examples/registry',)); "
        "ps = r.load_many(r.names()); assert len(ps) > 1; "
        "assert {type(rw.op) for p in ps for rw in p.rewrites}"
    )
    assert loaded == {
        "libcst": False,
        "radpatch.rewrite.matching": False,
        "radpatch.rewrite.ops.common": False,
        "radpatch.rewrite.ops": True,  # the specs were read from it
    }


def test_running_a_rewrite_loads_libcst_then() -> None:
    """The other half: the lazy load really happens, so an operation's edit runs (and can fail)."""
    loaded = _loaded_after(
        "from radpatch.rewrite.ops.replace import Replace; from radpatch.rewrite.source import Source; "
        "assert Replace('f', 'x = 1', 'x = 2').forward(Source.parse('def f():\\n    x = 1\\n')).text "
        "== 'def f():\\n    x = 2\\n'"
    )
    assert loaded["libcst"] and loaded["radpatch.rewrite.matching"] and loaded["radpatch.rewrite.ops.common"]


OPERATION_MODULES = sorted({spec.__module__ for spec in OPERATIONS.values()})


# a process per operation module, alike on every interpreter: unsampled every one, in a sampled run
# (RADPATCH_TEST_SAMPLE=N) one in N turning with the interpreter, so the matrix runs each once
# (tests/lib/generated.py's seeds)
@pytest.mark.parametrize("module", [OPERATION_MODULES[i] for i in seeds(len(OPERATION_MODULES))])
def test_each_operation_loads_what_it_uses_in_a_fresh_process(module: str) -> None:
    """An operation run first, alone in its process, finds every name its `if TYPE_CHECKING:`
    block lists (rewrite/lazy.py binds them), whatever other module would have imported them.
    One case per operation module: a process each, spread over the workers."""
    probe = (
        f"import sys; from radpatch.rewrite.lazy import load; import {module} as m; "
        f"load({module!r}); "
        "import ast, inspect; tree = ast.parse(inspect.getsource(m)); "
        "names = [a.asname or a.name.split('.')[0] for s in tree.body if isinstance(s, ast.If) "
        "and getattr(s.test, 'id', '') == 'TYPE_CHECKING' for n in s.body for a in n.names]; "
        "assert names and all(hasattr(m, n) for n in names), names"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
