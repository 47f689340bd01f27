"""A call-form rewrite (add_element, set_item with `call:`) and another entry's rewrite that writes a
call it may pick, or replaces the display itself (ovl44; the generated family, with the rewrite
runner's two orders as the oracle, is tests/prove/overlaps/test_overlap_call_written.py). With no
`requires:` between them apply refuses the two naming both, and `list` and `verify` report the
overlap in the same words; ordered by `requires:`, the stack applies (B on the call A writes), `verify`
proves B on A's written code, and `list` reports the pair as ordered. A pair whose two orders write
the same code on the file is not reported, and applies."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.overlaps import CALL_OPS, CALL_WRITTEN_OTHERS, CALL_WRITTEN_SRCS, one_rewrite, refused_overlap
from tests.lib.site import Site

# (module, call-form rewrite, pick, the other rewrite, do they overlap on that module)
CASES = [
    ("call only written", "add_element keyword", "", "replace writes the call", True),
    ("call there", "add_element keyword", "", "insert writes the call", True),
    ("call there", "add_element positional", ", occurrence: 2", "replace writes the call", True),
    ("call there", "set_item keyword", "", "replace the dict display", True),
    ("call assigned", "add_element keyword", "", "replace the second list display", True),
    ("call there", "add_element keyword", ", occurrence: 1", "replace writes the call", False),
    ("call there", "add_element keyword", "", "writes no such argument", False),
]


@pytest.mark.parametrize(("case", "flip"), sample(list(itertools.product(CASES, (False, True)))), ids=str)
def test_list_verify_and_apply_agree_on_a_call_form_rewrite_and_what_writes_or_is_its_display(
    case: tuple[str, str, str, str, bool],
    flip: bool,
    site: Site,
    radpatch: Any,
    write_registry: Any,
    toy_release: Callable[..., None],
) -> None:
    src, op, pick, other, overlap = case
    toy_release(CALL_WRITTEN_SRCS[src])
    write_registry("a", one_rewrite("a", CALL_OPS[op][0] + pick + "}"))
    reg = str(write_registry("b", one_rewrite("b", CALL_WRITTEN_OTHERS[other])))
    before = site.snapshot()
    r = radpatch("--registry", reg, "apply", *(("b", "a") if flip else ("a", "b")))
    # verify first: `list` reads the release's file from verify's cache (without it, it says "may")
    reports = [radpatch("--registry", reg, *argv) for argv in (("verify", "--all"), ("verify", "a"), ("list",))]
    said = [[ln.split("overlap: ", 1)[1] for ln in x.out.splitlines() if "overlap: " in ln] for x in reports]
    if not overlap:
        assert r.code == 0, r.out + r.err
        assert said == [[], [], []], said
        return
    assert r.code != 0 and site.snapshot() == before, r.out + r.err
    assert " overlap: " in r.err and "requires: [" in r.err, r.err
    what = refused_overlap(r.err)
    for lines in said:
        assert [ln.split(" both ", 1)[1] for ln in lines] == [what], said


@pytest.mark.parametrize("flip", [False, True])
def test_an_ordered_stack_applies_and_verify_proves_it_on_the_written_call(
    flip: bool,
    site: Site,
    radpatch: Any,
    write_registry: Any,
    toy_release: Callable[..., None],
) -> None:
    """B's add_element picks a call only A's `replace` writes; B `requires: [a]`."""
    toy_release(CALL_WRITTEN_SRCS["call only written"])
    write_registry("a", one_rewrite("a", CALL_WRITTEN_OTHERS["replace writes the call"]))
    reg = str(write_registry("b", one_rewrite("b", CALL_OPS["add_element keyword"][0] + "}", ("a",))))
    listed = radpatch("--registry", reg, "list")
    lines = [ln for ln in listed.out.splitlines() if "overlap: " in ln]
    assert len(lines) == 1 and "overlap: a (a) and b (b) both " in lines[0], listed.out
    assert "ordered by `requires:`" in lines[0], lines
    verified = radpatch("--registry", reg, "verify", "b")
    assert verified.code == 0, verified.out + verified.err
    r = radpatch("--registry", reg, "apply", *(("b", "a") if flip else ("a", "b")))
    assert r.code == 0, r.out + r.err
    core = (site.root / "toypkg/core.py").read_text()
    assert 'choices=["a", "q", "c"]' in core, core


@pytest.mark.parametrize("ordered", [False, True])
def test_a_stack_on_an_entry_applied_in_an_earlier_stage_is_judged_on_the_file_before_it(
    ordered: bool,
    site: Site,
    radpatch: Any,
    write_registry: Any,
    toy_release: Callable[..., None],
) -> None:
    """A (writes the call) applied first; then B (picks it) alone: refused naming both unless B
    `requires: [a]` (the file apply judges on is the one before A, as in one stage)."""
    toy_release(CALL_WRITTEN_SRCS["call only written"])
    write_registry("a", one_rewrite("a", CALL_WRITTEN_OTHERS["replace writes the call"]))
    requires = ("a",) if ordered else ()
    reg = str(write_registry("b", one_rewrite("b", CALL_OPS["add_element keyword"][0] + "}", requires)))
    assert radpatch("--registry", reg, "apply", "a").code == 0
    before = site.snapshot()
    r = radpatch("--registry", reg, "apply", "b")
    if ordered:
        assert r.code == 0, r.out + r.err
        return
    assert r.code != 0 and site.snapshot() == before, r.out + r.err
    assert "a (a) and b (b) both may change the same code" in r.err and "requires: [a]" in r.err, r.err


def test_a_stack_on_an_applied_entry_whose_registry_is_not_loaded_is_compared_with_its_record(
    site: Site,
    radpatch: Any,
    write_registry: Any,
    toy_release: Callable[..., None],
) -> None:
    """A later build stage: A applied from registry r1; B from r2 alone picks the call A wrote (B
    cannot name A in `requires:` without A's registry: the refusal says to pass it)."""
    toy_release(CALL_WRITTEN_SRCS["call only written"])
    r1 = str(write_registry("a", one_rewrite("a", CALL_WRITTEN_OTHERS["replace writes the call"]), dirname="r1"))
    r2 = str(write_registry("b", one_rewrite("b", CALL_OPS["add_element keyword"][0] + "}"), dirname="r2"))
    assert radpatch("--registry", r1, "apply", "a").code == 0
    before = site.snapshot()
    r = radpatch("--registry", r2, "apply", "b")
    assert r.code != 0 and site.snapshot() == before, r.out + r.err
    assert "b and a overlap" in r.err and "requires: [a]" in r.err, r.err
