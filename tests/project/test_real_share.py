"""The real tier's shares (tests/lib/real_share.py) split it exactly: every real test is in one
share of each N, whatever the turn, so N consecutive commits run each once; and a bad setting is
said, not guessed."""

from __future__ import annotations

import pytest

from tests.lib.real_share import SHARE_ENV, in_share, real_share

IDS = [f"tests/flagship/test_kv_group_size.py::test_apply[0.{m}.{p}]" for m in range(10, 40) for p in range(3)] + [
    f"tests/importing/test_case_{i}.py::test_{j}" for i in range(40) for j in range(5)
]


@pytest.mark.parametrize("every", [2, 3, 5])
def test_every_real_test_is_in_exactly_one_share(every: int) -> None:
    for nodeid in IDS:
        assert sum(in_share(nodeid, (every, t)) for t in range(every)) == 1, nodeid
    sizes = [sum(in_share(n, (every, t)) for n in IDS) for t in range(every)]
    assert min(sizes) > len(IDS) // (2 * every), sizes  # no share is left (nearly) empty


def test_the_setting_is_read_and_a_bad_one_said() -> None:
    assert real_share({}) is None and real_share({SHARE_ENV: "1:0"}) is None
    assert real_share({SHARE_ENV: "3:4"}) == (3, 1)
    for bad in ("3", "x:1", "0:0", "3:-1"):
        with pytest.raises(ValueError, match=SHARE_ENV):
            real_share({SHARE_ENV: bad})
