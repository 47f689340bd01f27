"""An entry whose `requires:` names an entry that only another registry holds (an import made on
an install patched from that registry writes such an entry, att49 #3): refused at the entry's file
and key, naming the missing entry, with a hint that leads somewhere: giving that registry too
loads the whole chain. A name no registry holds keeps the same words, and giving every registry
does not hide it."""

from __future__ import annotations

from pathlib import Path

import pytest

from radpatch.errors import RegistryError
from radpatch.registry import series
from radpatch.registry.catalog import Registry
from tests.lib.generated import sample
from tests.lib.registry import LIMIT_ENTRY, write_entry

DEPTH = 4


def _chain(tmp_path: Path, depth: int, split: int) -> tuple[Path, Path]:
    """c1 <- c2 <- ... <- c{depth}: c1..c{split} in registry `low`, the rest in `high`."""
    low, high = tmp_path / "low", tmp_path / "high"
    for i in range(1, depth + 1):
        requires = f"requires: [c{i - 1}]\n" if i > 1 else ""
        write_entry(low if i <= split else high, f"c{i}", LIMIT_ENTRY + requires)
    return low, high


@pytest.mark.parametrize(("depth", "split"), sample([(d, s) for d in range(2, DEPTH + 1) for s in range(1, d)]))
def test_the_hint_names_the_registry_to_give_and_following_it_loads(tmp_path: Path, depth: int, split: int) -> None:
    low, high = _chain(tmp_path, depth, split)
    alone = Registry.discover((str(high),))
    top = alone.load(f"c{depth}")
    with pytest.raises(RegistryError) as caught:
        series.with_requirements([top], alone.load)
    message, hint = caught.value.message, caught.value.hint
    missing = f"c{split}"
    assert message.startswith(f"{high / f'c{split + 1}.yaml'}: requires: {missing!r}"), message
    assert f"holds {missing}" in hint and "--registry" in hint, hint
    both = Registry.discover((str(high), str(low)))  # what the hint says: give that registry too
    chain = series.with_requirements([both.load(f"c{depth}")], both.load)
    assert [p.name for p in chain] == [f"c{i}" for i in range(1, depth + 1)]


def test_an_invalid_required_entry_still_says_to_fix_its_file(tmp_path: Path) -> None:
    low, high = _chain(tmp_path, 2, 1)
    (low / "c1.yaml").write_text("summary: [\n")
    reg = Registry.discover((str(high), str(low)))
    with pytest.raises(RegistryError) as caught:
        series.with_requirements([reg.load("c2")], reg.load)
    assert "fix the registry file(s) above" in caught.value.hint
