"""Typed records for a loaded registry entry. Nothing past the loader sees a raw dict."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from radpatch.registry.versions import allows


@dataclass(frozen=True)
class Knob:
    name: str
    default: str
    meaning: str


@dataclass(frozen=True)
class ModuleChoice:
    """`module` holds the code to change for installed versions in `versions`."""

    versions: SpecifierSet
    module: str  # dotted name, e.g. vllm.v1.core.kv_cache_utils

    @property
    def relpath(self) -> str:
        return self.module.replace(".", "/") + ".py"


@dataclass(frozen=True)
class Target:
    """A named file a patch changes; which module that is depends on the installed version."""

    name: str
    choices: tuple[ModuleChoice, ...]

    def module_for(self, version: Version) -> ModuleChoice | None:
        hits = [c for c in self.choices if allows(c.versions, version)]
        return hits[0] if len(hits) == 1 else None


# --- operations: the typed specs. Each declares its YAML keys (FIELDS) once; the loader
# (registry/loader.py), the JSON Schema (radpatch/registry.schema.json) and the README table read them.


@dataclass(frozen=True)
class Field:
    """One YAML key of an operation: the reader kind decides validation and its JSON Schema."""

    key: str
    kind: str  # a reader in loader.READERS (or payload, names) and a fragment in json_schema.KINDS
    doc: str
    required: bool = True


WITHIN = Field(
    "within",
    "within",
    "optional: only matches inside an enclosing statement like this one "
    "(a compound statement's header such as `for x in y:`, or a whole statement)",
    required=False,
)
OCCURRENCE = Field(
    "occurrence",
    "occurrence",
    "optional: take the n-th match (1-based, in source order) instead of requiring exactly one",
    required=False,
)


@dataclass(frozen=True)
class InsertDefinitions:
    """Insert top-level definitions (and the imports and constants they need) from a payload file
    before or after a named top-level definition."""

    payload: Path
    payload_source: bytes
    names: tuple[str, ...]
    anchor: str
    where: Literal["before", "after"]

    KEY: ClassVar[str] = "insert_definitions"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("payload", "payload", "path of a Python file, relative to the registry file"),
        Field(
            "names", "names", "optional: which definitions and constants (default: all, in file order)", required=False
        ),
        Field("before", "identifier", "a top-level def/class of the target; give `before` or `after`", required=False),
        Field("after", "identifier", "a top-level def/class of the target; give `before` or `after`", required=False),
    )
    ONE_OF: ClassVar[tuple[tuple[str, ...], ...]] = (("before", "after"),)
    EXAMPLE: ClassVar[str] = (
        "payload: ../patches/kv_group_size/payload.py\nbefore: _get_kv_cache_groups_uniform_page_size"
    )

    def describe(self) -> str:
        return f"insert {', '.join(self.names)} from {self.payload.name} {self.where} {self.anchor}"


@dataclass(frozen=True)
class AddParameter:
    """Add `name=default` as the last positional-or-keyword parameter of `function`."""

    function: str
    name: str
    default: str

    KEY: ClassVar[str] = "add_parameter"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("function", "qualname", "the function: `f`, `Class.method`, `Outer.Inner.method`"),
        Field("name", "identifier", "the new parameter's name"),
        Field("default", "expression", "its default value (existing calls keep working)"),
    )
    EXAMPLE: ClassVar[str] = "function: _get_kv_cache_groups_uniform_page_size\nname: vllm_config\ndefault: None"

    def describe(self) -> str:
        return f"add parameter {self.name}={self.default} to {self.function}()"


@dataclass(frozen=True)
class SetDefault:
    """Change a parameter's default value from `from_` to `to`."""

    function: str
    parameter: str
    from_: str
    to: str

    KEY: ClassVar[str] = "set_default"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("function", "qualname", "the function: `f` or `Class.method`"),
        Field("parameter", "identifier", "the parameter whose default changes"),
        Field("from", "expression", "the default the installed code has (any layout); anything else is refused"),
        Field("to", "expression", "the new default"),
    )
    EXAMPLE: ClassVar[str] = (
        "function: AsyncLLM.wait_for_requests_to_drain\nparameter: drain_timeout\nfrom: 300\nto: 900"
    )

    def describe(self) -> str:
        return f"change the default of {self.function}({self.parameter}=...) from {self.from_} to {self.to}"


