"""The loader and the editor's JSON Schema take and refuse the same `upstream:` links, whatever plane
of Unicode their characters come from (port37, issue 23): a link with an emoji (U+1F600) or a CJK
ideograph of plane 2 was refused by both, the schema's regular expressions naming the first plane
only. Now both take RFC 3987's ucschar of every plane and refuse the rest (a plane's last two
characters, private use, the tag characters), and the SBOM of a taken link validates.

Generated: characters from the start, middle and end of each plane's ranges and just outside them,
put in the path, the query, the fragment or the host."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
import yaml

from radpatch.commands.sbom import bom
from radpatch.errors import RegistryError
from radpatch.registry import json_schema
from radpatch.registry.loader import load_patch
from radpatch.state.inventory import Listed
from tests.lib.generated import sample
from tests.lib.registry import LIMIT_ENTRY, schema_validate, write_entry
from tests.lib.sbom import bom_of

# (code point, whether RFC 3987 lets an IRI hold it outside the query)
CHARS = [(p << 16 | low, low <= 0xFFFD) for p in range(1, 14) for low in (0x0000, 0x7777, 0xFFFD, 0xFFFE, 0xFFFF)]
CHARS += [(0x1F600, True), (0xE0001, False), (0xE0FFF, False), (0xE1000, True), (0xEFFFD, True), (0xEFFFE, False)]
CHARS += [(0xF0000, False), (0x10FFFD, False), (0x00E9, True), (0xFFEF, True), (0xFFF0, False)]
WHERE = ["https://example.org/a{c}b", "https://example.org/x?q={c}", "https://example.org/x#{c}", "https://h{c}.org/"]


def _quoted(text: str) -> str:
    return '"' + "".join(c if " " <= c <= "~" and c not in '"\\' else f"\\U{ord(c):08x}" for c in text) + '"'


@pytest.mark.parametrize(("char", "where"), sample(itertools.product(CHARS, WHERE)))
def test_the_loader_and_the_schema_agree_on_a_character_of_any_plane(
    tmp_path: Path, char: tuple[int, bool], where: str
) -> None:
    code, ucschar = char
    link = where.format(c=chr(code))
    f = write_entry(tmp_path, "fix", LIMIT_ENTRY + f"upstream:\n  - {_quoted(link)}\n")
    try:
        taken = load_patch(f).upstream == (link,)
    except RegistryError as exc:
        (problem,) = exc.problems
        assert problem.startswith(f"{f}:9:") and ": at upstream[0]: " in problem and "percent-encoded" in problem, (
            problem
        )
        taken = False
    try:
        schema_validate(yaml.safe_load(f.read_text(encoding="utf-8")))
        schema_takes = True
    except jsonschema.ValidationError:
        schema_takes = False
    assert (taken, schema_takes) == (ucschar, ucschar), (hex(code), link)
    if taken:
        listed = Listed("fix", ("toypkg", "1.0"), "d" * 64, "d" * 64, (link,), "a fix", "", (), "")
        bom_of(json.dumps(bom([listed])))  # strict CycloneDX 1.6: the link percent-encoded validates


@pytest.mark.skipif(shutil.which("node") is None, reason="no node: the editor's ECMAScript reading is not run")
def test_an_editor_reads_the_schema_pattern_as_the_loader_does() -> None:
    """The committed schema's link pattern, read by ECMAScript with the `u` flag as editors do, takes
    and refuses the characters of CHARS as Python's `re` does."""
    pattern = json.loads(json_schema.PATH.read_text())["properties"]["upstream"]["items"]["pattern"]
    links = [("https://example.org/a" + chr(c) + "b", ok) for c, ok in CHARS]
    script = "const [p, links] = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
    script += "console.log(JSON.stringify(links.map(l => new RegExp(p, 'u').test(l))));"
    out = subprocess.run(
        ["node", "-e", script], input=json.dumps([pattern, [x for x, _ in links]]), capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [ok for _, ok in links]
