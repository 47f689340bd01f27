"""Issue 20 (att20c F4): a parameter added with an annotation is an `add_parameter`, not the whole
definition; an edit in a definition that no scope name reaches (one per branch of an if/else) is
still replaced whole, and the import says why; one the module defines once inside a try/if block is
reached by name, as the engine's scope lookup reaches it, and gets the narrow rewrite."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from tests.lib.importing import imported_as_gnu_patch_give_each, imported_as_gnu_patch_gives

NETWORK = """\
def is_v6(ip: str) -> bool:
    return ":" in ip


def get_tcp_uri(ip: str, port: int) -> str:
    if is_v6(ip):
        return f"tcp://[{ip}]:{port}"
    else:
        return f"tcp://{ip}:{port}"
"""

CONDITIONAL = """\
import sys

if sys.platform == "linux":

    def round_int8(x):
        return x.round().to(8)

elif sys.platform == "win32":

    def round_int8(x):
        return x.floor().to(8)

else:

    def round_int8(x):
        return x.to(8)
"""


NETWORK_AFTER = NETWORK.replace(
    "def get_tcp_uri(ip: str, port: int) -> str:\n",
    'def get_tcp_uri(ip: str, port: int, scheme: str = "tcp") -> str:\n'
    '    if scheme != "tcp":\n'
    '        return f"{scheme}://{ip}:{port}"\n',
)
CONDITIONAL_AFTER = CONDITIONAL.replace("x.floor().to(8)", "x.floor().to(16)")
TOGETHER = [(NETWORK, NETWORK_AFTER), (CONDITIONAL, CONDITIONAL_AFTER)]


@pytest.fixture(scope="module")
def imported_together(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, object]]:
    """TOGETHER's cases imported, applied, checked and reverted in one pip-installed wheel (fewer
    processes); a case missing from it runs alone through imported_as_gnu_patch_gives."""
    return imported_as_gnu_patch_give_each(tmp_path_factory.mktemp("wide"), TOGETHER)


def _entry(tmp_path: Path, together: dict[int, dict[str, object]], case: tuple[str, str]) -> dict[str, object]:
    i = TOGETHER.index(case)
    return together[i] if i in together else imported_as_gnu_patch_gives(tmp_path, *case)


@pytest.mark.wheel
def test_an_annotated_parameter_with_a_default_is_add_parameter(
    tmp_path: Path, imported_together: dict[int, dict[str, object]]
) -> None:
    entry = _entry(tmp_path, imported_together, (NETWORK, NETWORK_AFTER))
    ops = entry["rewrites"]
    assert isinstance(ops, list)
    said = [(k, body) for op in ops for k, body in op.items() if isinstance(body, dict)]
    added = {"function": "get_tcp_uri", "name": "scheme", "default": '"tcp"', "annotation": "str"}
    assert ("add_parameter", added) in said, entry
    assert "signature change" not in str(entry["_stdout"])
    assert all(k != "replace" or body["scope"] == "get_tcp_uri" for k, body in said), ops


@pytest.mark.wheel
def test_the_edit_of_one_branch_s_definition_says_why_it_is_wide(
    tmp_path: Path, imported_together: dict[int, dict[str, object]]
) -> None:
    after = CONDITIONAL_AFTER
    found = rewrites(CONDITIONAL, after)
    assert [s.op for s in found.steps] == ["replace"]
    assert any(
        note.startswith("round_int8: defined inside an if/try/with block of <module>") for note in found.fallbacks
    ), found.fallbacks
    entry = _entry(tmp_path, imported_together, (CONDITIONAL, after))
    assert "round_int8: defined inside an if/try/with block" in str(entry["_stdout"]), entry["_stdout"]


def test_an_unannotated_parameter_stays_name_equals_default() -> None:
    before = "def f(a):\n    return a\n"
    after = "def f(a, b=None):\n    return a, b\n"
    found = rewrites(textwrap.dedent(before), textwrap.dedent(after))
    assert [(s.op, dict(s.keys)) for s in found.steps][0] == (
        "add_parameter",
        {"function": "f", "name": "b", "default": "None"},
    )


ONCE = """\
import sys

try:
    import fastpath
except ImportError:
    fastpath = None

    def scale(x):
        y = x + 1
        z = y * 2
        return z


if sys.platform != "win32":

    class Box:
        def get(self):
            limit = 1
            return limit
"""


@pytest.mark.wheel
@pytest.mark.parametrize(
    ("old", "new", "scope"),
    [("z = y * 2", "z = y * 3", "scale"), ("limit = 1", "limit = 2", "Box.get")],
)
def test_an_edit_in_a_definition_made_once_inside_a_block_is_scoped_to_it(
    tmp_path: Path, old: str, new: str, scope: str
) -> None:
    # the engine's scope lookup reaches a def the module makes once, inside try/if: no whole-block replace
    after = ONCE.replace(old, new)
    found = rewrites(ONCE, after)
    assert not found.fallbacks, found.fallbacks
    assert [(s.op, s.get("scope")) for s in found.steps] == [("replace", scope)], found.steps
    entry = imported_as_gnu_patch_gives(tmp_path, ONCE, after)
    assert "no scope name picks" not in str(entry["_stdout"]), entry["_stdout"]
    ops = entry["rewrites"]
    assert isinstance(ops, list) and len(ops) == 1, ops
    replace = ops[0]["replace"]
    assert replace["scope"] == scope and "def " not in replace["find"] and "try:" not in replace["find"], ops
