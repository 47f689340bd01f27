"""A rewrite whose `find` is in the code another entry writes is a stack: `list` reports it, apply
lets the series run in the order written, since in the other order the stacked `find` does not
match and the engine refuses by itself. With `occurrence:` the stacked rewrite matches the
installed copy in either order, so the order decides the code: apply refuses the unordered pair."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from radpatch.errors import RefusedError
from radpatch.prove.overlaps import apply_check, pairs
from radpatch.prove.overlaps.touching import Meet
from tests.lib.overlaps import write

WRITER = '  - id: w\n    insert_after: {scope: f, find: "p = a + 1", code: "q = p * 2\\np = 0"}\n'
STACKED = [
    ('  - id: s\n    insert_before: {{scope: f, find: "q = p * 2", code: "p = p + 5"{occ}}}\n', "insert_before"),
    ('  - id: s\n    replace: {{scope: f, find: "q = p * 2", with: "q = p * 3"{occ}}}\n', "replace"),
    ('  - id: s\n    delete: {{scope: f, find: "q = p * 2"{occ}}}\n', "delete"),
]


@pytest.mark.parametrize(("body", "kind"), STACKED, ids=[k for _, k in STACKED])
@pytest.mark.parametrize("occ", [", occurrence: 1", ", occurrence: 2", ", occurrence: all"])
def test_a_stacked_rewrite_with_occurrence_is_refused_unordered(tmp_path: Path, body: str, kind: str, occ: str) -> None:
    a = write(tmp_path, "a", WRITER)
    b = write(tmp_path, "b", body.format(occ=occ))
    with pytest.raises(RefusedError) as err:
        apply_check.refuse_unordered([a, b], [Version("1.0")])
    assert "a and b overlap" in err.value.message and "occurrence:" in err.value.message
    ordered = write(tmp_path, "b2", body.format(occ=occ), requires=("a",))
    apply_check.refuse_unordered([a, ordered], [Version("1.0")])  # `requires:` says which comes first


@pytest.mark.parametrize(("body", "kind"), STACKED, ids=[k for _, k in STACKED])
def test_a_stacked_rewrite_without_occurrence_is_reported_not_refused(tmp_path: Path, body: str, kind: str) -> None:
    a = write(tmp_path, "a", WRITER)
    b = write(tmp_path, "b", body.format(occ=""))
    found = pairs.find([a, b], [Version("1.0")])
    assert [(o.first, o.second, o.kind) for o in found] == [("a", "b", Meet.STACKS)]
    apply_check.refuse_unordered([a, b], [Version("1.0")])
