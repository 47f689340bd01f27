"""Every operation against unusual code (one-line suites, `;`, `<module>`, nested classes, async
defs, decorators, overloads, encoding declarations, a missing final newline, CRLF): a rewrite is
refused with radpatch's own error or applies, and then the patched module compiles and its
inverse gives back the installed bytes. Generated: hypothesis picks a source and an operation
whose fields come from the names and code that source holds (and some it does not)."""

from __future__ import annotations

import codecs
import dataclasses
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from radpatch.errors import RefusedError
from radpatch.prove import plan
from radpatch.registry.model import Operation
from radpatch.registry.operation_spec import Field
from radpatch.rewrite import runner
from radpatch.rewrite.ops import OPERATIONS
from radpatch.rewrite.ops.add_import import AddImport
from radpatch.rewrite.ops.add_parameter import AddParameter
from radpatch.rewrite.ops.decorators import AddDecorator, RemoveDecorator, ReplaceDecorator
from radpatch.rewrite.ops.delete import Delete
from radpatch.rewrite.ops.insert_definitions import InsertDefinitions
from radpatch.rewrite.ops.insert_statements import InsertStatements
from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.ops.replace_body import ReplaceBody
from radpatch.rewrite.ops.set_constant import SetConstant
from radpatch.rewrite.ops.set_default import SetDefault
from radpatch.rewrite.ops.set_element import SetElement
from radpatch.rewrite.ops.set_item import SetItem
from radpatch.rewrite.ops.set_keyword import SetKeyword
from radpatch.rewrite.ops.wrap_body import WrapBody
from tests.lib.generated import examples
from tests.lib.rewrites import patch_of

SOURCES: dict[str, bytes] = {
    "one-line suites": b"import os\n\n\ndef f(x):\n    if x: return 1\n    while x: x -= 1; break\n    return 2\n",
    "semicolons": b"A = 1; B = 2\nC = A; D = (\n    B)\n\n\ndef f(x):\n    a = 1; b = 2\n    return a\n",
    "nested classes": b"class C:\n    class D:\n        def m(self, x=1):\n            return x\n\n    def m(self):\n"
    b"        return self\n",
    "async": b"async def f(x):\n    await g(x)\n    async with g(x) as a:\n        return a\n\n\nasync def g(x):\n"
    b"    return x\n",
    "decorated": b"import functools\n\n\ndef dec(k):\n    return lambda f: f\n\n\ndef g(x, k=1):\n    return x\n\n\n"
    b"@functools.cache\n@dec(k=1)\ndef f(x=1):\n    return g(x, k=1)\n",
    "one-line defs": b"def f(x): return x\nclass C: pass\ndef g(x): x = 1; return x\n",
    "latin-1": "# -*- coding: latin-1 -*-\nS = 'é'\n\n\ndef f(x):\n    return x\n".encode("latin-1"),
    "shebang and coding": b"#!/usr/bin/env python\n# vim: set fileencoding=utf-8 :\nA = 1\n\n\ndef f(x):\n"
    b"    return x\n",
    "try binding": b"try:\n    import orjson as json\nexcept ImportError:\n    import json\nA = 1\n\n\ndef f(x):\n"
    b"    return json.dumps(x)\n",
    "type checking": b"from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import os\nelse:\n    os = None\n"
    b"A = 1\n\n\ndef f(x):\n    return x\n",
    "overloads and a property": b"from typing import overload\n\n\nclass C:\n    @property\n    def m(self):\n"
    b"        return 1\n\n    @m.setter\n    def m(self, x):\n        self._m = x\n\n\n@overload\n"
    b"def f(x: int) -> int: ...\n@overload\ndef f(x: str) -> str: ...\ndef f(x):\n    return x\n",
    "conditional defs": b"import sys\n\nif sys.platform == 'win32':\n    def f(x):\n        return 1\nelse:\n"
    b"    def f(x):\n        return 2\n",
    "nested function": b"def f(x):\n    def g(y): return y\n    return g(x)\n",
    "no final newline": b"A = 1\n\n\ndef f(x):\n    return x",
    "crlf": b"import os\r\n\r\n\r\ndef f(x):\r\n    a = 1\r\n    return x\r\n",
    "comments only": b"# -*- coding: utf-8 -*-\n# nothing here\n",
    "bom": codecs.BOM_UTF8 + b"# header\n\nA = 1\n\n\ndef f(x):\n    return x\n",
    "lambda and comprehension": b"A = [x for x in range(3)]\nf = lambda x: x\n\n\nclass C:\n    k = 1; j = 2\n",
    "dict literals": b"D = {1: 2}; B = {\n    2: 1,  # c\n    None: (1, 2),\n}\n\n\nclass C:\n    D = {}\n",
    "displays": b"S = {1, 2}; L = [\n    1,  # c\n    None\n]\n\n\ndef f(x):\n    T = (x,)\n    return T\n",
}

