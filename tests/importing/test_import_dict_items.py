"""Issue 20: a diff that adds or changes entries of a dict literal bound to a name (vLLM's model
registry, its parser tables) imports as one `set_item` per entry, not a `replace` of the whole
literal (an entry added in the middle, as vLLM's alphabetical tables take one, with `after:` the
key before it), so the entry survives a release that adds any other key. A removed entry, a reordering
or an entry added before the first stays a `replace`, with a one-line note saying why. Checked as
data (the steps chosen) and against GNU patch on the same diff (the real engine applies the
entry to a module pip installed: AST-equal, `status --check`, byte-identical revert), and on
vLLM 0.33.0's own model registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from tests.lib.importing import imported_as_gnu_patch_gives, pip_install
from tests.lib.wheels import build_wheel

TABLES = """\
import os

_MODELS = {
    # [Decoder-only]
    "LlamaForCausalLM": ("llama", "LlamaForCausalLM"),
    "MistralForCausalLM": ("llama", "LlamaForCausalLM"),  # same code
}

_VLLM = {**_MODELS}


class Parsers:
    TABLE: dict[str, str] = {"deepseek_r1": "DeepSeekR1ReasoningParser"}
"""
NEW_LINE = '    "MyForCausalLM": ("my", "MyForCausalLM"),\n}\n\n_VLLM'


def _ops(before: str, after: str) -> list[tuple[str, dict[str, object]]]:
    return [(s.op, dict(s.keys)) for s in rewrites(before, after).steps]


def test_an_added_entry_is_one_set_item() -> None:
    after = TABLES.replace("}\n\n_VLLM", NEW_LINE)
    assert _ops(TABLES, after) == [
        (
            "set_item",
            {"scope": "<module>", "name": "_MODELS", "key": '"MyForCausalLM"', "value": '("my", "MyForCausalLM")'},
        )
    ]


def test_a_changed_and_two_added_entries_are_one_set_item_each() -> None:
    after = TABLES.replace('("llama", "LlamaForCausalLM"),  # same', '("mistral", "MistralForCausalLM"),  # same')
    after = after.replace(
        '{"deepseek_r1": "DeepSeekR1ReasoningParser"}',
        '{"deepseek_r1": "DeepSeekR1ReasoningParser", "mine": "MyParser", "yours": "YourParser"}',
    )
    assert _ops(TABLES, after) == [
        (
            "set_item",
            {
                "scope": "<module>",
                "name": "_MODELS",
                "key": '"MistralForCausalLM"',
                "from": '("llama", "LlamaForCausalLM")',
                "value": '("mistral", "MistralForCausalLM")',
            },
        ),
        ("set_item", {"scope": "Parsers", "name": "TABLE", "key": '"mine"', "value": '"MyParser"'}),
        ("set_item", {"scope": "Parsers", "name": "TABLE", "key": '"yours"', "value": '"YourParser"'}),
    ]


MIDDLE = '    "LlavaForCausalLM": ("llava", "LlavaForCausalLM"),\n    "MistralForCausalLM"'


def test_an_entry_added_in_the_middle_is_set_item_after_the_key_before() -> None:
    after = TABLES.replace('    "MistralForCausalLM"', MIDDLE)
    assert _ops(TABLES, after) == [
        (
            "set_item",
            {
                "scope": "<module>",
                "name": "_MODELS",
                "key": '"LlavaForCausalLM"',
                "value": '("llava", "LlavaForCausalLM")',
                "after": '"LlamaForCausalLM"',
            },
        )
    ]


def test_entries_added_in_a_row_and_at_the_end_follow_one_another() -> None:
    before = "D = {'a': 1, 'z': 2}\n"
    after = "D = {'a': 1, 'b': 3, 'c': 4, 'z': 2, 'zz': 5}\n"
    assert _ops(before, after) == [
        ("set_item", {"scope": "<module>", "name": "D", "key": "'b'", "value": "3", "after": "'a'"}),
        ("set_item", {"scope": "<module>", "name": "D", "key": "'c'", "value": "4", "after": "'b'"}),
        ("set_item", {"scope": "<module>", "name": "D", "key": "'zz'", "value": "5"}),
    ]


@pytest.mark.parametrize(
    ("after", "why"),
    [
        (TABLES.replace('    "MistralForCausalLM": ("llama", "LlamaForCausalLM"),  # same code\n', ""), "removed"),
    ],
)
def test_a_removed_entry_stays_a_replace_with_a_note(after: str, why: str) -> None:
    found = rewrites(TABLES, after)
    assert [s.op for s in found.steps] == ["replace"]
    assert len(found.fallbacks) == 1 and "_MODELS's dict literal" in found.fallbacks[0] and why in found.fallbacks[0]


def test_a_literal_with_a_double_star_item_is_said_by_entry() -> None:
    before = TABLES.replace("_VLLM = {**_MODELS}", '_VLLM = {\n    **_MODELS,\n    "X": 1,\n}')
    after = before.replace('"X": 1,', '"X": 2,\n    "Y": 3,')
    assert _ops(before, after) == [
        ("set_item", {"scope": "<module>", "name": "_VLLM", "key": '"X"', "from": "1", "value": "2"}),
        ("set_item", {"scope": "<module>", "name": "_VLLM", "key": '"Y"', "value": "3"}),
    ]
    found = rewrites(before, after.replace('    "Y": 3,', "    **os.environ,"))
    assert "a `**` item is added" in found.fallbacks[0]


def test_an_entry_added_right_after_a_double_star_item_stays_a_replace() -> None:
    table = '{"deepseek_r1": "DeepSeekR1ReasoningParser"}'
    before = TABLES.replace(table, '{"A": "a", **os.environ, "X": "x"}')
    found = rewrites(before, before.replace("**os.environ, ", '**os.environ, "W": "w", '))
    assert [s.op for s in found.steps] == ["replace"]
    assert "TABLE's dict literal: an entry is added right after a `**` item" in found.fallbacks[0]
    after = before.replace('"A": "a", ', '"A": "a", "B": "b", ')  # after a key, before the `**` item: by entry
    assert _ops(before, after) == [
        ("set_item", {"scope": "Parsers", "name": "TABLE", "key": '"B"', "value": '"b"', "after": '"A"'})
    ]


def test_a_name_bound_twice_is_not_said_by_entry() -> None:
    before = TABLES + "\nif os.environ.get('X'):\n    _MODELS = {}\n"
    after = before.replace("}\n\n_VLLM", NEW_LINE)
    assert "set_item" not in [op for op, _ in _ops(before, after)]


@pytest.mark.wheel
def test_added_and_changed_entries_apply_like_gnu_patch(tmp_path: Path) -> None:
    after = TABLES.replace("}\n\n_VLLM", NEW_LINE).replace('"deepseek_r1": "DeepSeekR1', '"deepseek_r1": "Better')
    entry = imported_as_gnu_patch_gives(tmp_path, TABLES, after)
    items = entry["rewrites"]
    assert isinstance(items, list)
    assert [next(k for k in item if k not in ("id", "file")) for item in items] == ["set_item", "set_item"]


@pytest.mark.wheel
def test_an_entry_added_in_the_middle_applies_like_gnu_patch(tmp_path: Path) -> None:
    """The new line sits between two keys, under a comment line before the next: GNU patch and the
    engine give the same module, and the revert gives back the original bytes."""
    before = TABLES.replace('    "MistralForCausalLM"', '    # Mistral\n    "MistralForCausalLM"')
    after = before.replace("    # Mistral\n", '    "LlavaForCausalLM": ("llava", "LlavaForCausalLM"),\n    # Mistral\n')
    entry = imported_as_gnu_patch_gives(tmp_path, before, after)
    items = entry["rewrites"]
    assert isinstance(items, list) and len(items) == 1
    assert items[0]["set_item"]["after"] == '"LlamaForCausalLM"'


@pytest.mark.wheel
def test_a_hand_added_entry_is_captured_as_set_item(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path / "w", "rpdict", "1.0.0", {"rpdict/__init__.py": "", "rpdict/reg.py": TABLES})
    venv = pip_install(tmp_path / "venv", wheel)
    edited = TABLES.replace("}\n\n_VLLM", NEW_LINE).replace('    "MistralForCausalLM"', MIDDLE)
    (venv.site / "rpdict" / "reg.py").write_text(edited)
    r = venv.radpatch("capture", "mine", "--distribution", "rpdict", "--wheel", str(wheel), "--dry-run")
    assert r.returncode == 0, r.stderr
    assert "set_item:" in r.stdout and "replace:" not in r.stdout, r.stdout
    assert "name: _MODELS" in r.stdout and "MyForCausalLM" in r.stdout, r.stdout
    assert r.stdout.count("set_item:") == 2 and "after: '\"LlamaForCausalLM\"'" in r.stdout, r.stdout


def _real_registry() -> str:
    """vLLM 0.33.0's models/registry.py, read only (each test installs a copy in a wheel of its own)."""
    release = Path.home() / ".cache/radpatch/harness/releases/0.33.0-py311/lib/python3.11/site-packages"
    source = release / "vllm/model_executor/models/registry.py"
    if not source.is_file():
        pytest.skip("vLLM 0.33.0 is not provisioned (harness/vllm_cpu.py)")
    return source.read_text()


