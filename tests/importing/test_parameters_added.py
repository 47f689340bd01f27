"""Issue 20 (att20 F3): parameters a diff appends to a definition's signature. One parameter with a
default was an add_parameter; two or more (Emu3.5's vLLM 0.11.0 patch of inputs/data.py adds
`uncond_prompt_token_ids: Optional[list[int]] = None` and `uncond_prompt: Optional[str] = None`
to token_inputs) replaced the whole function, "signature change no operation expresses". Now each
is an add_parameter, in order. A parameter added before `*args` or `**kwargs`, which add_parameter
refuses (an existing call could bind differently), made the import refuse the patch ("the entry
import would write is refused by apply"); such a definition is replaced whole now, with its note.
Generated: how many x annotated or not x the definition's shape x what ends its parameters."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from tests.lib.generated import sample
from tests.lib.importing import assert_each_imported_as_gnu_patch

SHAPES = {  # the definition, `@` where its parameters end, `%` the body's use of the new ones
    "function": "def build(ids, prompt=None@):\n    out = {'ids': ids}\n    return out%\n",
    "method-multiline": (
        "class Proc:\n"
        "    def process(\n"
        "        self,\n"
        "        ids: list[int],\n"
        "        salt: str = 'x'@\n"
        "    ) -> dict:\n"
        "        return {'ids': ids, 'salt': salt}%\n"
    ),
    "async-one-line": "async def fetch(url, timeout=5@):\n    return url, timeout%\n",
}
TAILS = ("", "**kw", "*args")
COUNTS = (1, 2, 3)
ANNOTATED = (False, True)


def case(shape: str, count: int, annotated: bool, tail: str) -> tuple[str, str]:
    text = SHAPES[shape]
    multiline = shape == "method-multiline"
    sep = ",\n        " if multiline else ", "
    end = "," if multiline else ""
    names = [f"extra_{k}" for k in range(count)]
    new = [f"{n}: int | None = None" if annotated else f"{n}=None" for n in names]
    before = text.replace("@", (sep + tail + end) if tail else end).replace("%", "")
    after = text.replace("@", sep + sep.join(new + ([tail] if tail else [])) + end)
    use = " if " + " and ".join(f"{n} is None" for n in names) + " else None"
    after = after.replace("%", use)
    return before, after


CASES = sample(list(itertools.product(sorted(SHAPES), COUNTS, ANNOTATED, TAILS)))


@pytest.mark.parametrize(("shape", "count", "annotated", "tail"), CASES)
def test_appended_parameters_are_one_add_parameter_each(shape: str, count: int, annotated: bool, tail: str) -> None:
    before, after = case(shape, count, annotated, tail)
    found = rewrites(before, after)
    added = [dict(s.keys) for s in found.steps if s.op == "add_parameter"]
    if tail:  # add_parameter refuses a parameter before *args/**kwargs: the definition is replaced, said so
        assert not added and any("signature change" in n for n in found.fallbacks), (found.steps, found.fallbacks)
        return
    assert [a["name"] for a in added] == [f"extra_{k}" for k in range(count)], found.steps
    assert all(("annotation" in a) == annotated for a in added), added
    assert not any("signature change" in n for n in found.fallbacks), found.fallbacks


@pytest.mark.wheel
def test_appended_parameters_apply_as_gnu_patch_gives(tmp_path: Path) -> None:
    """Against the oracle: each case imported, applied by the engine, AST-equal to GNU patch's
    result, `status --check` 0, reverted to the installed bytes."""
    assert_each_imported_as_gnu_patch(tmp_path, [case(*c) for c in CASES], CASES)
