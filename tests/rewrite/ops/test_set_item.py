"""set_item: one entry of a dict literal bound to a name, added or changed as its own rewrite.

Literal sources run through plan.plan as apply does (the proof, the structural inverse); the
inverse is byte-identical in every layout the tests write; each refusal names where and what to
write instead. Also loaded from YAML, as a registry writes it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from radpatch.registry.loader import load_patch
from radpatch.rewrite.ops import OPERATIONS
from radpatch.rewrite.ops.set_item import SetItem
from tests.lib.registry import entry_head, write_entry
from tests.lib.rewrites import check, refuse

REGISTRY = """\
_MODELS = {
    # decoder-only
    "LlamaForCausalLM": ("llama", "LlamaForCausalLM"),
    "MistralForCausalLM": ("llama", "LlamaForCausalLM"),  # same code
}

_VLLM = {**_MODELS}
"""


def add(key: str, value: str, name: str = "_MODELS", scope: str = "<module>") -> SetItem:
    return SetItem(scope=scope, name=name, key=key, value=value)


def test_found_by_the_operations_table() -> None:
    assert OPERATIONS["set_item"] is SetItem


def test_added_as_the_last_item_one_per_line() -> None:
    check(
        REGISTRY,
        add('"MyForCausalLM"', '("my", "MyForCausalLM")'),
        """\
        _MODELS = {
            # decoder-only
            "LlamaForCausalLM": ("llama", "LlamaForCausalLM"),
            "MistralForCausalLM": ("llama", "LlamaForCausalLM"),  # same code
            "MyForCausalLM": ("my", "MyForCausalLM"),
        }

        _VLLM = {**_MODELS}
        """,
    )


def test_two_entries_added_in_order() -> None:
    check(
        "D = {'a': 1, 'b': 2}\n",
        (add("'c'", "3", "D"), add("'d'", "4", "D")),
        "D = {'a': 1, 'b': 2, 'c': 3, 'd': 4}\n",
    )


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("D = {}\n", "D = {'k': 0}\n"),
        ("D = {'a': 1,}\n", "D = {'a': 1, 'k': 0,}\n"),
        ("D = {'a': 1,\n     'b': 2}\n", "D = {'a': 1,\n     'b': 2,\n     'k': 0}\n"),
        ("D = {\n    'a': 1\n}\n", "D = {\n    'a': 1,\n    'k': 0\n}\n"),
        ("D = {\n    'a': 1,\n    # 'old': 9,\n}\n", "D = {\n    'a': 1,\n    # 'old': 9,\n    'k': 0,\n}\n"),
        ("D: dict[str, int] = {\n    'a': 1,\n}\n", "D: dict[str, int] = {\n    'a': 1,\n    'k': 0,\n}\n"),
    ],
)
def test_layouts_kept_and_undone_byte_for_byte(before: str, after: str) -> None:
    check(before, add("'k'", "0", "D"), after)


def test_in_a_class_body() -> None:
    check(
        """\
        class Registry:
            PARSERS = {
                "deepseek_r1": "DeepSeekR1ReasoningParser",
            }
        """,
        add('"mine"', '"MyParser"', "PARSERS", scope="Registry"),
        """\
        class Registry:
            PARSERS = {
                "deepseek_r1": "DeepSeekR1ReasoningParser",
                "mine": "MyParser",
            }
        """,
    )


def test_changed_value_keeps_its_line() -> None:
    op = SetItem(
        scope="<module>",
        name="_MODELS",
        key="'MistralForCausalLM'",
        from_='("llama", "LlamaForCausalLM")',
        value='("mistral", "MistralForCausalLM")',
    )
    check(
        REGISTRY,
        op,
        REGISTRY.replace(
            '"MistralForCausalLM": ("llama", "LlamaForCausalLM"),',
            '"MistralForCausalLM": ("mistral", "MistralForCausalLM"),',
        ),
    )


def test_added_entry_survives_an_upstream_entry() -> None:
    """The point of it: a release that adds another key still takes the rewrite."""
    upstream = REGISTRY.replace("}\n\n", '    "QwenForCausalLM": ("qwen", "QwenForCausalLM"),\n}\n\n', 1)
    op = add('"MyForCausalLM"', '("my", "MyForCausalLM")')
    check(
        upstream,
        op,
        upstream.replace("}\n\n", '    "MyForCausalLM": ("my", "MyForCausalLM"),\n}\n\n', 1),
    )


def test_refused_when_the_key_is_there() -> None:
    got = refuse(REGISTRY, add("'LlamaForCausalLM'", "None"))
    assert "_MODELS (line 1) has the key 'LlamaForCausalLM' already" in got.message
    assert "`from:`" in got.hint


def test_refused_when_from_is_not_the_value() -> None:
    op = SetItem(scope="<module>", name="_MODELS", key="'LlamaForCausalLM'", from_="1", value="2")
    got = refuse(REGISTRY, op)
    assert 'the key \'LlamaForCausalLM\' has the value ("llama", "LlamaForCausalLM"), not 1' in got.message
    assert "fix `from:`" in got.hint


def test_refused_when_the_key_is_missing_for_from() -> None:
    op = SetItem(scope="<module>", name="_MODELS", key="'Nope'", from_="1", value="2")
    assert "_MODELS (line 1) has no key 'Nope'" in refuse(REGISTRY, op).message


def test_refused_when_not_a_dict_literal() -> None:
    got = refuse("D = dict(a=1)\n", add("'k'", "0", "D"))
    assert "line 1 binds D but not as `D = {...}`" in got.message
    assert "`replace`" in got.hint


def test_refused_when_bound_twice() -> None:
    got = refuse("D = {'a': 1}\nif X:\n    D = {'b': 2}\n", add("'k'", "0", "D"))
    assert "binds D 2 times (lines 1, 3)" in got.message
    assert "`replace`" in got.hint


def test_refused_when_the_name_is_not_bound() -> None:
    assert "the module does not bind E" in refuse("D = {}\n", add("'k'", "0", "E")).message


def test_undo_refused_when_the_entry_changed(tmp_path: Path) -> None:
    from radpatch.rewrite.matching import NotUndoable
    from radpatch.rewrite.source import Source

    op = add("'k'", "0", "D")
    with pytest.raises(NotUndoable, match="the key 'k' has the value 1, not 0"):
        op.inverse(Source.parse("D = {'k': 1}\n"))


def test_loaded_from_yaml(tmp_path: Path) -> None:
    head = entry_head("add a model", "toypkg", {"reg": "toypkg.registry"})
    entry = write_entry(
        tmp_path,
        "mine",
        head
        + "  - set_item:\n"
        + "      scope: <module>\n"
        + "      name: _MODELS\n"
        + "      key: '\"MyForCausalLM\"'\n"
        + '      value: \'("my", "MyForCausalLM")\'\n',
        dedent=False,
    )
    op = load_patch(entry).rewrites[0].op
    assert op == add('"MyForCausalLM"', '("my", "MyForCausalLM")')
    assert ast.literal_eval(op.key) == "MyForCausalLM"


def after(key: str, value: str, prev: str, name: str = "D") -> SetItem:
    return SetItem(scope="<module>", name=name, key=key, value=value, after=prev)


def test_added_after_a_key_in_the_middle_one_per_line() -> None:
    """vLLM's registry tables are alphabetical: the new entry goes after the key it follows, the
    comment on that key's line stays on it, the comment before the next key stays before that one."""
    check(
        REGISTRY.replace('    "Mistral', '    # mistral family\n    "Mistral'),
        after('"LlavaForCausalLM"', '("llava", "LlavaForCausalLM")', "'LlamaForCausalLM'", "_MODELS"),
        """\
        _MODELS = {
            # decoder-only
            "LlamaForCausalLM": ("llama", "LlamaForCausalLM"),
            "LlavaForCausalLM": ("llava", "LlavaForCausalLM"),
            # mistral family
            "MistralForCausalLM": ("llama", "LlamaForCausalLM"),  # same code
        }

        _VLLM = {**_MODELS}
        """,
    )


