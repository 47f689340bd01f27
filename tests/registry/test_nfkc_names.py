"""A name the registry spells with a compatibility character is the name Python reads (issue 20,
att43 #11). Python's parser normalises every identifier to NFKC (PEP 3131): `def ｆ` defines `f`,
`import pkg.ﬁle` imports `pkg.file`. The loader accepted `function: "ｆ"` and `scope: C.ｍｅｔｈ` as
identifiers and the lookup then compared them as written: "defines no function or class 'ｆ'; no
similar name", for code that defines it. The loader now keeps every name in Python's form.

Generated: a function, a method's scope and a module, each spelled by swapping letters of the
installed name for compatibility forms (fullwidth, mathematical bold, a ligature); the oracle for
the name each spelling means is Python's own parser (`ast`), and the dry run must find it."""

from __future__ import annotations

import ast
import itertools
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.registry import entry_head
from tests.lib.site import Site

FULLWIDTH = {c: chr(ord(c) - ord("a") + 0xFF41) for c in "abcdefghijklmnopqrstuvwxyz"}
BOLD = {c: chr(ord(c) - ord("a") + 0x1D41A) for c in "abcdefghijklmnopqrstuvwxyz"}
LIGATURE = {"fi": "\ufb01", "fl": "\ufb02"}
NAMES = ("fill", "flow", "plan")
FORMS = ("fullwidth", "bold", "ligature", "first letter", "mixed")


def spell(name: str, form: str) -> str:
    if form == "fullwidth":
        return "".join(FULLWIDTH[c] for c in name)
    if form == "bold":
        return "".join(BOLD[c] for c in name)
    if form == "ligature":
        for plain, lig in LIGATURE.items():
            name = name.replace(plain, lig)
        return name
    if form == "first letter":
        return FULLWIDTH[name[0]] + name[1:]
    return "".join((FULLWIDTH if i % 2 else BOLD)[c] for i, c in enumerate(name))


def python_reads(spelled: str) -> str:
    return ast.parse(f"def {spelled}(): pass").body[0].name  # type: ignore[attr-defined,no-any-return]


CASES = sample(itertools.product(("function", "scope", "module"), NAMES, FORMS))


@pytest.mark.parametrize(("place", "name", "form"), CASES, ids=["-".join(c) for c in CASES])
def test_a_compatibility_spelling_finds_the_name_python_reads(
    site: Site, write_registry: Any, radpatch: Any, place: str, name: str, form: str
) -> None:
    spelled = spell(name, form)
    assert python_reads(spelled) == name  # the oracle: Python binds the plain name
    source = f"def {name}(x):\n    return 0\n\n\nclass C:\n    def {name}(self):\n        return 0\n"
    site.install("nfkc", "1.0", {"nfkc/__init__.py": "", f"nfkc/{name}.py": source})
    module = f"nfkc.{spelled}" if place == "module" else f"nfkc.{name}"
    target = {"function": spelled, "scope": f"C.{spelled}", "module": name}[place]
    reg = write_registry(
        "u",
        entry_head("nfkc", "nfkc", {"m": module})
        + "  - id: r\n    file: m\n"
        + f'    replace_body: {{function: "{target}", find: "return 0", with: "return 1\\n"}}\n',
    )

    r = radpatch("--registry", str(reg), "apply", "--dry-run", "u")

    assert r.code == 0, r.err
    assert "would patch" in r.out and f"nfkc/{name}.py" in r.out, r.out
