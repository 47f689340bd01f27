"""A payload read again (the loader keeps the trees of payloads it parsed and found within the depth
bound, by their bytes: registry/loader/operations._checked) is judged as the first read judged it:
each bad payload refused by every load, with its own file's name, whatever was loaded before it; a
good payload accepted by every load, and its entry's refusal (a top-level statement, a name defined
twice) naming the file of the entry being loaded, not the one first read with the same bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from radpatch.registry.loader import load_patch
from tests.lib.generated import sample
from tests.lib.registry import TOY_ENTRY as VALID
from tests.lib.registry import TOY_PAYLOAD as GOOD
from tests.lib.registry import load_problems as problems
from tests.lib.registry import write_toy as write

# a bad payload -> words its refusal holds (the loader's own checks, then the operation's read)
BAD = {
    "syntax": ("def f(:\n    pass\n", "does not parse"),
    "deep": ("X = " + "(" * 150 + "1" + ")" * 150 + "\n\n\ndef g():\n    return " + "-" * 300 + "1\n", "nested"),
    "statement": ('"""p"""\n\nprint(1)\n', "top-level Expr statement"),
    "twice": ("def h():\n    pass\n\n\ndef h():\n    pass\n", "defined twice"),
}
ORDERS = ["good-then-bad", "bad-then-good", "bad-twice"]
CASES = sample([(b, o) for b in BAD for o in ORDERS])


def _refused(entry: Path, bad: str) -> None:
    payload = entry.parent / "payload.py"
    found = problems(entry)
    assert any(BAD[bad][1] in p and str(payload.resolve()) in p for p in found), (bad, found)


@pytest.mark.parametrize(("bad", "order"), CASES, ids=[f"{b}-{o}" for b, o in CASES])
def test_a_payload_read_again_is_judged_as_read_first(bad: str, order: str, tmp_path: Path) -> None:
    text = BAD[bad][0]
    if order == "good-then-bad":
        one = write(tmp_path / "one", VALID, payload=GOOD)
        assert load_patch(one).rewrites and load_patch(one).rewrites
        one.parent.joinpath("payload.py").write_text(text)  # the same file, now bad: refused
        _refused(one, bad)
        one.parent.joinpath("payload.py").write_text(GOOD)
        assert load_patch(one).rewrites
    elif order == "bad-then-good":
        _refused(write(tmp_path / "one", VALID, payload=text), bad)
        assert load_patch(write(tmp_path / "two", VALID, payload=GOOD)).rewrites
        _refused(write(tmp_path / "three", VALID, payload=text), bad)
    else:  # the same bad bytes in two entries: each refusal names its own payload
        _refused(write(tmp_path / "one", VALID, payload=text), bad)
        _refused(write(tmp_path / "two", VALID, payload=text), bad)
        _refused(write(tmp_path / "one", VALID, payload=text), bad)
