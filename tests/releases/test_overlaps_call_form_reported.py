"""A call-form rewrite (add_element with `call:`) and another entry's rewrite that holds its call
(elem43; the generated family of pairs is tests/prove/overlaps/test_overlaps_call_form.py): apply
refuses the two with no order between them, and `list` and `verify` report the overlap in the same
words, in both entry orders. Before, neither command said anything, and apply failed on the file.
`list` tries the orders on the installed release before verify has read it; with neither at hand (the
installed file edited by hand), it says the two may overlap, not tried on a release's file."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.overlaps import CALL_OPS, CALL_SRC, call_form_others, one_rewrite, refused_overlap
from tests.lib.site import Site

REPORTED = ("replace statement", "set_keyword", "same argument picked otherwise", "delete statement")


@pytest.mark.parametrize(("other", "flip"), sample(list(itertools.product(REPORTED, (False, True)))), ids=str)
def test_list_and_verify_report_what_apply_refuses_with_the_same_words(
    other: str,
    flip: bool,
    site: Site,
    radpatch: Any,
    write_registry: Any,
    toy_release: Callable[..., None],
) -> None:
    toy_release(CALL_SRC)
    yaml, argument = CALL_OPS["add_element keyword"]
    write_registry("a", one_rewrite("a", yaml + "}"))
    reg = str(write_registry("b", one_rewrite("b", call_form_others("add_element keyword", argument)[other])))
    before = site.snapshot()
    refused = radpatch("--registry", reg, "apply", *(("b", "a") if flip else ("a", "b")))
    assert refused.code != 0 and site.snapshot() == before, refused.out + refused.err
    assert " overlap: " in refused.err, refused.err
    what = refused_overlap(refused.err)
    core = site.root / "toypkg/core.py"
    installed = core.read_bytes()
    core.write_bytes(installed + b"# edited by hand\n")  # not the release's bytes, and verify has read no release
    unread = radpatch("--registry", reg, "list").out  # nothing to try the orders on
    core.write_bytes(installed)
    may = [line for line in unread.splitlines() if "overlap: " in line]
    assert [line.split(" both ", 1)[1].split("; not tried on a release's file", 1)[0] for line in may] == [what], unread
    assert may[0].startswith("may overlap: "), unread
    for argv in (("list",), ("verify", "--all"), ("verify", "a"), ("list",)):  # the installed release, then verify's
        r = radpatch("--registry", reg, *argv)
        lines = [line for line in r.out.splitlines() if "overlap: " in line]
        assert [line.split("overlap: ", 1)[1].split(" both ", 1)[1] for line in lines] == [what], (argv, r.out + r.err)
        assert lines[0].startswith("overlap: "), r.out