SCOPES = ("<module>", "f", "g", "C", "C.D", "C.D.m", "C.m", "C.m.setter", "C.m.getter", "f.g", "missing")
FINDS = (
    "return 1",
    "return x",
    "return a",
    "a = 1",
    "b = 2",
    "A = 1",
    "B = 2",
    "x",
    "1",
    "g(x)",
    "pass",
    "await g(x)",
    "self._m = x",
    "x -= 1",
    "break",
    "...",
)
WITHS = ("return 3", "x + 1", "(x) * 2", "pass", "y = 3; z = 4", "x = 0\nreturn x", "a * (b + c)")
NAMES = ("A", "B", "C", "D", "S", "json", "os", "f", "NEW", "k", "x")
TEMPLATES = (
    "try:\n    __body__\nfinally:\n    pass",
    "if x: __body__",
    "x = 1; __body__",
    "with ctx():\n    __body__",
    "for _ in range(2):\n    __body__\nelse:\n    pass",
)
PAYLOADS = (
    (b"def _rp(x):\n    return x\n", ("_rp",)),
    (b"import os\n_RP = 1\n\n\ndef _rp():\n    return os.sep\n", ("_RP", "_rp")),
    (b"import json\n\n\ndef _rp():\n    return json\n", ("_rp",)),
)

scope = st.sampled_from(SCOPES)
find = st.sampled_from(FINDS)
code = st.sampled_from(FINDS + WITHS)
name = st.sampled_from(NAMES)
VALUES = ("1", "2", "None", "A + 1", "x", "(1, 2)")
value = st.sampled_from(VALUES)
occurrence = st.sampled_from((None, None, 1, 2, "all"))
within = st.sampled_from((None, None, "if x:", "while x:"))


def _definitions(payload: tuple[bytes, tuple[str, ...]], anchor: str, where: str) -> InsertDefinitions:
    return InsertDefinitions(Path("p.py"), payload[0], payload[1], anchor, where)  # type: ignore[arg-type]


FACTORIES: dict[str, Callable[[], st.SearchStrategy[Operation]]] = {
    "add_decorator": lambda: st.builds(
        AddDecorator, scope, st.sampled_from(("staticmethod", "dec(k=1)")), st.sampled_from(("top", "bottom"))
    ),
    "add_import": lambda: st.builds(
        AddImport, st.sampled_from(("import os", "import json", "from os import sep", "import sys", "import os.path"))
    ),
    "add_parameter": lambda: st.builds(AddParameter, scope, name, value),
    "delete": lambda: st.builds(Delete, scope, find, within, occurrence),
    "insert_after": lambda: st.builds(InsertStatements, scope, find, code, st.just("after"), within, occurrence),
    "insert_before": lambda: st.builds(InsertStatements, scope, find, code, st.just("before"), within, occurrence),
    "insert_definitions": lambda: st.builds(
        _definitions, st.sampled_from(PAYLOADS), scope, st.sampled_from(("before", "after", "into"))
    ),
    "remove_decorator": lambda: st.builds(
        RemoveDecorator,
        scope,
        st.sampled_from(("functools.cache", "dec(k=1)", "property", "overload", "m.setter")),
        st.sampled_from(("top", "bottom")),
    ),
    "replace": lambda: st.builds(Replace, scope, find, code, within, occurrence),
    "replace_body": lambda: st.builds(ReplaceBody, scope, find, code),
    "replace_decorator": lambda: st.builds(
        ReplaceDecorator,
        scope,
        st.sampled_from(("functools.cache", "dec(k=1)", "m.setter")),
        st.sampled_from(("functools.lru_cache(None)", "dec(k=2)")),
    ),
    "set_constant": lambda: st.builds(SetConstant, name, value, st.sampled_from((None, "1", "2", "A"))),
    "set_default": lambda: st.builds(SetDefault, scope, name, value, value),
    # a keyword changed (`from` and `to`), added (no `from`) or taken away (no `to`), `after` another or not
    "set_keyword": lambda: (
        st.builds(
            SetKeyword,
            scope,
            st.sampled_from(("g", "dec", "print")),
            st.just("k"),
            st.none() | value,
            value,
            st.none() | st.just("j"),
            within,
            occurrence,
        ).map(lambda op: op if op.from_ is None or op.after is None else dataclasses.replace(op, after=None))
        | st.builds(
            SetKeyword,
            scope,
            st.sampled_from(("g", "dec", "print")),
            st.just("k"),
            value,
            st.none(),
            st.none() | st.just("x"),
            within,
            occurrence,
        )
    ),
    "wrap_body": lambda: st.builds(WrapBody, scope, st.sampled_from(TEMPLATES)),
}