_SCOPE = Field("scope", "qualname", "where to look: `<module>`, `f`, `Class`, `Class.method`, `Outer.Inner`")


@dataclass(frozen=True)
class InsertStatements:
    """Insert `code` right before/after the one statement in `scope` equal to `find`."""

    scope: str
    find: str
    code: str
    where: Literal["before", "after"]
    within: str | None = None
    occurrence: int | None = None

    KEY: ClassVar[str] = "insert_after"  # and insert_before (see OPERATIONS)
    FIELDS: ClassVar[tuple[Field, ...]] = (
        _SCOPE,
        Field("find", "code", "the statement(s) next to which to insert, AST-compared: any layout, quotes, comments"),
        Field("code", "code", "the statement(s) to insert"),
        WITHIN,
        OCCURRENCE,
    )
    EXAMPLE: ClassVar[str] = (
        "scope: _get_kv_cache_groups_uniform_page_size\nfind: |\n  if max_num_layers < min_num_layers * 1.5:\n"
        "      group_size = max_num_layers\n"
        "code: group_size = _radiance_kv_group_size(layer_buckets, spec_buckets, group_size, vllm_config)"
    )

    def describe(self) -> str:
        return f"insert statements {self.where} a statement in {self.scope}"


@dataclass(frozen=True)
class Replace:
    """Replace the one statement(s) or expression in `scope` equal to `find` by `with_`."""

    scope: str
    find: str
    with_: str
    within: str | None = None
    occurrence: int | None = None

    KEY: ClassVar[str] = "replace"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        _SCOPE,
        Field("find", "code", "an expression or statement(s), AST-compared: any layout, quotes, comments, parentheses"),
        Field(
            "with", "code", "what replaces it: an expression for an expression, statements for statements (any number)"
        ),
        WITHIN,
        OCCURRENCE,
    )
    EXAMPLE: ClassVar[str] = (
        "scope: get_kv_cache_groups\n"
        "find: _get_kv_cache_groups_uniform_page_size(filtered_spec)\n"
        "with: _get_kv_cache_groups_uniform_page_size(filtered_spec, vllm_config)"
    )

    def describe(self) -> str:
        return f"replace code in {self.scope}"


@dataclass(frozen=True)
class Delete:
    """Delete the statement(s) in `scope` equal to `find`; a `# radpatch: deleted ...` comment marks the place."""

    scope: str
    find: str
    within: str | None = None
    occurrence: int | None = None

    KEY: ClassVar[str] = "delete"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        _SCOPE,
        Field("find", "code", "the statement(s) to delete, AST-compared"),
        WITHIN,
        OCCURRENCE,
    )
    EXAMPLE: ClassVar[str] = (
        'scope: EngineCoreProc.startup_handshake\nfind: logger.debug("Waiting for init message from front-end.")'
    )

    def describe(self) -> str:
        return f"delete a statement in {self.scope}"


@dataclass(frozen=True)
class AddDecorator:
    """Add `@decorator` to a function or class, outermost (`top`, default) or innermost (`bottom`)."""

    function: str
    decorator: str
    position: Literal["top", "bottom"] = "top"

    KEY: ClassVar[str] = "add_decorator"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("function", "qualname", "the decorated function or class: `f`, `Class`, `Class.method`"),
        Field("decorator", "expression", "the decorator without `@`, e.g. `functools.cache`"),
        Field("position", "position", "optional: `top` (outermost, default) or `bottom` (innermost)", required=False),
    )
    EXAMPLE: ClassVar[str] = 'function: EngineCore.abort_requests\ndecorator: instrument(span_name="Abort requests")'

    def describe(self) -> str:
        return f"add @{self.decorator} to {self.function} ({self.position})"


