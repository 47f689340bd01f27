"""An entry's revision (`Patch.digest`, the record's `registry_digest`) changes whenever what the
entry does changes: bytes moved from one payload to the next, or from the YAML's end to a payload,
are another revision (att53 #2: hashed one after the other, they were the same). The oracle is the
entry's own text: two entries are one revision exactly when their YAML and every payload, by the
path the YAML names it, are byte-identical. Then, on the fake site, `status` says an entry applied
from the old split of its payloads is "applied from a different revision", and `apply` re-applies it."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from radpatch.registry.loader import load_patch
from tests.lib.generated import sample
from tests.lib.registry import write_entry
from tests.lib.site import Site
from tests.lib.wheels import build_wheel

ENTRY = """\
    summary: Two new modules
    description: Each made from a payload beside the entry.
    distribution: toypkg
    supported: ">=1.0,<2"
    modules:
      a: toypkg.na
      b: toypkg.nb
    rewrites:
      - file: a
        create_module: {content: na.py}
      - file: b
        create_module: {content: nb.py}
    """
DEFS = [f"def f{i}():\n    return {i}\n\n\n" for i in range(5)]


def _texts(split: int) -> tuple[str, str]:
    """The five definitions, the first `split` in na.py, the rest in nb.py: whatever the split, the
    two files one after the other are the same bytes."""
    return "".join(DEFS[:split]), "".join(DEFS[split:])


def _entry(where: Path, split: int, tail: str = "") -> Path:
    na, nb = _texts(split)
    return write_entry(where, "two", ENTRY + tail, {"na.py": na, "nb.py": nb})


PAIRS = sample([(a, b) for a in range(len(DEFS) + 1) for b in range(len(DEFS) + 1)])


@pytest.mark.parametrize(("one", "two"), PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_one_revision_exactly_when_the_yaml_and_each_payload_are_the_same(one: int, two: int, tmp_path: Path) -> None:
    first, second = _entry(tmp_path / "one", one), _entry(tmp_path / "two", two)
    same = all(
        (first.parent / n).read_bytes() == (second.parent / n).read_bytes() for n in ("two.yaml", "na.py", "nb.py")
    )
    assert (load_patch(first).digest == load_patch(second).digest) is same, (one, two)


def test_a_line_moved_from_the_yaml_to_a_payload_is_another_revision(tmp_path: Path) -> None:
    # "# c" at the YAML's end, or at na.py's start: the same bytes one after the other
    end = _entry(tmp_path / "end", 2, "# c\n")
    start = _entry(tmp_path / "start", 2, "")
    (start.parent / "na.py").write_text("# c\n" + _texts(2)[0])
    (end.parent / "na.py").write_text(_texts(2)[0])
    joined = [
        (e.read_bytes(), (e.parent / "na.py").read_bytes(), (e.parent / "nb.py").read_bytes()) for e in (end, start)
    ]
    assert b"".join(joined[0]) == b"".join(joined[1])  # what was hashed before: the same bytes
    assert load_patch(end).digest != load_patch(start).digest


def test_the_digest_does_not_depend_on_where_the_registry_is(tmp_path: Path) -> None:
    entry = _entry(tmp_path / "here" / "registry", 3)
    moved = tmp_path / "elsewhere" / "deeper" / "registry"
    shutil.copytree(entry.parent, moved)
    assert load_patch(entry).digest == load_patch(moved / "two.yaml").digest


def test_an_entry_with_no_payload_keeps_the_sha256_of_its_yaml(tmp_path: Path) -> None:
    """Records written before payloads were framed hold this digest: such entries stay the same revision."""
    entry = write_entry(
        tmp_path,
        "plain",
        """\
        summary: One constant
        description: d
        distribution: toypkg
        supported: ">=1.0,<2"
        modules:
          a: toypkg.core
        rewrites:
          - set_constant: {name: LIMIT, from: 4, value: 8}
        """,
    )
    assert load_patch(entry).digest == hashlib.sha256(entry.read_bytes()).hexdigest()


def _status(radpatch: Any, registry: Path) -> dict[str, Any]:
    r = radpatch("--registry", str(registry), "status", "two", "--json")
    assert r.code == 0, r.err
    return {p["patch"]: p for p in json.loads(r.out)}["two"]


def test_a_definition_moved_between_payloads_is_applied_again(
    site: Site, radpatch: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "pycache_prefix", None)
    with zipfile.ZipFile(build_wheel(tmp_path / "wheels", "toypkg", "1.0", {"toypkg/__init__.py": ""})) as zf:
        zf.extractall(site.root)
    entry = _entry(tmp_path / "registry", 5)  # every def in na.py
    assert radpatch("--registry", str(entry.parent), "apply", "two").code == 0
    (entry.parent / "na.py").write_text(_texts(4)[0])  # f4 moves to nb.py
    (entry.parent / "nb.py").write_text(_texts(4)[1])
    seen = _status(radpatch, entry.parent)
    assert seen["registry_digest"] != seen["applied_registry_digest"], seen
    r = radpatch("--registry", str(entry.parent), "apply", "two")
    assert r.code == 0, r.err
    assert "another revision" in r.out + r.err, r.out
    assert (site.root / "toypkg/nb.py").read_text() == _texts(4)[1]
    seen = _status(radpatch, entry.parent)
    assert seen["state"] == "applied" and seen["registry_digest"] == seen["applied_registry_digest"], seen
