"""Issue 20: an imported rewrite covers the smallest statements that change, and where no narrower
operation says a change the import's note says why. Each shape is checked as data (the rewrites
chosen) and against the oracle: the entry, applied by the real engine to a module pip installed,
gives what GNU patch makes of the same diff (tests/lib/importing.imported_as_gnu_patch_gives)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from tests.lib.importing import PACKAGE, corpus_files, edit, imported_as_gnu_patch_gives


def _rewrites(entry: dict[str, object]) -> list[tuple[str, dict[str, object]]]:
    items = entry["rewrites"]
    assert isinstance(items, list)
    return [next((k, v) for k, v in item.items() if k not in ("id", "file")) for item in items]


@pytest.mark.wheel
@pytest.mark.parametrize("seed", range(6))
def test_generated_keyword_edits_of_real_modules_import_as_set_keyword(tmp_path: Path, seed: int) -> None:
    """Seeded keyword-value edits of stdlib modules (tests/lib/importing.edit): each entry changes
    them by set_keyword, and gives what GNU patch gives."""
    rng = random.Random(seed)
    module = rng.choice(("textwrap", "calendar", "configparser", "difflib"))
    before = corpus_files()[f"{PACKAGE}/std_{module}.py"].decode()
    after = before
    for k in range(rng.randint(1, 2)):
        after = edit(after, rng, seed * 10 + k, ("keyword",))
    assert after != before
    entry = imported_as_gnu_patch_gives(tmp_path, before, after)
    assert "set_keyword" in [op for op, _ in _rewrites(entry)]


THREADS = """\
from threading import Thread


def start(run, log):
    t = Thread(target=run, daemon=True)
    t.start()
    u = Thread(target=log, daemon=True)
    u.start()
    return t, u
"""


@pytest.mark.wheel
def test_a_keyword_argument_changes_by_set_keyword_counted_where_the_call_repeats(tmp_path: Path) -> None:
    after = THREADS.replace("target=log, daemon=True", "target=log, daemon=False")
    entry = imported_as_gnu_patch_gives(tmp_path, THREADS, after)
    assert _rewrites(entry) == [
        (
            "set_keyword",
            {"scope": "start", "call": "Thread", "keyword": "daemon", "from": "True", "to": "False", "occurrence": 2},
        )
    ]


def test_a_keyword_argument_of_one_call_needs_no_occurrence() -> None:
    before = "def start(run):\n    return Thread(target=run, daemon=True).start()\n"
    found = rewrites(before, before.replace("daemon=True", "daemon=None"))
    assert [(s.op, dict(s.keys)) for s in found.steps] == [
        ("set_keyword", {"scope": "start", "call": "Thread", "keyword": "daemon", "from": "True", "to": "None"})
    ]
    assert not found.fallbacks


def test_two_keyword_arguments_of_one_call_are_two_set_keywords() -> None:
    before = "def start(run):\n    return Thread(target=run, daemon=True, name='a').start()\n"
    found = rewrites(before, before.replace("daemon=True, name='a'", "daemon=False, name='b'"))
    assert [(s.op, dict(s.keys)) for s in found.steps] == [
        ("set_keyword", {"scope": "start", "call": "Thread", "keyword": "daemon", "from": "True", "to": "False"}),
        ("set_keyword", {"scope": "start", "call": "Thread", "keyword": "name", "from": "'a'", "to": "'b'"}),
    ]


@pytest.mark.wheel
def test_a_keyword_added_to_one_of_two_calls_is_a_set_keyword_naming_the_call(tmp_path: Path) -> None:
    """The first call gains `daemon=True`, which the second passes already: one set_keyword by the call's
    occurrence (kw47; it was one `replace` of the whole call, with a note saying why)."""
    before = THREADS.replace("target=run, daemon=True", "target=run")
    entry = imported_as_gnu_patch_gives(tmp_path, before, THREADS)
    assert _rewrites(entry) == [
        (
            "set_keyword",
            {"scope": "start", "call": "Thread", "keyword": "daemon", "to": "True", "call_occurrence": 1},
        )
    ]


TWICE = """\
from typing import overload

from logging import debug as check, info as notify, warning as log


class C:
    @overload
    def get(self, k: int) -> int: ...
    @overload
    def get(self, k: str) -> str: ...
    def get(self, k):
        v = self.d[k]
        log(k)
        return v

    @property
    def size(self):
        return self._size

    @size.setter
    def size(self, value):
        check(value)
        self._size = value
"""


@pytest.mark.wheel
@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("log(k)", "log(k, 2)", ("replace", {"scope": "C.get", "find": "log(k)", "with": "log(k, 2)"})),
        (
            "check(value)",
            "check(value)\n        notify(value)",
            ("insert_after", {"scope": "C.size.setter", "find": "check(value)\n", "code": "notify(value)\n"}),
        ),
    ],
    ids=["overload-implementation", "property-setter"],
)
def test_a_line_of_a_method_defined_twice_is_scoped_to_the_one_definition(
    tmp_path: Path, old: str, new: str, expected: tuple[str, dict[str, object]]
) -> None:
    entry = imported_as_gnu_patch_gives(tmp_path, TWICE, TWICE.replace(old, new))
    assert _rewrites(entry) == [expected]


def test_an_overload_declaration_that_changes_is_replaced_whole_and_the_import_says_why() -> None:
    found = rewrites(TWICE, TWICE.replace("k: str) -> str", "k: bytes) -> str"))
    assert [s.op for s in found.steps] == ["replace"] and found.steps[0].get("scope") == "C"
    assert len(found.fallbacks) == 1 and "C.get" in found.fallbacks[0] and "@overload" in found.fallbacks[0]


MATCH = """\
def handle(cmd, log):
    match cmd:
        case "start":
            log("starting")
            return 1
        case "stop" if log:
            log("stopping")
            return 2
        case _:
            return 0
"""


@pytest.mark.wheel
@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "return 2\n",
            "return 2, 3\n",
            ("replace", {"scope": "handle", "find": "return 2\n", "with": "return 2, 3\n"}),
        ),
        (
            "            return 2\n",
            '            log("stopped")\n            return 2\n',
            ("insert_before", {"scope": "handle", "find": "return 2\n", "code": 'log("stopped")\n'}),
        ),
    ],
    ids=["changed-line", "inserted-line"],
)
def test_a_line_changed_in_one_case_is_said_inside_the_case_not_as_the_whole_match(
    tmp_path: Path, old: str, new: str, expected: tuple[str, dict[str, object]]
) -> None:
    entry = imported_as_gnu_patch_gives(tmp_path, MATCH, MATCH.replace(old, new))
    assert _rewrites(entry) == [expected]


def test_a_case_pattern_that_changes_its_value_replaces_that_value_only() -> None:
    found = rewrites(MATCH, MATCH.replace('case "stop"', 'case "halt"'))
    assert [(s.op, dict(s.keys)) for s in found.steps] == [
        ("replace", {"scope": "handle", "find": '"stop"', "with": '"halt"'})
    ]
    assert not found.fallbacks


def test_a_case_added_replaces_the_match_and_the_import_says_why() -> None:
    found = rewrites(
        MATCH, MATCH.replace("        case _:\n", '        case "pause":\n            return 3\n        case _:\n')
    )
    assert [s.op for s in found.steps] == ["replace"] and str(found.steps[0].get("find")).startswith("match cmd:")
    assert len(found.fallbacks) == 1 and "`match`" in found.fallbacks[0]