@pytest.mark.real
def test_an_architecture_added_to_vllm_0_33_registry_applies_like_gnu_patch(tmp_path: Path) -> None:
    before = _real_registry()
    last = '    "Zamba2ForCausalLM": ("zamba2", "Zamba2ForCausalLM"),\n}\n'
    assert before.count(last) == 1
    added = '    "MyHybridForCausalLM": ("my_hybrid", "MyHybridForCausalLM"),\n'
    after = before.replace(last, last[:-2] + added + "}\n")
    entry = imported_as_gnu_patch_gives(tmp_path, before, after)
    items = entry["rewrites"]
    assert isinstance(items, list) and len(items) == 1
    assert items[0]["set_item"] == {
        "scope": "<module>",
        "name": "_TEXT_GENERATION_MODELS",
        "key": '"MyHybridForCausalLM"',
        "value": '("my_hybrid", "MyHybridForCausalLM")',
    }


@pytest.mark.real
def test_an_architecture_added_alphabetically_to_vllm_0_33_registry_applies_like_gnu_patch(tmp_path: Path) -> None:
    """The usual case: the new architecture goes where the alphabet puts it, above a comment line."""
    before = _real_registry()
    there = '    "Llama4ForCausalLM": ("llama4", "Llama4ForCausalLM"),\n    # For decapoda-research/llama-*\n'
    assert before.count(there) == 1
    added = '    "Llama5ForCausalLM": ("llama5", "Llama5ForCausalLM"),\n'
    after = before.replace(there, there.replace("    # For", added + "    # For"))
    entry = imported_as_gnu_patch_gives(tmp_path, before, after)
    items = entry["rewrites"]
    assert isinstance(items, list) and len(items) == 1
    assert items[0]["set_item"] == {
        "scope": "<module>",
        "name": "_TEXT_GENERATION_MODELS",
        "key": '"Llama5ForCausalLM"',
        "value": '("llama5", "Llama5ForCausalLM")',
        "after": '"Llama4ForCausalLM"',
    }


