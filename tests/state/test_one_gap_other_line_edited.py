"""att21g F8: a same-code one-gap pair (`p` inserts `n += 1` after `n = 0`, `q` inserts it before the next
statement) where, after the first entry is applied, someone edits ITS inserted line (a comment): radpatch
cannot take that entry's record off the file to judge the second, so the second must not read applied
by the first's copy. apply and `status --check` agree: both name the pair as ambiguous (the other entry,
the edited line, what to do), never "nothing to do" on one side and "apply adopts it" on the other, and
nothing is written. Restoring the line lets the second entry apply; the module run decides."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from tests.lib.overlaps import HEAD, unpack_toy
from tests.lib.site import Site

SRC = "def plan(spec):\n    n = 0\n    size = len(spec)\n    return n\n"
P = '  - id: p\n    insert_after: {scope: plan, find: "n = 0", code: "n += 1"}\n'
Q = '  - id: q\n    insert_before: {scope: plan, find: "size = len(spec)", code: "n += 1"}\n'
COMMENTS = ["  # reviewed", "  # noqa: E501"]


def _run(core: Path) -> int:
    scope: dict[str, Any] = {}
    exec(compile(core.read_text(), str(core), "exec"), scope)  # the toy module radpatch wrote
    return int(scope["plan"]([]))


def _first_applied(site: Site, radpatch: Any, write_registry: Any, tmp_path: Path, first: str) -> tuple[Path, Path]:
    """The toy unpacked, entries p and q written, `first` of them applied: (core.py, the registry)."""
    core = unpack_toy(site, tmp_path, SRC)
    head = HEAD.format(supported=">=1.0,<2")
    write_registry("p", head + P)
    reg = write_registry("q", head + Q)
    assert radpatch("--registry", str(reg), "apply", first).code == 0
    return core, reg


@pytest.mark.parametrize(("order", "comment"), list(itertools.product([("p", "q"), ("q", "p")], COMMENTS)))
def test_a_comment_on_the_other_entrys_line_is_refused_by_apply_and_status_alike(
    site: Site, radpatch: Any, write_registry: Any, tmp_path: Path, order: tuple[str, str], comment: str
) -> None:
    core, reg = _first_applied(site, radpatch, write_registry, tmp_path, order[0])
    first, second = order
    lines = core.read_text().splitlines(keepends=True)
    at = lines.index("    n += 1\n")
    lines[at] = f"    n += 1{comment}\n"
    core.write_text("".join(lines))
    edited = core.read_bytes()
    for _ in range(2):  # asked again, the same answer (no loop between apply and status)
        r = radpatch("--registry", str(reg), "apply", second)
        out = r.out + r.err
        assert r.code == 1 and "Traceback" not in out, out
        assert "nothing to do" not in out and "adopts" not in out, out
        assert first in r.err and f"line {at + 1}" in r.err, r.err
        assert core.read_bytes() == edited
        r = radpatch("--registry", str(reg), "status", "--check", second)
        out = r.out + r.err
        assert r.code != 0 and "adopts" not in out and "no record" not in out, out
        assert first in out and f"line {at + 1}" in out, out
    assert _run(core) == 1  # the first entry's increment alone
    core.write_text(edited.decode().replace(comment, ""))  # the line restored: the second applies
    r = radpatch("--registry", str(reg), "apply", second)
    assert r.code == 0 and "nothing to do" not in r.out, r.out + r.err
    assert _run(core) == 2
    assert radpatch("--registry", str(reg), "status", "--check", "p", "q").code == 0


@pytest.mark.parametrize("order", [("p", "q"), ("q", "p")])
def test_a_comment_on_the_anchor_line_still_lets_the_second_apply(
    site: Site, radpatch: Any, write_registry: Any, tmp_path: Path, order: tuple[str, str]
) -> None:
    # the control: an edit beside the other entry's line (not on it) takes off cleanly
    core, reg = _first_applied(site, radpatch, write_registry, tmp_path, order[0])
    first, second = order
    core.write_text(core.read_text().replace("    n = 0\n", "    n = 0  # start\n"))
    r = radpatch("--registry", str(reg), "apply", second)
    assert r.code == 0 and "nothing to do" not in r.out, r.out + r.err
    assert _run(core) == 2
    assert radpatch("--registry", str(reg), "status", "--check", "p", "q").code == 0
