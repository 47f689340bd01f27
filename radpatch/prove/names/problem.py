"""What the names check reports: one `Problem` (a name a module would fail to find, where, and
why), its kinds, the interpreter it is judged for (`Runtime`), and which problems a patch adds."""

from __future__ import annotations

import builtins
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field

_SITE_BUILTINS = frozenset({"exit", "quit", "copyright", "credits", "license", "help"})  # added by `site`

UNDEFINED = "undefined"
LATER = "used-before-definition"
UNBOUND = "unbound-local"
MAYBE_UNBOUND = "bound-on-some-paths"  # bound in some branches of an if/match/try only, read after it
TYPING_ONLY = "type-checking-only"
SELF_IMPORT = "self-import"
PARTIAL_PACKAGE = "partial-package"  # from a parent package whose __init__ is still running
MISSING_MODULE = "missing-module"
IMPORTED_ELSEWHERE = "imported-elsewhere"  # a name the patch removes that another module of the package imports
CYCLE_READ = "cycle-read"  # a new import whose cycle runs a module that takes a name not bound yet
FALLBACK_ONLY = "fallback-only"  # read at import where the target binds only the fallback (`tomllib = None`)
MISSING_NAME = "missing-name"
MISSING_ATTRIBUTE = "missing-attribute"  # `enum.StrEnum`: a standard-library module read for what it lacks
UNIMPORTED_SUBMODULE = "unimported-submodule"  # `import xml` then `xml.dom`: a submodule nothing imports
CLASS_ATTRIBUTE = "class-attribute"
DELETED = "deleted"
SHADOWS_BUILTIN = "shadows-builtin"
METHOD_ONLY = "method-only"
# Facts, not problems: what one version of a module reads as a builtin and which builtin names it
# binds at module level; new_problems turns them into SHADOWS_BUILTIN across the two versions.
READS_BUILTIN = "reads-builtin"
BINDS_BUILTIN = "binds-builtin"
FACTS = frozenset({READS_BUILTIN, BINDS_BUILTIN})


@dataclass(frozen=True)
class Runtime:
    """What the target interpreter provides: its version (annotation semantics) and builtins."""

    version: tuple[int, int]
    builtins: frozenset[str]


def current_runtime() -> Runtime:
    return Runtime((sys.version_info[0], sys.version_info[1]), frozenset(dir(builtins)) | _SITE_BUILTINS)


@dataclass(frozen=True, order=True)
class Problem:
    line: int
    name: str
    scope: str  # "<module>", "f", "C.m", "f.g"
    kind: str
    detail: str = ""
    # a function's own local (or an enclosing one's) read where it may not be bound: no import binds it
    local: bool = field(default=False, compare=False)

    @property
    def importable(self) -> bool:
        """May an import at module level provide the name ("import it first"), not a function's local read
        where it may not be bound yet (an import would not bind the local)?"""
        return self.kind in (UNDEFINED, LATER, DELETED, TYPING_ONLY) or (self.kind == MAYBE_UNBOUND and not self.local)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.scope, self.name, self.kind)

    def describe(self) -> str:
        where = "at module level" if self.scope == "<module>" else f"in {self.scope}()"
        what = {
            UNDEFINED: f"is defined nowhere{_private_note(self.name)} (NameError)",
            LATER: f"is used before the module defines it{self.detail} (NameError at import)",
            UNBOUND: (
                f"is local to {self.scope}() but read where it {self.detail or 'may not be assigned yet'} "
                "(UnboundLocalError)"
            ),
            MAYBE_UNBOUND: (
                f"is bound on some paths only{self.detail}, not on every path to this read "
                f"({'NameError at import' if self.scope == '<module>' else 'UnboundLocalError when called'})"
            ),
            TYPING_ONLY: f"is imported only under `if TYPE_CHECKING:`{self.detail}, not at run time (NameError)",
            CLASS_ATTRIBUTE: (
                f"is a class attribute{self.detail}, not visible from methods or comprehensions "
                "(NameError; use self. or the class name)"
            ),
            DELETED: f"is deleted from the module{self.detail} before this code runs (NameError)",
            SELF_IMPORT: (
                f"comes from the module itself{self.detail} while it is still being imported "
                "(a circular import: ImportError, or a half-initialised module)"
            ),
            PARTIAL_PACKAGE: (f"is taken from {self.detail} (ImportError from a partially initialised module)"),
            MISSING_MODULE: f"is not a module{self.detail} (ModuleNotFoundError)",
            IMPORTED_ELSEWHERE: (
                f"is no longer bound by the module, but {self.detail} imports it from there "
                "(ImportError there; NameError where a star import took it)"
            ),
            CYCLE_READ: f"is taken from this module by {self.detail} (ImportError from a partially initialised module)",
            FALLBACK_ONLY: f"runs {'at import' if self.scope == '<module>' else 'when called'}, where {self.detail}",
            MISSING_NAME: f"is not in {self.detail}: it neither binds it nor has such a submodule (ImportError)",
            MISSING_ATTRIBUTE: (
                f"is not in {self.detail}: it neither binds it nor has such a submodule (AttributeError)"
            ),
            UNIMPORTED_SUBMODULE: (  # detail: "parent import" (`xml xml.dom.minidom`)
                f"is a submodule of {self.detail.split(' ')[0]} that a fresh `import {self.detail.split(' ')[0]}` "
                "on the target does not bind, and neither the module nor any other module of its package imports "
                f"it (AttributeError): add_import: import {self.detail.split(' ')[-1]}"
            ),
            SHADOWS_BUILTIN: (
                f"is a builtin the module's own code reads{self.detail}: a module-level binding of it takes "
                "over those uses"
            ),
            METHOD_ONLY: (
                "is a zero-argument super() call outside the body of a method defined in a class "
                "(RuntimeError: super(): no arguments, or the wrong instance, when it runs)"
                if self.name == "super"
                else "is outside any method defined in a class (NameError)"
            ),
        }[self.kind]
        return f"`{self.name}` (line {self.line}, {where}) {what}"