@dataclass(frozen=True)
class RemoveDecorator:
    """Remove `@decorator` from a function or class; it must be the outermost (`top`) or innermost (`bottom`)."""

    function: str
    decorator: str
    position: Literal["top", "bottom"] = "top"

    KEY: ClassVar[str] = "remove_decorator"
    FIELDS: ClassVar[tuple[Field, ...]] = AddDecorator.FIELDS
    EXAMPLE: ClassVar[str] = "function: EngineCoreProc.startup_handshake\ndecorator: staticmethod"

    def describe(self) -> str:
        return f"remove @{self.decorator} from {self.function}"


@dataclass(frozen=True)
class ReplaceDecorator:
    """Replace the one decorator of a function or class equal to `find` by `with_`."""

    function: str
    find: str
    with_: str

    KEY: ClassVar[str] = "replace_decorator"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("function", "qualname", "the decorated function or class"),
        Field("find", "expression", "the decorator now there, without `@` (AST-compared)"),
        Field("with", "expression", "the decorator that replaces it"),
    )
    EXAMPLE: ClassVar[str] = (
        'function: EngineCore._initialize_kv_caches\nfind: instrument(span_name="Prepare model")\n'
        'with: instrument(span_name="Prepare model and KV cache")'
    )

    def describe(self) -> str:
        return f"replace @{self.find} by @{self.with_} on {self.function}"


BODY = "__body__"  # the placeholder statement of a wrap_body template


@dataclass(frozen=True)
class WrapBody:
    """Run a function's body inside new code: `with_` is a template whose `__body__` line is the original body."""

    function: str
    with_: str

    KEY: ClassVar[str] = "wrap_body"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("function", "qualname", "the function or method whose body is wrapped"),
        Field(
            "with", "code", f"the new body; one line `{BODY}` stands for the original body (the docstring stays first)"
        ),
    )
    EXAMPLE: ClassVar[str] = (
        f"function: EngineCore.abort_requests\nwith: |\n  try:\n      {BODY}\n  except Exception:\n"
        '      logger.exception("abort failed")\n      raise'
    )

    def describe(self) -> str:
        return f"wrap the body of {self.function}()"


@dataclass(frozen=True)
class ReplaceBody:
    """Replace a function's whole body (AST-equal to `find`) by `with_`; its docstring stays."""

    function: str
    find: str
    with_: str

    KEY: ClassVar[str] = "replace_body"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("function", "qualname", "the function or method"),
        Field("find", "code", "its current body without the docstring (AST-compared: any layout)"),
        Field("with", "code", "the new body"),
    )
    EXAMPLE: ClassVar[str] = (
        "function: EngineCore.abort_requests\n"
        "find: self.scheduler.finish_requests(request_ids, RequestStatus.FINISHED_ABORTED)\n"
        "with: self.scheduler.finish_requests(list(request_ids), RequestStatus.FINISHED_ABORTED)"
    )

    def describe(self) -> str:
        return f"replace the body of {self.function}()"


@dataclass(frozen=True)
class AddImport:
    """Add an import at module level after the module's imports; a no-op if it is already there."""

    statement: str

    KEY: ClassVar[str] = "add_import"
    FIELDS: ClassVar[tuple[Field, ...]] = (Field("import", "import", "one `import x` or `from x import y` statement"),)
    EXAMPLE: ClassVar[str] = "import: import os"

    def describe(self) -> str:
        return f"add `{self.statement.strip()}`"


