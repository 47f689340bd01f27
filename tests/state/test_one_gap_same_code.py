"""Two entries inserting at one gap (`p` an `insert_after` one statement, `q` an `insert_before` the
next) with the SAME code (att23d F2): "the file already carries q" must not count the copy radpatch's
own entry `p` put there. Generated over both orders x same/different code x one run/two runs x
reverting either, each checked against a simple reference (the patched module run: each applied entry
adds its own increment) and the record (`status --check` green, both entries recorded). A wheel that
truly carries the code is still refused, before and after the other entry is applied."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.overlaps import HEAD, unpack_toy
from tests.lib.sbom import bom_of, props
from tests.lib.site import Site

SRC = "def plan(spec):\n    n = 0\n    size = len(spec)\n    return n\n"
P = '  - id: p\n    insert_after: {{scope: plan, find: "n = 0", code: "n += {k}"}}\n'
Q = '  - id: q\n    insert_before: {{scope: plan, find: "size = len(spec)", code: "n += {k}"}}\n'
ADDS = {"same": {"p": 1, "q": 1}, "different": {"p": 1, "q": 10}}


def _run(core: Path) -> int:
    """The patched module run: what `plan` returns."""
    scope: dict[str, Any] = {}
    exec(compile(core.read_text(), str(core), "exec"), scope)  # the toy module radpatch wrote
    return int(scope["plan"]([]))


def _registry(write_registry: Any, code: str) -> Path:
    head = HEAD.format(supported=">=1.0,<2")
    write_registry("p", head + P.format(k=ADDS[code]["p"]))
    return write_registry("q", head + Q.format(k=ADDS[code]["q"]))  # type: ignore[no-any-return]


def _recorded(radpatch: Any, reg: Path, names: set[str]) -> None:
    r = radpatch("--registry", str(reg), "status", "--check", "p", "q")
    assert (r.code == 0) == (names == {"p", "q"}), r.out + r.err
    r = radpatch("--registry", str(reg), "status", "--check")  # the recorded entries
    assert r.code == 0, r.out + r.err
    assert "no record" not in r.out + r.err, r.out


# a generated family: every case unsampled, a sample turning with the interpreter (tests/lib/generated.py)
CASES = sample(itertools.product([("p", "q"), ("q", "p")], ["same", "different"], ["one run", "two runs"], ["p", "q"]))


@pytest.mark.parametrize(("order", "code", "runs", "reverted"), CASES)
def test_both_entries_of_a_one_gap_pair_are_in_effect_and_revert_alone(
    site: Site,
    radpatch: Any,
    write_registry: Any,
    tmp_path: Path,
    order: tuple[str, str],
    code: str,
    runs: str,
    reverted: str,
) -> None:
    core = unpack_toy(site, tmp_path, SRC)
    reg = _registry(write_registry, code)
    steps = [list(order)] if runs == "one run" else [[n] for n in order]
    for names in steps:
        r = radpatch("--registry", str(reg), "apply", *names)
        assert r.code == 0, r.out + r.err
        assert "nothing to do" not in r.out + r.err, r.out + r.err
    assert _run(core) == ADDS[code]["p"] + ADDS[code]["q"]  # each entry's increment, once
    _recorded(radpatch, reg, {"p", "q"})
    r = radpatch("--registry", str(reg), "revert", reverted)
    assert r.code == 0, r.out + r.err
    kept = "q" if reverted == "p" else "p"
    assert _run(core) == ADDS[code][kept]
    _recorded(radpatch, reg, {kept})
    assert radpatch("--registry", str(reg), "revert", kept).code == 0
    assert core.read_text() == SRC


@pytest.mark.parametrize("first", [None, "p"])
def test_a_wheel_that_carries_the_code_is_still_refused(
    site: Site, radpatch: Any, write_registry: Any, tmp_path: Path, first: str | None
) -> None:
    # upstream already has `n += 1` at q's place (it reads as carrying q), and p changes another line:
    # p's own record does not turn the upstream copy into a "not there"
    src = SRC.replace("    size = len(spec)\n", "    n += 1\n    size = len(spec)\n")
    core = unpack_toy(site, tmp_path, src)
    head = HEAD.format(supported=">=1.0,<2")
    write_registry("p", head + '  - id: p\n    replace: {scope: plan, find: "return n", with: "return n * 2"}\n')
    reg = write_registry("q", head + Q.format(k=1))
    if first:
        assert radpatch("--registry", str(reg), "apply", first).code == 0
    before = core.read_bytes()
    r = radpatch("--registry", str(reg), "apply", "q")
    assert r.code == 1, r.out + r.err
    assert "already contains" in r.err and "obsolete" in r.err, r.err
    assert "Traceback" not in r.err
    assert core.read_bytes() == before


# att23e G3: the same pair when the file also has someone's unrelated edit (made before radpatch's first
# apply: a `patch -p1` image; or between the two applies), so it is no recorded chain's end byte for byte
OTHER = SRC + "\n\ndef other():\n    return 1\n"
LOCAL = {
    "trailing comment": lambda s: s + "# local note\n",
    "comment line elsewhere": lambda s: "# a local line\n" + s,
    "code edit in another function": lambda s: s.replace("    return 1\n", "    return 2\n"),
}
# generated families: every case unsampled, a sample turning with the interpreter (tests/lib/generated.py)
EDITED = sample(itertools.product([("p", "q"), ("q", "p")], list(LOCAL), ["before", "between"]))


@pytest.mark.parametrize(("order", "edit", "when"), EDITED)
def test_a_local_edit_does_not_make_the_twin_read_applied(
    site: Site,
    radpatch: Any,
    write_registry: Any,
    tmp_path: Path,
    order: tuple[str, str],
    edit: str,
    when: str,
) -> None:
    core = unpack_toy(site, tmp_path, OTHER)
    reg = _registry(write_registry, "same")
    if when == "before":
        core.write_text(LOCAL[edit](core.read_text()))
    first, second = order
    r = radpatch("--registry", str(reg), "apply", first)
    assert r.code == 0, r.out + r.err
    if when == "between":
        core.write_text(LOCAL[edit](core.read_text()))
    r = radpatch("--registry", str(reg), "status", "--check", second)
    assert r.code != 0 and "no record" not in r.out, r.out + r.err  # not applied (no unrecorded "applied")
    r = radpatch("--registry", str(reg), "apply", second)
    assert r.code == 0, r.out + r.err
    assert "nothing to do" not in r.out + r.err, r.out + r.err
    assert _run(core) == 2  # each applied entry's increment, once
    assert ("return 2" in core.read_text()) == (edit == "code edit in another function")  # the local edit kept
    if edit == "code edit in another function" and when == "between":
        # someone edited the code after radpatch patched the file: the first entry reads drifted (as for
        # any such edit); the second is applied and recorded, not an unrecorded hand edit
        r = radpatch("--registry", str(reg), "status", "--check", second)
        assert r.code == 0 and "no record" not in r.out, r.out + r.err
        assert "drifted" in radpatch("--registry", str(reg), "status", first).out
        return
    _recorded(radpatch, reg, {"p", "q"})


@pytest.mark.parametrize("edit", list(LOCAL))
def test_a_carried_copy_is_still_refused_after_a_local_edit(
    site: Site, radpatch: Any, write_registry: Any, tmp_path: Path, edit: str
) -> None:
    # upstream (or a hand edit) has `n += 1` at q's place; p, a different rewrite, is applied, then a local edit
    src = OTHER.replace("    size = len(spec)\n", "    n += 1\n    size = len(spec)\n")
    core = unpack_toy(site, tmp_path, src)
    head = HEAD.format(supported=">=1.0,<2")
    write_registry("p", head + '  - id: p\n    replace: {scope: plan, find: "return n", with: "return n * 2"}\n')
    reg = write_registry("q", head + Q.format(k=1))
    assert radpatch("--registry", str(reg), "apply", "p").code == 0
    core.write_text(LOCAL[edit](core.read_text()))
    before = core.read_bytes()
    r = radpatch("--registry", str(reg), "apply", "q")
    assert "Traceback" not in r.err
    # never a second copy: refused (already there; or, beside a code edit, not adoptable), or nothing to do
    assert r.code == 1 or "nothing to do" in r.out + r.err, r.out + r.err
    assert core.read_bytes() == before
    assert _run(core) == 2  # the carried increment, once, and p's doubling


def _states(radpatch: Any, reg: Path, *names: str) -> dict[str, str]:
    r = radpatch("--registry", str(reg), "status", "--json", *names)
    assert "Traceback" not in r.err, r.err
    return {p["patch"]: p["state"].split(":")[0] for p in json.loads(r.out)}


# att23e G3b: a twin (q2: q's very rewrites) applied, then a local edit: neither q nor p (the same code at
# the same gap) reads applied, by no record or otherwise, and the BOM lists the twin alone
@pytest.mark.parametrize(("edit", "when"), sample(itertools.product(list(LOCAL), ["before", "between"])))
def test_a_local_edit_does_not_make_a_twin_of_an_applied_entry_read_applied(
    site: Site, radpatch: Any, write_registry: Any, tmp_path: Path, edit: str, when: str
) -> None:
    core = unpack_toy(site, tmp_path, OTHER)
    _registry(write_registry, "same")
    reg = write_registry("q2", HEAD.format(supported=">=1.0,<2") + Q.format(k=1))
    if when == "before":
        core.write_text(LOCAL[edit](core.read_text()))
    assert radpatch("--registry", str(reg), "apply", "q2").code == 0
    if when == "between":
        core.write_text(LOCAL[edit](core.read_text()))
    drifted = edit == "code edit in another function" and when == "between"
    assert _states(radpatch, reg, "p", "q", "q2") == {
        "p": "not-applied",
        "q": "not-applied",
        "q2": "drifted" if drifted else "applied",
    }
    r = radpatch("--registry", str(reg), "status", "--check", "p", "q")
    assert r.code != 0 and "no record" not in r.out + r.err, r.out + r.err
    r = radpatch("--registry", str(reg), "status", "--format", "cyclonedx")
    (component,) = bom_of(r.out)["components"]
    states = {n: v.split(":")[0] for n, v in (s.split(": ", 1) for s in props(component, "radpatch:state"))}
    assert states == {"q2": "drifted" if drifted else "applied"}, states
    assert _run(core) == 1  # the twin's one increment


# An author-ordered pair: p2 inserts the same code at p's anchor and `requires: [p]`; a local edit between
# the applies (or before both) must not make p2 "already applied"
@pytest.mark.parametrize(("edit", "when"), sample(itertools.product(list(LOCAL), ["before", "between"])))
def test_a_requires_pair_with_the_same_code_both_apply_after_a_local_edit(
    site: Site, radpatch: Any, write_registry: Any, tmp_path: Path, edit: str, when: str
) -> None:
    core = unpack_toy(site, tmp_path, OTHER)
    head = HEAD.format(supported=">=1.0,<2")
    write_registry("p", head + P.format(k=1))
    reg = write_registry("p2", "requires: [p]\n" + head + P.format(k=1).replace("id: p", "id: p2"))
    if when == "before":
        core.write_text(LOCAL[edit](core.read_text()))
    assert radpatch("--registry", str(reg), "apply", "p").code == 0
    if when == "between":
        core.write_text(LOCAL[edit](core.read_text()))
    assert _states(radpatch, reg, "p2") == {"p2": "not-applied"}
    before = core.read_bytes()
    r = radpatch("--registry", str(reg), "apply", "p2")
    assert "Traceback" not in r.err
    if edit == "code edit in another function" and when == "between":
        # someone's code edit after radpatch patched the file: p, the requirement, reads drifted, and
        # nothing is put on a drifted requirement (as for any such edit)
        assert r.code == 1 and "drifted" in r.err, r.out + r.err
        assert core.read_bytes() == before
        return
    assert r.code == 0 and "p2: already applied" not in r.out + r.err, r.out + r.err
    assert _run(core) == 2  # each entry's increment, once
    assert ("return 2" in core.read_text()) == (edit == "code edit in another function")
    r = radpatch("--registry", str(reg), "status", "--check", "p", "p2")
    assert r.code == 0 and "no record" not in r.out + r.err, r.out + r.err
