"""docs/registry.md's operation reference, rendered from the operation specs: the same
declarations (`KEY`, `FIELDS`, `EXAMPLE`, the docstring) the loader and the JSON Schema read.

`python -m radpatch.registry.reference` (from the checkout's root) rewrites the page's generated
blocks; tests/docs fails while the committed page differs from what the specs render.
"""

from __future__ import annotations

import re
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

from radpatch.registry import json_schema
from radpatch.registry.model import Field
from radpatch.rewrite.ops import OPERATIONS

PAGE = Path(__file__).resolve().parents[2] / "docs" / "registry.md"  # in a checkout, beside this package

BEGIN = "<!-- BEGIN generated: {name}; by `python -m radpatch.registry.reference`; do not edit -->"
END = "<!-- END generated: {name} -->"


def _keys_of(fields: tuple[Field, ...]) -> str:
    return ", ".join(f"`{f.key}`" + ("" if f.required else "?") for f in fields)


def _yaml_words(text: str) -> str:
    """Spec docstrings name the Python fields (`with_`, `from_`); the reader writes the YAML keys.
    A 'quoted' value becomes `code` (Markdown would read `<operation>` as an HTML tag)."""
    text = re.sub(r"`(with|from)_`", r"`\1`", " ".join(text.split()))
    return re.sub(r"'([^'\s]+)'", r"`\1`", text)


def _field_doc(f: Field) -> str:
    """A field's doc without the `optional:` its column already says."""
    return re.sub(r"^optional[:;] ", "", _yaml_words(f.doc))


def _spec_doc(spec: type) -> str:
    return _yaml_words(spec.__doc__ or "")


def render_operation_table() -> str:
    rows = ["| operation | keys (`?`: optional) | what it does |", "|---|---|---|"]
    for key, spec in OPERATIONS.items():
        fields: tuple[Field, ...] = spec.FIELDS
        rows.append(f"| [`{key}`](#{key}) | {_keys_of(fields)} | {_spec_doc(spec)} |")
    return "\n".join(rows)


def render_operation_details() -> str:
    parts = []
    for key, spec in OPERATIONS.items():
        fields: tuple[Field, ...] = spec.FIELDS
        rows = "\n".join(
            f"| `{f.key}` | {'required' if f.required else 'optional'} | {_field_doc(f)} |" for f in fields
        )
        groups = getattr(spec, "ONE_OF", ())
        one_of = "".join(f"\nGive exactly one of {' or '.join(f'`{k}`' for k in g)}.\n" for g in groups)
        one_of += "".join(f"\nGive {' or '.join(f'`{k}`' for k in g)}, or both.\n" for g in spec.ANY_OF)
        example = f"- {key}:\n" + textwrap.indent(spec.EXAMPLE, "    ")
        parts.append(
            f"### {key}\n\n{_spec_doc(spec)}\n\n| key | | meaning |\n|---|---|---|\n{rows}\n{one_of}\n"
            f"```yaml\n{example}\n```"
        )
    return "\n\n".join(parts)


def render_rewrite_keys() -> str:
    rewrite = json_schema.build()["properties"]["rewrites"]["items"]["properties"]
    rows = ["| key | meaning |", "|---|---|"]
    rows += [f"| `{k}` | {_yaml_words(v['description'])} |" for k, v in rewrite.items() if k not in OPERATIONS]
    rows.append("| one operation | exactly one of the operations below, holding its keys |")
    return "\n".join(rows)


GENERATED: dict[str, Callable[[], str]] = {
    "rewrite keys": render_rewrite_keys,
    "operation table": render_operation_table,
    "operations": render_operation_details,
}


def regenerate(text: str) -> str:
    """`text` with every generated block replaced by what the specs render now."""
    for name, render in GENERATED.items():
        begin, end = BEGIN.format(name=name), END.format(name=name)
        if text.count(begin) != 1 or text.count(end) != 1:
            raise ValueError(f"docs/registry.md: needs exactly one `{begin}` ... `{end}` block")
        head, rest = text.split(begin)
        _, tail = rest.split(end)
        text = f"{head}{begin}\n{render()}\n{end}{tail}"
    return text


def main() -> int:
    if not PAGE.is_file():  # an installed radpatch has no docs/
        print(
            f"error: no {PAGE}: run this from a checkout of radpatch (python -m radpatch.registry.reference)",
            file=sys.stderr,
        )
        return 2
    PAGE.write_text(regenerate(PAGE.read_text()))
    print(f"wrote {PAGE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