@pytest.mark.parametrize(
    ("before", "prev", "patched"),
    [
        ("D = {'a': 1, 'b': 2}\n", "'a'", "D = {'a': 1, 'k': 0, 'b': 2}\n"),
        ("D = {'a': 1,  'b': 2,}\n", '"a"', "D = {'a': 1,  'k': 0,  'b': 2,}\n"),
        ("D = {'a': 1,  # one\n     'b': 2}\n", "'a'", "D = {'a': 1,  # one\n     'k': 0,\n     'b': 2}\n"),
        (
            "D = {\n    'a': 1,  # one\n    'b': 2,\n}\n",
            "'b'",
            "D = {\n    'a': 1,  # one\n    'b': 2,\n    'k': 0,\n}\n",
        ),
        (
            "D = {\n    'a': 1,\n\n    # B\n    'b': 2\n}\n",
            "'a'",
            "D = {\n    'a': 1,\n    'k': 0,\n\n    # B\n    'b': 2\n}\n",
        ),
        ("D = {**E, 'a': 1, 'b': 2}\n", "'a'", "D = {**E, 'a': 1, 'k': 0, 'b': 2}\n"),
    ],
)
def test_after_layouts_kept_and_undone_byte_for_byte(before: str, prev: str, patched: str) -> None:
    check(before, after("'k'", "0", prev), patched)


def test_entries_added_after_one_another() -> None:
    check(
        "D = {'a': 1, 'z': 2}\n",
        (after("'b'", "3", "'a'"), after("'c'", "4", "'b'")),
        "D = {'a': 1, 'b': 3, 'c': 4, 'z': 2}\n",
    )


def test_refused_when_the_after_key_is_missing() -> None:
    got = refuse(REGISTRY, after("'K'", "0", "'Nope'", "_MODELS"))
    assert got.message.count("\n") == 0
    assert "_MODELS (line 1) has no key 'Nope' (`after:` of the new key 'K')" in got.message
    assert "fix `after:`" in got.hint


def test_refused_when_after_and_from_are_both_given() -> None:
    op = SetItem(scope="<module>", name="D", key="'a'", from_="1", value="2", after="'b'")
    assert "gives both `from:` and `after:`" in refuse("D = {'a': 1, 'b': 2}\n", op).message


def test_after_loaded_from_yaml(tmp_path: Path) -> None:
    head = entry_head("add a model", "toypkg", {"reg": "toypkg.registry"})
    body = (
        "  - set_item:\n      scope: <module>\n      name: D\n"
        + "      key: \"'k'\"\n      value: 0\n      after: \"'a'\"\n"
    )
    op = load_patch(write_entry(tmp_path, "mine", head + body, dedent=False)).rewrites[0].op
    assert op == after("'k'", "0", "'a'")
