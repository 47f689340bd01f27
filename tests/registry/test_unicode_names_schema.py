"""The JSON Schema accepts the names the loader accepts, and refuses the ones it refuses: a module
name as Python imports one (`toyd.é`, no part a keyword), a scope (`<module>`, `Größe.f`) and an
identifier (PEP 3131's). Before, its patterns were ASCII, so an editor flagged `toyd.é` that the
loader accepts, and the loader's own `scope:` pattern refused `Größe.f` while accepting `f²`.

Generated: names of one or two parts drawn from ASCII and non-ASCII letters, characters that may
continue but not start a name (a digit, `·`, a combining mark), ones that may do neither (`²`,
`€`, a space, a newline), a letter outside the BMP, a compatibility letter (`ﬁ`), keywords and soft
keywords, `<module>`; each put where the loader reads a module, a scope and an identifier, loaded
by the loader and validated by jsonschema against the generated schema. The characters are ones
every Unicode version 3.10-3.13 ship agrees on; the committed table of identifier characters is
compared with the running Python's where that Python's Unicode version is the table's."""

from __future__ import annotations

import itertools
import json
import unicodedata
from pathlib import Path

import jsonschema
import pytest
import yaml

from radpatch.errors import RadpatchError
from radpatch.registry import name_patterns
from radpatch.registry.loader import load_patch
from tests.lib.generated import sample
from tests.lib.registry import schema_validate

PARTS = ("a", "_x", "é", "Größe", "中文", "x²", "²", "€", "a·b", "·a", "e\u0301", "\u0301e", "𝐀", "ﬁ", "℘")
PARTS += ("class", "None", "match", "1a", "a-b", "a b", "a\n", "<module>")
NAMES = [*PARTS, *(f"{p}.{q}" for p, q in sample(list(itertools.product(PARTS, PARTS)))), "", ".", "a.", ".a", "a..b"]
PLACES = ("module", "scope", "identifier")


def entry(place: str, name: str) -> dict[str, object]:
    op = {"scope": "f", "name": "X", "element": "1"}
    if place == "scope":
        op["scope"] = name
    elif place == "identifier":
        op["name"] = name
    return {
        "summary": "s",
        "description": "d",
        "distribution": "toypkg",
        "supported": ">=1.0",
        "modules": {"core": name if place == "module" else "toypkg.core"},
        "rewrites": [{"add_element": op}],
    }


@pytest.mark.parametrize(("place", "name"), list(itertools.product(PLACES, NAMES)))
def test_the_schema_accepts_a_name_where_the_loader_does(tmp_path: Path, place: str, name: str) -> None:
    data = entry(place, name)
    path = tmp_path / "e.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    try:
        load_patch(path)
        loaded = True
    except RadpatchError:
        loaded = False
    try:
        schema_validate(data)
        valid = True
    except jsonschema.ValidationError:
        valid = False
    assert loaded == valid, (place, name, loaded, valid)


def test_the_loader_reads_a_unicode_scope_and_module(tmp_path: Path) -> None:
    """Not only agreement: `Größe.f`, `toyd.é` and `中文` load (they are names Python defines)."""
    for place, name in (("scope", "Größe.f"), ("module", "toyd.é"), ("identifier", "中文")):
        path = tmp_path / f"{place}.yaml"
        path.write_text(yaml.safe_dump(entry(place, name), allow_unicode=True), encoding="utf-8")
        load_patch(path)
        schema_validate(entry(place, name))


def test_the_committed_identifier_characters_are_the_tables() -> None:
    table = json.loads(name_patterns.CHARS.read_text())
    if table["unicode"] != unicodedata.unidata_version:
        pytest.skip(f"the table is Unicode {table['unicode']}'s; this Python's is {unicodedata.unidata_version}")
    assert table == name_patterns.ranges_now(), "run: python -m radpatch.registry.name_patterns"
