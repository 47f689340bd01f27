"""The proposals' rules as benchmarks/peers.py restates them, checked against the examples their
own descriptions give (fast: no vLLM; the plans' numbers are in the real-tier peers benchmark).

Each example is a claim of the cited pull request about its own rule; a rule that does not
reproduce it is mis-stated.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _load() -> ModuleType:
    sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location("peers", BENCH / "peers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["peers"] = module
    spec.loader.exec_module(module)
    return module


peers = _load()
FULL, SW, MAMBA = "FullAttentionSpec", "SlidingWindowSpec", "MambaSpec"


def buckets(sizes: list[int], kinds: list[str], costs: list[int] | None = None) -> object:
    costs = costs or [1] * len(sizes)
    return peers.Buckets(sizes, kinds, costs, peers.heuristic(sizes))


def test_upstream_heuristic() -> None:
    # vLLM's comment: gpt-oss-20b + eagle, 12 sw + 13 full -> 13; Gemma3 5:1 -> the "1"
    assert peers.heuristic([12, 13]) == 13
    assert peers.heuristic([50, 10]) == 10


def test_51742_leaves_one_layer_buckets_out_of_the_min() -> None:
    # "layers [30 mamba, 10 full, 5 sliding, 1 full] become 10 groups instead of 46"
    b = buckets([30, 10, 5, 1], [MAMBA, FULL, SW, FULL])
    g = peers.rule_51742(b)
    assert peers.groups(b, g) == 10 and peers.groups(b, 1) == 46
    # askliar's review: "[30, 10, 3, 2] ... gs=2, 15 + 5 + 2 + 1 = 23 groups and 1 padding"
    b = buckets([30, 10, 3, 2], [MAMBA, FULL, SW, SW])
    assert peers.rule_51742(b) == 2 and peers.groups(b, 2) == 23 and peers.padding(b, 2) == 1


def test_49472_alpha_1() -> None:
    # askliar on [30, 10, 3, 2]: "With the other PR, we arrive at gs=5, 6 + 2 + 1 + 1 = 10
    # groups and 5 padding"
    b = buckets([30, 10, 3, 2], [MAMBA, FULL, SW, SW])
    assert peers.rule_49472(b) == 5 and peers.padding(b, 5) == 5
    # #58175: "#49472's unweighted padding/group-count objective ... selects width 10" for
    # MiMo's 9 global, 39 sliding-window and 5 draft layers
    assert peers.rule_49472(buckets([9, 39, 5], [FULL, SW, SW])) == 10
    # Suppressor72 on #49472, Qwen3.8-27B + DFlash2 {48, 16, 5}: "this PR's pick of 8"
    assert peers.rule_49472(buckets([48, 16, 5], [MAMBA, FULL, SW])) == 8


def test_58175_largest_divisor_of_the_full_attention_counts() -> None:
    # "width 5 pads global attention to 10 layers ... selects 3 ... 18 groups instead of 11"
    b = buckets([9, 39, 5], [FULL, SW, SW])
    assert peers.heuristic(b.sizes) == 5 and peers.groups(b, 5) == 11
    assert peers.rule_58175(b) == 3 and peers.groups(b, 3) == 18


def test_1cat_343_singleton_gcd_within_20_percent_padding() -> None:
    # "[1, 12, 12, 12, 36] ... selected group_size=1, producing 73 cache groups"; the rule takes
    # the largest divisor of the others' gcd (12) whose padding stays within 20%
    b = buckets([1, 12, 12, 12, 36], [FULL, FULL, SW, MAMBA, MAMBA])
    assert peers.groups(b, 1) == 73
    assert peers.rule_1cat_343(b) == 12
    # "configurations without a singleton keep the current behavior"
    assert peers.rule_1cat_343(buckets([48, 16, 5], [MAMBA, FULL, SW])) == 5


@pytest.mark.parametrize(("sizes", "want"), [([25, 5], 5), ([24, 8], 8), ([6, 5], 6)])
def test_31275_examples(sizes: list[int], want: int) -> None:
    # "Clean ratios (25:5, 24:8) -> zero-padding grouping preserved; Eagle-type (6:5, n+1:n) ->
    # correctly pads minor layer type"
    assert peers.rule_31275(buckets(sizes, [SW, FULL])) == want


def test_603_caps_at_eight_groups_and_falls_back() -> None:
    b = buckets([48, 16, 5], [MAMBA, FULL, SW], [9, 160, 8])
    g = peers.rule_603(b)
    assert peers.groups(b, g) <= 8
    # nothing within eight groups: "keep the existing grouping as a fallback"
    many = buckets([9] * 10, [FULL] * 10)
    assert peers.rule_603(many) == many.upstream
