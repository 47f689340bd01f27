"""What a proof step answers when it refuses: a typed Refusal (the step, why, what to do, the rewrite
it names), what it is as code acts on it (Cause, Kind), and the hints the steps give."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from radpatch.errors import RefusedError
from radpatch.registry.model import Patch, Rewrite

NAMES_HINT = (
    "every name the patched code uses must be defined: import it first (an `add_import` rewrite before it, "
    "or the import in the payload), keep the code that defines it, "
    "or, if this version lacks it, declare a `versions:` variant"
)

BOUND_HINT = (  # a function's local read where it may not be bound yet (names.Problem.importable false)
    "bind the local on every path before the read (above the loop or the branch that binds it), or read it "
    "only where it is bound; keep the code that binds it, or, if this version lacks it, declare a `versions:` variant"
)

SELF_IMPORT_HINT = "use the module's own names directly: a module cannot import from itself while it is imported"
PARTIAL_PACKAGE_HINT = (
    "import the name inside the function that uses it (it runs after the package is imported), "
    "or take it from the module that defines it"
)
MISSING_MODULE_HINT = (
    "if the module comes from another distribution, install it into the target environment first "
    "(radpatch checks imports there); else guard the import (`try: ... except ImportError:` or "
    "`if sys.version_info >= ...:`), or declare a `versions:` variant for the targets that lack it"
)
MISSING_ATTRIBUTE_HINT = (
    "guard the read (`if sys.version_info >= ...:` or `try: ... except AttributeError:`), "
    "or declare a `versions:` variant for the targets that lack it"
)
SHADOW_BUILTIN_HINT = (
    "rename the new name (a `_rp_` prefix, say): the module's own code would call it in place of the builtin"
)
METHOD_ONLY_HINT = (
    "keep zero-argument super() in the method's own body, or name the class and instance: super(ClassName, self)"
)
COMPILE_HINT = "fix the rewrite's code so the patched file is valid Python at that place"
PLACEMENT_HINT = "rename the payload definition, or point the rewrite at the definition that runs"
REBIND_HINT = (
    "make the change where the later statement takes its value (for a star import, in the module it reads), or after it"
)
UNREACHABLE_HINT = "put the code where it runs: before the return/raise/continue/break, or in the branch that runs"
FALLBACK_HINT = (
    "patch the definition that runs: what the guarded import binds, in the module it imports from (or change "
    "the import in the same entry)"
)
REVERSE_HINT = "the rewrite cannot be undone as written: make `find`/`with` name distinct code (narrow with `within:`)"


class Cause(Enum):
    """What a refusal is, for the code that acts on it (verify's matrix, port), never read from its words."""

    SCOPE_GONE = "scope gone"  # a rewrite's scope (a definition it needs) is not in the module
    NO_MODULE = "no module"  # the release has none of the files the `modules:` name's module may be
    UNCOVERED = "uncovered"  # no choice of the `modules:` name covers the release
    REQUIREMENT = "requirement"  # a rewrite of a required entry does not apply
    # the release already holds what some of the entry's rewrites add (upstream took part of the change):
    # apply refuses it there (prove.form.present), yet the entry is not obsolete (the rest is still needed)
    PART_PRESENT = "part present"
    # the release holds a `replace`'s new code, but it may not take effect there (NOT_IN_EFFECT says
    # how): not carried, so not obsolete, and apply cannot make the change there either
    NOT_IN_EFFECT = "not in effect"
    # a rewrite does not match, and bases were read (releases the entry is written for) but on none of
    # them does every layer apply: whether the release holds the change in upstream's layout is not
    # told (not: it does not); a search reading further bases goes on (radpatch.releases.moved_proof)
    NO_BASE = "no base"
    # every rewrite matches once, but one picks other code than on the release the entry claims next to it
    # (radpatch.releases.surroundings): a no match, with no base read for it
    OTHER_CODE = "other code"


# The one phrase every reader (verify's cell, `verify --all`, `port`, `status`, `list`, apply's
# "already present" check) says of a release whose file holds a `replace`'s new code that may not
# take effect there (radpatch.releases.replaced): such a file does not carry the change.
NOT_IN_EFFECT = (
    "upstream has the new code but it may not take effect "
    "(only under a condition, or with the replaced name stored again)"
)


@dataclass(frozen=True)
class Kind:
    """A refusal as code acts on it (kept with a proof in verify's cache): what it is, the `modules:` name
    (`file`) it concerns and the rewrite it names, each when known."""

    cause: Cause | None = None
    file: str | None = None
    rewrite: str | None = None

    def to_json(self) -> dict[str, str | None]:
        # the cache file's key stays "target" (the field's name before it was `file`): cache files keep reading
        return {"cause": self.cause.value if self.cause else None, "target": self.file, "rewrite": self.rewrite}

    @classmethod
    def from_json(cls, data: object) -> Kind | None:
        """The kind a cache file holds, or None when it holds none that reads as one."""
        if not isinstance(data, dict) or set(data) != {"cause", "target", "rewrite"}:
            return None
        cause, file, rewrite = data["cause"], data["target"], data["rewrite"]
        if not all(v is None or isinstance(v, str) for v in (cause, file, rewrite)):
            return None
        try:
            return cls(Cause(cause) if cause is not None else None, file, rewrite)
        except ValueError:
            return None


@dataclass(frozen=True)
class Refusal:
    """Why one proof step refuses a patched module: the step, the reason, what to do, and the rewrite
    the reason names (its id), when it names one; what it is (`cause`), and the `modules:` name (`file`) it concerns,
    when the code acting on it needs to know."""

    step: str
    why: str
    hint: str
    rewrite: str | None = None
    cause: Cause | None = None
    file: str | None = None

    @property
    def kind(self) -> Kind:
        return Kind(self.cause, self.file, self.rewrite)

    def blame(self, rw: Rewrite | None) -> Refusal:
        """The refusal naming `rw` (id and registry file:line) as its cause, unless it names one already."""
        if rw is None or self.rewrite is not None:
            return self
        return replace(self, why=f"rewrite {rw.id!r} ({rw.location}): {self.why}", rewrite=rw.id)

    def error(self, patch: Patch) -> RefusedError:
        return RefusedError(f"{patch.name}: {self.why}", self.hint)