# Kinds compared use by use: one more such use is a new failure, even where the original already
# had one under the same name (a typing-only name on a new run-time path next to an old error path).
PER_USE = frozenset(
    {
        TYPING_ONLY,
        SELF_IMPORT,
        PARTIAL_PACKAGE,
        IMPORTED_ELSEWHERE,
        CYCLE_READ,
        FALLBACK_ONLY,
        MISSING_MODULE,
        MISSING_NAME,
        MISSING_ATTRIBUTE,
        UNIMPORTED_SUBMODULE,
        METHOD_ONLY,
    }
)


def shadowed_builtins(before: list[Problem], after: list[Problem]) -> list[Problem]:
    """Builtin names `after` binds at module level that `before` did not bind and read as builtins:
    the original's own uses of them would get the new binding (a payload's `def filter`, `len = 5`)."""
    reads = {p.name: p.line for p in before if p.kind == READS_BUILTIN}
    had = {p.name for p in before if p.kind == BINDS_BUILTIN}
    return [
        Problem(p.line, p.name, "<module>", SHADOWS_BUILTIN, f" (line {reads[p.name]} of the original)")
        for p in after
        if p.kind == BINDS_BUILTIN and p.name in reads and p.name not in had
    ]


def new_problems(before: Iterable[Problem], after: Iterable[Problem]) -> list[Problem]:
    """The problems of `after` the original does not have: by (scope, name, kind), each key once;
    for the PER_USE kinds, each use beyond the original's count of them (lines the original has
    are taken as its own). Facts (FACTS) become SHADOWS_BUILTIN problems, never problems
    themselves."""
    before, after = list(before), list(after)
    shadows = shadowed_builtins(before, after)
    before = [p for p in before if p.kind not in FACTS]
    after = [p for p in after if p.kind not in FACTS]
    old = {p.key for p in before}
    counted: dict[tuple[str, str, str], list[int]] = {}
    for p in before:
        if p.kind in PER_USE:
            counted.setdefault(p.key, []).append(p.line)
    extra: dict[tuple[str, str, str], list[Problem]] = {}
    for p in after:
        if p.kind in PER_USE and p.key in counted:
            extra.setdefault(p.key, []).append(p)
    surplus: set[int] = set()
    for key, uses in extra.items():
        n = len(uses) - len(counted[key])
        if n > 0:  # which uses are the new ones: those on lines the original does not have, else the last
            lines = set(counted[key])
            fresh = [p for p in uses if p.line not in lines] or uses
            surplus.update(id(p) for p in (fresh[:n] if len(fresh) >= n else uses[-n:]))
    seen: set[tuple[str, str, str]] = set()
    out = []
    for p in after:
        if id(p) in surplus or (p.key not in old and p.key not in seen):
            if id(p) not in surplus:
                seen.add(p.key)
            out.append(p)
    return out + shadows


def _private_note(name: str) -> str:
    """`_C__x` is what Python reads for `__x` written inside class C (name mangling)."""
    m = re.fullmatch(r"_([A-Za-z0-9]\w*?)(__\w+)", name)
    if m is None or m[2].endswith("__"):
        return ""
    return f": Python's name for `{m[2]}` written inside class {m[1]} (name mangling)"
