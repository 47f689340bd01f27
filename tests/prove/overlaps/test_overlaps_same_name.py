"""Two entries binding one new module-level name (issue 23, att23c N2): `set_constant enc = None`
(a new name) and `add_import: from json import dumps as enc` cannot both apply, and `list`/`verify`
report the pair, naming both, as apply's refusal does. Two imports binding the name to the same
thing (`from json import dumps as enc` twice, `import os.path` and `import os`) commute: one line
held by both, or two lines binding one object. Checked over every pair of a small family of
bindings, against a reference written by hand (which name each binds, and to what)."""

from __future__ import annotations

from itertools import combinations_with_replacement
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from radpatch.prove.overlaps import pairs
from tests.lib.generated import sample
from tests.lib.overlaps import HEAD, write
from tests.lib.site import Site

CONST = "constant"  # a new set_constant binds its name to its own value: it commutes with no other binding

# (the rewrite, as the registry spells it; {name: what it binds the name to}) -- the reference
BINDINGS: dict[str, tuple[str, dict[str, str]]] = {
    "from-json-dumps-as-enc": ('add_import: {import: "from json import dumps as enc"}', {"enc": "json.dumps"}),
    "from-pickle-dumps-as-enc": ('add_import: {import: "from pickle import dumps as enc"}', {"enc": "pickle.dumps"}),
    "from-json-loads-dumps-as-enc": (
        'add_import: {import: "from json import loads, dumps as enc"}',
        {"loads": "json.loads", "enc": "json.dumps"},
    ),
    "import-json-as-enc": ('add_import: {import: "import json as enc"}', {"enc": "json"}),
    "import-json": ('add_import: {import: "import json"}', {"json": "json"}),
    "import-pickle-as-json": ('add_import: {import: "import pickle as json"}', {"json": "pickle"}),
    "from-json-loads": ('add_import: {import: "from json import loads"}', {"loads": "json.loads"}),
    "import-os-path": ('add_import: {import: "import os.path"}', {"os": "os"}),
    "import-os": ('add_import: {import: "import os"}', {"os": "os"}),
    "import-os-path-as-os": ('add_import: {import: "import os.path as os"}', {"os": "os.path"}),
    "const-enc-none": ("set_constant: {name: enc, value: None}", {"enc": CONST}),
    "const-enc-one": ("set_constant: {name: enc, value: 1}", {"enc": CONST}),
    "const-json": ('set_constant: {name: json, value: "{}"}', {"json": CONST}),
    "const-loads": ("set_constant: {name: loads, value: None}", {"loads": CONST}),
}

PAIRS = sample(combinations_with_replacement(sorted(BINDINGS), 2))


def clashing(a: str, b: str) -> set[str]:
    """The reference: the names both bind, to different things (a new constant is its own thing)."""
    ours, theirs = BINDINGS[a][1], BINDINGS[b][1]
    return {n for n in ours.keys() & theirs.keys() if ours[n] == CONST or ours[n] != theirs[n]}


def entry(name: str, op: str) -> str:
    return f"  - id: {name}\n    {op}\n"


@pytest.mark.parametrize(("a", "b"), PAIRS, ids=[f"{a}/{b}" for a, b in PAIRS])
def test_two_entries_binding_one_name_overlap_unless_they_bind_the_same(tmp_path: Path, a: str, b: str) -> None:
    one = write(tmp_path, "one", entry("ra", BINDINGS[a][0]))
    two = write(tmp_path, "two", entry("rb", BINDINGS[b][0]))
    found = pairs.find([one, two], [Version("1.0")])
    names = clashing(a, b)
    assert bool(found) == bool(names), [o.describe() for o in found]
    for o in found:
        assert (o.first, o.second, o.module, o.ordered) == ("one", "two", "toypkg.core", False)
        both_constants = all(BINDINGS[x][1].get(n) == CONST for x in (a, b) for n in names)
        if not both_constants:  # two constants meet first as one constant changed twice
            assert o.what in {f"bind the same module-level name `{n}`" for n in names}, o.what
    ordered = write(tmp_path / "r2", "two", entry("rb", BINDINGS[b][0]), requires=("one",))
    assert all(o.ordered for o in pairs.find([one, ordered], [Version("1.0")]))


SRC = "import re\n\nX = 1\n"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("const-enc-none", "from-json-dumps-as-enc"),
        ("from-json-dumps-as-enc", "from-pickle-dumps-as-enc"),
        ("import-json", "const-json"),
    ],
)
def test_list_names_both_and_apply_refuses_them_unordered(
    site: Site, radpatch: Any, write_registry: Any, a: str, b: str
) -> None:
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": SRC})
    head = HEAD.format(supported=">=1.0,<2")
    write_registry("one", head + entry("ra", BINDINGS[a][0]))
    reg = write_registry("two", head + entry("rb", BINDINGS[b][0]))
    r = radpatch("--registry", str(reg), "list")
    assert r.code == 0, r.out + r.err
    name = next(iter(clashing(a, b)))
    line = f"overlap: one (ra) and two (rb) both bind the same module-level name `{name}` in toypkg.core"
    assert line in r.out, r.out
    r = radpatch("--registry", str(reg), "apply", "one", "two")
    assert r.code == 1, r.out + r.err
    assert "one and two overlap" in r.err and "bind the same module-level name" in r.err, r.err
    assert (site.root / "toypkg/core.py").read_text() == SRC  # nothing written


def test_list_does_not_report_the_same_import_twice(site: Site, radpatch: Any, write_registry: Any) -> None:
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": SRC})
    head = HEAD.format(supported=">=1.0,<2")
    write_registry("one", head + entry("ra", BINDINGS["from-json-dumps-as-enc"][0]))
    reg = write_registry("two", head + entry("rb", BINDINGS["from-json-dumps-as-enc"][0]))
    r = radpatch("--registry", str(reg), "list")
    assert r.code == 0 and "overlap" not in r.out, r.out + r.err