BY_KIND: dict[str, st.SearchStrategy[object]] = {
    "qualname": scope,
    "identifier": name,
    "code": code,
    "expression": value,
    "occurrence": occurrence,
    "position": st.sampled_from(("top", "bottom")),
    "import": st.sampled_from(("import os", "import json", "from os import sep")),
    "within": within,
    "index": st.integers(1, 3),
}


def from_fields(spec: type[Operation]) -> st.SearchStrategy[Operation] | None:
    """An operation no table above tunes is generated from its fields, a strategy per reader kind
    (optional fields are sometimes left out), so a new operation module is covered as it lands.
    None for one whose fields hold a payload (a file's content: it creates or inserts files)."""
    fields = spec.FIELDS
    if any(f.kind not in BY_KIND and not f.choices for f in fields):
        return None

    def of(f: Field) -> st.SearchStrategy[object]:
        return st.sampled_from(f.choices) if f.choices else BY_KIND[f.kind]

    return st.builds(spec, **{f.name: of(f) if f.required else st.none() | of(f) for f in fields})


def strategy(key: str) -> st.SearchStrategy[Operation]:
    tuned = FACTORIES.get(key)
    generic = from_fields(OPERATIONS[key])
    assert tuned is not None or generic is not None, key
    return tuned() if tuned else generic  # type: ignore[return-value]


GENERATED = sorted(k for k in OPERATIONS if k in FACTORIES or from_fields(OPERATIONS[k]) is not None)


def test_every_operation_but_the_file_makers_is_generated() -> None:
    # create_module writes a file the install lacks, not code of a module (tests/write/test_create_module.py)
    assert set(OPERATIONS) - set(GENERATED) == {"create_module"}


@settings(max_examples=examples(50), deadline=None, derandomize=True)
@given(from_fields(SetKeyword))  # type: ignore[arg-type]
def test_an_operation_no_table_names_is_generated_from_its_fields(op: Operation) -> None:
    """set_keyword, built from its fields alone, gives operations of its own kind with every field set."""
    assert isinstance(op, SetKeyword) and op.keyword in NAMES and op.scope in SCOPES and op.call in VALUES


def _applies_and_undoes(source: bytes, op: Operation) -> bool:
    patch = patch_of(op)
    try:
        change = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), source)
    except RefusedError as exc:
        lines = exc.message.strip().splitlines()
        assert lines and exc.message.strip(), op
        assert "Traceback" not in exc.message and "AssertionError" not in exc.message
        return False
    compile(change.after, "mod.py", "exec", dont_inherit=True)
    assert runner.backward(patch, patch.rewrites, change.after, "mod.py") == source, (op, change.after)
    return True


@settings(max_examples=examples(600), deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(SOURCES)), st.sampled_from(GENERATED).flatmap(strategy))
def test_any_operation_on_odd_code_is_refused_or_applies_and_undoes(source: str, op: Operation) -> None:
    _applies_and_undoes(SOURCES[source], op)


def test_the_generated_cases_reach_both_outcomes() -> None:
    """The generators are not all refused: each source takes some rewrite."""
    fitting = {
        "one-line suites": Replace("f", "return 2", "return 3"),
        "semicolons": SetConstant("B", "3", "2"),
        "nested classes": AddParameter("C.D.m", "y", "None"),
        "async": WrapBody("f", "try:\n    __body__\nfinally:\n    pass"),
        "decorated": SetKeyword("f", "g", "k", "1", "2"),
        "one-line defs": AddDecorator("f", "staticmethod"),
        "latin-1": SetConstant("NEW", "1"),
        "shebang and coding": AddImport("import sys"),
        "try binding": SetConstant("NEW", "json"),
        "type checking": AddImport("import sys"),
        "overloads and a property": Replace("C.m.setter", "self._m = x", "self._m = x + 1"),
        "conditional defs": AddImport("import os"),
        "nested function": Replace("f", "g(x)", "g(x) * 2"),
        "no final newline": SetConstant("NEW", "2"),
        "crlf": InsertStatements("f", "a = 1", "b = 2", "after"),
        "comments only": SetConstant("NEW", "2"),
        "bom": AddImport("import os"),
        "lambda and comprehension": SetConstant("A", "[1]", "[x for x in range(3)]"),
        "dict literals": SetItem("<module>", "B", "(1, 2)", "None"),
        "displays": SetElement("<module>", "L", "2", after="1"),
    }
    assert set(fitting) == set(SOURCES)
    refused = [k for k, op in fitting.items() if not _applies_and_undoes(SOURCES[k], op)]
    assert refused == []