@dataclass(frozen=True)
class SetConstant:
    """Set a module-level constant: change `NAME = from` to `NAME = value`, or add `NAME = value` after the imports."""

    name: str
    value: str
    from_: str | None = None

    KEY: ClassVar[str] = "set_constant"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("name", "identifier", "the module-level name"),
        Field("value", "expression", "its new value"),
        Field(
            "from",
            "expression",
            "optional: the value the module assigns now; without it the name must be new",
            required=False,
        ),
    )
    EXAMPLE: ClassVar[str] = "name: HANDSHAKE_TIMEOUT_MINS\nfrom: 5\nvalue: 15"

    def describe(self) -> str:
        was = f" (was {self.from_})" if self.from_ is not None else ""
        return f"set {self.name} = {self.value}{was}"


Operation = (
    InsertDefinitions
    | AddParameter
    | SetDefault
    | InsertStatements
    | Replace
    | Delete
    | AddDecorator
    | RemoveDecorator
    | ReplaceDecorator
    | WrapBody
    | ReplaceBody
    | AddImport
    | SetConstant
)

# YAML key -> the spec it loads into (insert_before/insert_after share one record).
OPERATIONS: dict[str, type] = {
    "insert_definitions": InsertDefinitions,
    "add_parameter": AddParameter,
    "set_default": SetDefault,
    "insert_before": InsertStatements,
    "insert_after": InsertStatements,
    "replace": Replace,
    "delete": Delete,
    "add_decorator": AddDecorator,
    "remove_decorator": RemoveDecorator,
    "replace_decorator": ReplaceDecorator,
    "wrap_body": WrapBody,
    "replace_body": ReplaceBody,
    "add_import": AddImport,
    "set_constant": SetConstant,
}


@dataclass(frozen=True)
class Rewrite:
    id: str
    target: str
    versions: SpecifierSet | None
    op: Operation
    where: str  # "file:line" of the rewrite in its registry file, for messages

    def applies_to(self, version: Version) -> bool:
        return self.versions is None or allows(self.versions, version)


@dataclass(frozen=True)
class Patch:
    name: str
    summary: str
    description: str
    distribution: str
    supported: SpecifierSet
    obsolete: SpecifierSet | None
    knobs: tuple[Knob, ...]
    targets: tuple[Target, ...]
    rewrites: tuple[Rewrite, ...]
    source: Path
    digest: str  # sha256 over the registry file and its payloads
    supported_text: str = ""  # the range as written in the registry, for messages
    distributions: tuple[str, ...] = ()  # every distribution the entry names (`distribution:`); first = `distribution`
    providers: Literal["any", "named"] = "any"  # "any": also other distributions installing the same modules
    prereleases: Literal["accept", "refuse"] = (
        "accept"  # dev/rc versions inside `supported` (radpatch.registry.versions)
    )

    @property
    def named(self) -> tuple[str, ...]:
        return self.distributions or (self.distribution,)

    @property
    def packages(self) -> tuple[str, ...]:
        """Top-level import packages of the patch's modules (e.g. ("vllm",)), in registry order."""
        return tuple(dict.fromkeys(c.module.split(".")[0] for t in self.targets for c in t.choices))

    @property
    def module_files(self) -> tuple[str, ...]:
        """Every file the patch may change, for any version (relative to site-packages)."""
        return tuple(dict.fromkeys(c.relpath for t in self.targets for c in t.choices))

    @property
    def range(self) -> str:
        return self.supported_text or str(self.supported)

    def target(self, name: str) -> Target:
        return next(t for t in self.targets if t.name == name)

    def rewrites_for(self, version: Version) -> tuple[Rewrite, ...]:
        return tuple(r for r in self.rewrites if r.applies_to(version))


def rewrites_by_file(patch: Patch, version: Version) -> dict[str, tuple[Rewrite, ...]]:
    """Target name -> the rewrites that apply to `version`, in registry order."""
    out: dict[str, list[Rewrite]] = {}
    for r in patch.rewrites_for(version):
        out.setdefault(r.target, []).append(r)
    return {k: tuple(v) for k, v in out.items()}
