"""A keyword added to a call (set_keyword without `from:`) and a `replace` in another entry whose
`find` is that whole call, or the statement holding it (kw37, attack36): the added keyword's touch
has no value, and the overlap rules looked for a call passing the keyword already, which the call it
is added to never does, so `list`, `verify` and apply's check said nothing. Now a touch without a
value meets a `find` holding a call to the callee passing no such keyword.

Generated: the keyword added (`after:` or not) x what the other entry's `find` is (the call, the
statement, the call written in another layout, a call that passes the keyword already, another
callee, another scope): an overlap exactly where the `find` holds a call the keyword may be added to."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from packaging.version import Version

from radpatch.prove.overlaps import pairs
from tests.lib.generated import sample
from tests.lib.overlaps import write

ADDS = (
    '{scope: groups, call: plan, keyword: extra, to: "1"}',
    '{scope: groups, call: plan, keyword: extra, to: "(1, 2)", after: cfg}',
    '{scope: groups, call: plan, keyword: cfg2, to: "None", before: cfg}',
)
# the other entry's `find` (and its scope), and whether it holds the call the keyword goes to
FINDS = (
    ("groups", "plan(spec, cfg=None)", True),
    ("groups", "return plan(spec, cfg=None)", True),
    ("groups", "plan(spec,cfg = None)", True),
    ("groups", "plan(spec, cfg=None, extra=1, cfg2=None)", False),
    ("groups", "plan2(spec, cfg=None)", False),
    ("plan", "plan(spec, cfg=None)", False),
)
CASES = sample(list(itertools.product(ADDS, FINDS)))


@pytest.mark.parametrize(("add", "find"), CASES)
def test_a_keyword_added_meets_a_replace_of_its_call(tmp_path: Path, add: str, find: tuple[str, str, bool]) -> None:
    scope, code, meets = find
    kw = write(tmp_path, "kw", f"  - id: kw\n    set_keyword: {add}\n")
    replace = f'{{scope: {scope}, find: "{code}", with: "{code}  "}}'
    whole = write(tmp_path, "whole", f"  - id: whole\n    replace: {replace}\n")
    found = pairs.find([kw, whole], [Version("1.0")])
    if not meets:
        assert found == [], found
        return
    assert [(o.first, o.second) for o in found] == [("kw", "whole")], found
    assert "is inside the other's `find`" in found[0].what, found[0].what