@pytest.mark.real
def test_entries_across_vllm_0_33_tables_apply_like_gnu_patch(tmp_path: Path) -> None:
    """One patch: an entry added to two tables and a value changed in a third, each its own set_item."""
    before = _real_registry()
    edits = (
        ('    "Qwen2ForProcessRewardModel": ("qwen2_rm", "Qwen2ForProcessRewardModel"),\n}\n', "reward"),
        ('    "KimiK3MTPModel": ("vllm.models.kimi_k3", "KimiK3MTP"),\n}\n', "mtp"),
    )
    after = before
    for last, tag in edits:
        assert after.count(last) == 1
        after = after.replace(last, last[:-2] + f'    "My{tag}": ("my_{tag}", "My{tag}"),\n}}\n')
    changed = '"BertModel": ("bert", "BertEmbeddingModel"),'
    assert after.count(changed) == 1
    after = after.replace(changed, '"BertModel": ("my_bert", "BertEmbeddingModel"),')
    entry = imported_as_gnu_patch_gives(tmp_path, before, after)
    items = entry["rewrites"]
    assert isinstance(items, list)
    got = [(item["set_item"]["name"], item["set_item"].get("from")) for item in items]
    assert got == [
        ("_EMBEDDING_MODELS", '("bert", "BertEmbeddingModel")'),
        ("_REWARD_MODELS", None),
        ("_SPECULATIVE_DECODING_MODELS", None),
    ]


@pytest.mark.real
def test_an_argument_added_to_vllm_0_33_subprocess_command_imports_as_a_replace_like_gnu_patch(tmp_path: Path) -> None:
    """The list is handed to `subprocess.run` (registry.py:1608), whose result keeps it (`.args`): apply's
    proof of an add_element refuses it, so the import replaces the literal instead, saying why, and apply
    gives GNU patch's code (before the import fallback, the whole import was refused)."""
    before = _real_registry()
    line = '_SUBPROCESS_COMMAND = [sys.executable, "-m", "vllm.model_executor.models.registry"]\n'
    assert before.count(line) == 1 and "subprocess.run(\n            _SUBPROCESS_COMMAND," in before
    after = before.replace(line, line.replace('registry"]', 'registry", "--probe"]'))
    entry = imported_as_gnu_patch_gives(tmp_path, before, after)
    items = entry["rewrites"]
    assert isinstance(items, list) and len(items) == 1 and "replace" in items[0], items
    assert "_SUBPROCESS_COMMAND is passed to subprocess.run" in str(entry), entry


HANDED = "import other\n\nFLAGS = ['a']\nCFG = {'a': 1}\nother.use(NAME)\n"


@pytest.mark.parametrize(
    ("name", "edit"), [("FLAGS", ("['a']", "['a', 'b']")), ("CFG", ("{'a': 1}", "{'a': 1, 'b': 2}"))]
)
def test_a_literal_later_code_may_change_imports_as_a_replace_with_a_note(name: str, edit: tuple[str, str]) -> None:
    """The value is handed to a function from elsewhere radpatch cannot follow: apply's proof of the
    narrow step (add_element, set_item) would refuse it, and so the whole import; the literal is replaced
    instead, which gives GNU patch's code, and the note says why. Handed to a reader, the narrow step stays."""
    before = HANDED.replace("NAME", name)
    after = before.replace(f"{name} = {edit[0]}", f"{name} = {edit[1]}")
    found = rewrites(before, after)
    assert [s.op for s in found.steps] == ["replace"], found.steps
    assert len(found.fallbacks) == 1 and f"line 5: {name} is passed to other.use" in found.fallbacks[0]
    read = rewrites(before.replace("other.use", "print"), after.replace("other.use", "print"))
    assert [s.op for s in read.steps] == ["add_element" if name == "FLAGS" else "set_item"] and not read.fallbacks
