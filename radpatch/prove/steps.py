"""The proof: one ordered list of steps (STEPS) that apply and verify both run.

A patched module must compile in the target interpreter's grammar (compile), use no name the
original did not already leave undefined (names), put its code where it runs and shadow nothing
(placement), and undo to the original code (reverse). apply (prove.plan) stops at the first step
that refuses and names the rewrite that causes it; verify (releases.verify) reports each step as
a column. A step answers with a typed Refusal, never a bare string.
"""

from __future__ import annotations

import ast
import functools
import importlib.machinery
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import Enum
from types import CodeType

from radpatch.errors import RefusedError, Undecodable
from radpatch.files import checked_pyc, head_lines
from radpatch.gcpause import paused, pausing
from radpatch.install import target_python
from radpatch.install.environment import PythonEnv
from radpatch.prove import names, placement, star_exports
from radpatch.prove.names.imports import resolved
from radpatch.prove.partial_package import partial_package_imports
from radpatch.registry.model import Patch, Rewrite, creates
from radpatch.rewrite.source import decode, remember


def forward(patch: Patch, rws: tuple[Rewrite, ...], source: bytes, filename: str) -> bytes:
    from radpatch.rewrite import runner  # libcst loads only when a proof runs the rewrites

    return runner.forward(patch, rws, source, filename)


def backward(patch: Patch, rws: tuple[Rewrite, ...], source: bytes, filename: str) -> bytes:
    from radpatch.rewrite import runner

    return runner.backward(patch, rws, source, filename)


def short(exc: RefusedError) -> tuple[str, str | None]:
    """The refusal without the patch and file it concerns, and the id of the rewrite it names (if any)."""
    from radpatch.rewrite import runner

    return runner.short(exc), exc.rewrite if isinstance(exc, runner.RewriteRefused) else None


NAMES_HINT = (
    "every name the patched code uses must be defined: import it first (an `add_import` rewrite before it, "
    "or the import in the payload), keep the code that defines it, "
    "or, if this version lacks it, declare a `versions:` variant"
)


SELF_IMPORT_HINT = "use the module's own names directly: a module cannot import from itself while it is imported"
PARTIAL_PACKAGE_HINT = (
    "import the name inside the function that uses it (it runs after the package is imported), "
    "or take it from the module that defines it"
)
MISSING_MODULE_HINT = (
    "guard the import (`try: ... except ImportError:` or `if sys.version_info >= ...:`), "
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
REVERSE_HINT = "the rewrite cannot be undone as written: make `find`/`with` name distinct code (narrow with `within:`)"


class Cause(Enum):
    """What a refusal is, for the code that acts on it (verify's matrix, port), never read from its words."""

    SCOPE_GONE = "scope gone"  # a rewrite's scope (a definition it needs) is not in the module
    NO_MODULE = "no module"  # the release has none of the files the target's module may be
    UNCOVERED = "uncovered"  # no `modules:` choice of the target covers the release
    REQUIREMENT = "requirement"  # a rewrite of a required entry does not apply


@dataclass(frozen=True)
class Kind:
    """A refusal as code acts on it (kept with a proof in verify's cache): what it is, the target it
    concerns and the rewrite it names, each when known."""

    cause: Cause | None = None
    target: str | None = None
    rewrite: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return {"cause": self.cause.value if self.cause else None, "target": self.target, "rewrite": self.rewrite}

    @classmethod
    def from_json(cls, data: object) -> Kind | None:
        """The kind a cache file holds, or None when it holds none that reads as one."""
        if not isinstance(data, dict) or set(data) != {"cause", "target", "rewrite"}:
            return None
        cause, target, rewrite = data["cause"], data["target"], data["rewrite"]
        if not all(v is None or isinstance(v, str) for v in (cause, target, rewrite)):
            return None
        try:
            return cls(Cause(cause) if cause is not None else None, target, rewrite)
        except ValueError:
            return None


@dataclass(frozen=True)
class Refusal:
    """Why one proof step refuses a patched module: the step, the reason, what to do, and the rewrite
    the reason names (its id), when it names one; what it is (`cause`), and the target it concerns,
    when the code acting on it needs to know."""

    step: str
    why: str
    hint: str
    rewrite: str | None = None
    cause: Cause | None = None
    target: str | None = None

    @property
    def kind(self) -> Kind:
        return Kind(self.cause, self.target, self.rewrite)

    def blame(self, rw: Rewrite | None) -> Refusal:
        """The refusal naming `rw` (id and registry file:line) as its cause, unless it names one already."""
        if rw is None or self.rewrite is not None:
            return self
        return replace(self, why=f"rewrite {rw.id!r} ({rw.location}): {self.why}", rewrite=rw.id)

    def error(self, patch: Patch) -> RefusedError:
        return RefusedError(f"{patch.name}: {self.why}", self.hint)


@dataclass(frozen=True)
class _Analysis:
    """What the names and placement proofs need of one version of a module, from one parse of
    it, which also gives the rewrites their index of it (source.remember): the tree is freed
    before another version is parsed, so one whole-module tree is alive at a time. compile()
    runs on the bytes, separately (_compiled): compiling the tree would hold it and the
    compiler's own copy of it at once."""

    problems: tuple[names.Problem, ...] | None  # None: not parsed, or too deeply nested to walk
    placement: placement.Placement | None  # None: not parsed, or too deeply nested to walk
    unparsed: str = ""  # why radpatch's own Python could not analyse it (the exception's name)


def _why(exc: SyntaxError | ValueError) -> str:
    return f"{getattr(exc, 'msg', exc)} (line {getattr(exc, 'lineno', '?')})"


def _compiled(data: bytes, filename: str) -> tuple[str | None, CodeType | None]:
    """(why `data` does not compile ("message (line N)"), None), or (None, its code)."""
    try:
        return None, compile(data, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        return _why(exc), None
    except (RecursionError, MemoryError):
        return "too deeply nested to compile", None


@functools.lru_cache(maxsize=4)
def _analysis(data: bytes, module: tuple[str, bool] | None = None) -> _Analysis:
    with paused():
        try:
            text: str | None = decode(data)[0]
        except Undecodable:
            text = None  # ast.parse says why
        try:
            tree = ast.parse(data if text is None else text)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            return _Analysis(None, None, type(exc).__name__)
        if text is not None:
            try:
                remember(text, tree)  # the rewrites' own index of this text: no second parse
            except (RecursionError, MemoryError) as exc:  # a tree Python parses but is too deep to walk
                return _Analysis(None, None, type(exc).__name__)
        try:
            found: tuple[names.Problem, ...] | None = tuple(names.problems_in(tree, None, module, facts=True))
        except (RecursionError, MemoryError):
            found = None
        try:
            return _Analysis(found, placement.placement(tree, data, module))
        except (RecursionError, MemoryError) as exc:
            return _Analysis(found, None, type(exc).__name__)


def compile_refusal(
    after: bytes, filename: str, python: PythonEnv | None = None, before: bytes | None = None, module: str | None = None
) -> Refusal | None:
    """Compiled with the target interpreter's grammar (asked directly when it is another version)."""
    return _compile(after, filename, python, before, want_pyc=False, module=module)[0]


def _compile(
    after: bytes,
    filename: str,
    python: PythonEnv | None,
    before: bytes | None,
    want_pyc: bool = True,
    module: str | None = None,
) -> tuple[Refusal | None, bytes | None]:
    """(why `after` does not compile, None), or (None, its checked-hash .pyc when this
    interpreter compiled it: the bytecode apply writes, so the file is compiled once)."""
    out = None
    if _other(python):
        assert python is not None
        why = _target(python, before if before is not None else after, after, filename, module).compile_error
    else:
        why, code = _compiled(after, filename)
        out = checked_pyc(after, code) if code is not None and want_pyc else None
        del code  # the marshalled bytes are a fraction of the code objects: free them before the next proof
    if why is None:
        return None, out
    return Refusal("compile", f"the patched {filename} does not compile{_for(python)}: {why}", COMPILE_HINT), None


def _other(python: PythonEnv | None) -> bool:
    """Is the target another Python version than radpatch's own (its grammar, builtins, stdlib)?"""
    return python is not None and not target_python.same_grammar(python.executable, python.version)


def _introduced(
    before: bytes,
    after: bytes,
    module: str | None = None,
    filename: str = "",
    python: PythonEnv | None = None,
    skip: tuple[str, ...] | None = (),
) -> list[names.Problem] | None:
    """Names `after` cannot resolve that `before` could (None when either could not be walked), judged
    by the target interpreter when it is another Python version."""
    if _other(python):
        assert python is not None
        try:
            there = list(_target(python, before, after, filename, module).problems)
        except (RecursionError, MemoryError):
            return None
        me = names.module_of(module, filename)
        return there + _missing_imports(before, after, me, python, skip) + _partial(before, after, me, python)
    me = names.module_of(module, filename)
    old, new = _analysis(before, me).problems, _analysis(after, me).problems
    if old is None or new is None:
        return None
    return (
        names.new_problems(old, new)
        + _missing_here(before, after, python)
        + _missing_imports(before, after, me, python, skip)
        + _partial(before, after, me, python)
    )


def _partial(before: bytes, after: bytes, me: tuple[str, bool] | None, python: PythonEnv | None) -> list[names.Problem]:
    """New imports of a name from the module's own parent package that its `__init__` binds only after
    importing the module (prove.partial_package)."""
    if python is None:
        return []
    return partial_package_imports(before, after, me, [str(p) for p in python.paths])


def _missing_imports(
    before: bytes, after: bytes, me: tuple[str, bool] | None, python: PythonEnv | None, skip: tuple[str, ...] | None
) -> list[names.Problem]:
    """New unguarded imports of what the target's import path lacks and nothing else expects
    (names.introduced_missing). `skip`: the modules whose planned text is not on disk; None: the
    patch requires other entries, applied before it in the same run (they may add names and modules)."""
    if python is None:
        return []
    paths = [str(p) for p in python.paths]
    version = (python.version[0], python.version[1])
    ask = functools.partial(target_python.stdlib_binds, python.executable)
    return names.introduced_missing(before, after, me, paths, version, skip or (), skip is None, head_lines, ask)


def unjudged(patch: Patch) -> tuple[str, ...] | None:
    """The modules a patch's own text changes or creates (their files on disk are not what runs), or
    None when it requires other entries (which may add names the files do not have yet)."""
    return None if patch.requires else own_modules(patch)


def own_modules(patch: Patch) -> tuple[str, ...]:
    """The modules a patch's own text changes or creates (their files on disk are not what runs)."""
    whole = (c.module for t in patch.targets for c in t.choices)
    return tuple(dict.fromkeys(m[: -len(".__init__")] if m.endswith(".__init__") else m for m in whole))


def _missing_here(before: bytes, after: bytes, python: PythonEnv | None) -> list[names.Problem]:
    """The target's standard library when it is radpatch's own version: a module only a newer
    Python has (`import tomllib` on 3.10), newly imported and not installed on the target's path.
    Looked for in the text first, so a plain apply parses nothing more."""
    own = frozenset(getattr(sys, "stdlib_module_names", ()))
    later = names.ADDED_SINCE_310 - own
    if python is None or not any(after.count(n.encode()) > before.count(n.encode()) for n in later):
        return []
    paths = [str(p) for p in python.paths]

    def installed(name: str) -> bool:
        return importlib.machinery.PathFinder.find_spec(name, paths) is not None

    try:
        old, new = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    version = f"{python.version[0]}.{python.version[1]}"
    return names.missing_modules(old, new, own, own | later, installed, version)


@pausing
def names_refusal(
    before: bytes,
    after: bytes,
    filename: str,
    python: PythonEnv | None = None,
    module: str | None = None,
    skip: tuple[str, ...] | None = (),
) -> Refusal | None:
    """Names the patch makes unresolvable at run time (see the names package), each with its line."""
    new = _introduced(before, after, module, filename, python, skip)
    if new is None:
        me = names.module_of(module, filename)
        unparsed = _analysis(before, me).unparsed or _analysis(after, me).unparsed
        if unparsed in ("SyntaxError", "ValueError"):
            why = f"the patched {filename} cannot be parsed by radpatch's own Python to check its names ({unparsed})"
            return Refusal("names", why, NAMES_HINT)
        return Refusal("names", f"the patched {filename} is too deeply nested to check its names", NAMES_HINT)
    if not new:
        return None
    kinds = {p.kind for p in new}
    what = (
        "would fail to import"
        if kinds <= {names.MISSING_MODULE, names.MISSING_NAME, names.SELF_IMPORT, names.PARTIAL_PACKAGE}
        else "would take over a builtin"
        if kinds == {names.SHADOWS_BUILTIN}
        else "would call super() where it fails"
        if kinds == {names.METHOD_ONLY}
        else "would use undefined names"
    )
    why = f"the patched {filename} {what}{_for(python)}: " + "; ".join(p.describe() for p in new)
    hint = (
        SHADOW_BUILTIN_HINT
        if names.SHADOWS_BUILTIN in kinds
        else METHOD_ONLY_HINT
        if names.METHOD_ONLY in kinds
        else SELF_IMPORT_HINT
        if names.SELF_IMPORT in kinds
        else PARTIAL_PACKAGE_HINT
        if names.PARTIAL_PACKAGE in kinds
        else MISSING_MODULE_HINT
        if kinds & {names.MISSING_MODULE, names.MISSING_NAME}
        else NAMES_HINT
    )
    return Refusal("names", why, hint)


_CHECKS = (placement.shadowed, placement.dead_changes, placement.unreachable_changes)
_PLACEMENT_HINTS = {
    "shadowed": PLACEMENT_HINT,
    "dead_changes": PLACEMENT_HINT,
    "unreachable_changes": UNREACHABLE_HINT,
    "rebound_changes": REBIND_HINT,
}


def _rebound_check(
    python: PythonEnv | None,
    me: tuple[str, bool] | None,
    stars: tuple[star_exports.ModuleSource, ...] | None = None,
    own: tuple[str, ...] = (),
) -> Callable[[placement.Placement, placement.Placement], list[str]]:
    """placement.rebound_changes, with what a later star import binds told by one rule
    (star_exports): its module read from the target's path (apply), or from `stars`, the modules
    verify read from the release's wheel. Without either, or for a module of `own` (the patch's
    modules: their planned text is not what the files hold), a star import after the change is refused."""
    star_binds: placement.StarBinds | None = None
    read: star_exports.Read | None = None
    submodule: star_exports.Submodule = star_exports.no_submodule_known
    if python is not None:
        read, submodule = star_exports.path_reader([str(p) for p in python.paths], own)
    elif stars is not None:
        read = star_exports.wheel_reader(stars, own)
    if read is not None:
        reader = read

        def star_binds(star: tuple[int, str | None], name: str) -> bool | None:
            base = resolved(ast.ImportFrom(module=star[1], names=[], level=star[0]), me)
            return None if base is None else star_exports.star_binds(reader, base, name, submodule)

    def rebound_changes(before: placement.Placement, after: placement.Placement) -> list[str]:
        return placement.rebound_changes(before, after, star_binds)

    return rebound_changes


def _placed(
    check: Callable[[placement.Placement, placement.Placement], list[str]],
    before: bytes,
    after: bytes,
    me: tuple[str, bool] | None = None,
) -> list[str]:
    old, new = _analysis(before, me).placement, _analysis(after, me).placement
    return [] if old is None or new is None else check(old, new)


def _unparsable(before: bytes, after: bytes, me: tuple[str, bool] | None) -> bool:
    return bool({_analysis(before, me).unparsed, _analysis(after, me).unparsed} & {"SyntaxError", "ValueError"})


@pausing
def placement_refusal(
    patch: Patch,
    rws: tuple[Rewrite, ...],
    before: bytes,
    after: bytes,
    filename: str,
    python: PythonEnv | None = None,
    module: str | None = None,
    stars: tuple[star_exports.ModuleSource, ...] | None = None,
) -> Refusal | None:
    """A definition the patch adds shadows the module's own, or a rewrite lands in dead code. A module
    in a newer grammar than radpatch's own Python reads is judged by the target interpreter. A module
    the rewrites create is written whole: it has no code of its own to shadow or leave dead (a name
    defined twice in it is the author's, as Python runs it), so it is not checked."""
    if creates(rws):
        return None
    me = names.module_of(module, filename)  # the key the names step analysed both versions under: one parse each
    old, new = _analysis(before, me), _analysis(after, me)
    if (old.placement is None or new.placement is None) and _other(python) and _unparsable(before, after, me):
        assert python is not None
        found_there = _target(python, before, after, filename, module).placement
        if not found_there:
            return None
        k: int | None = len(rws)
        if len(rws) > 1:
            try:
                k = placement.first_failing(
                    len(rws),
                    lambda k: bool(
                        _target(python, before, forward(patch, rws[:k], before, filename), filename, module).placement
                    ),
                )
            except RefusedError:  # a prefix radpatch's own Python cannot run: name the last rewrite
                k = len(rws)
        check_name, said = found_there[0]
        hint = _PLACEMENT_HINTS.get(check_name, PLACEMENT_HINT)
        if not rws:
            return Refusal("placement", f"the patched {filename}: {said}", hint)
        rw = rws[(k or len(rws)) - 1]
        return Refusal("placement", f"rewrite {rw.id!r} ({rw.location}) on {filename}: {said}", hint, rw.id)
    if old.placement is None or new.placement is None:
        why = (
            f"the patched {filename} cannot be parsed by radpatch's own Python to check where its code lands "
            f"({old.unparsed or new.unparsed})"
        )
        return Refusal("placement", why, PLACEMENT_HINT)
    for check in (*_CHECKS, _rebound_check(python, me, stars, own_modules(patch))):
        found = check(old.placement, new.placement)
        if found:  # which rewrite: the first prefix of them that shows it (only on this refusal path)
            rw = _first_showing(check, patch, rws, before, filename, me)
            why = f"rewrite {rw.id!r} ({rw.location}) on {filename}: {found[0]}"
            return Refusal("placement", why, _PLACEMENT_HINTS[check.__name__], rw.id)
    return None


def _first_showing(
    check: Callable[[placement.Placement, placement.Placement], list[str]],
    patch: Patch,
    rws: tuple[Rewrite, ...],
    before: bytes,
    filename: str,
    me: tuple[str, bool] | None = None,
) -> Rewrite:
    """The rewrite that shows what `check` found: the first that, applied with those before it, is flagged
    (the last rewrite if no prefix is)."""
    k = placement.first_failing(
        len(rws), lambda k: bool(_placed(check, before, forward(patch, rws[:k], before, filename), me))
    )
    return rws[(k or len(rws)) - 1]


def _target(
    python: PythonEnv, before: bytes, after: bytes, filename: str, module: str | None = None
) -> target_python.ProbeResult:
    target = target_python.Probe(python.executable, tuple(str(p) for p in python.paths), module)
    return target_python.check(target, _text(before), after, _text(after), filename)


def _for(python: PythonEnv | None) -> str:
    return f" for Python {python.version[0]}.{python.version[1]}" if python is not None and _other(python) else ""


@pausing
def ast_equal(a: bytes, b: bytes) -> bool:
    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


def reverse_refusal(
    before: bytes, after: bytes, backward_: Callable[[bytes], bytes], forward_: Callable[[bytes], bytes], filename: str
) -> Refusal | None:
    """The reverse proof: None, or why the patched `after` cannot be undone. backward(after) must be
    AST-equal to `before` and forward(backward(after)) must give `after` again."""
    try:
        restored = backward_(after)
        if restored == before:  # forward is a function of the bytes: forward(restored) is `after`
            return None
        if not ast_equal(restored, before):
            why = f"undoing the patch on {filename} does not give back the original code (compared as syntax trees)"
            return Refusal("reverse", why, REVERSE_HINT)
        if forward_(restored) != after:
            why = f"the patched {filename} is not stable: undoing and re-applying the patch gives different code"
            return Refusal("reverse", why, REVERSE_HINT)
    except RefusedError as exc:
        why, rewrite = short(exc)
        return Refusal("reverse", why, REVERSE_HINT, rewrite)
    return None


def _undo_one(patch: Patch, one: tuple[Rewrite, ...], prior: bytes, after: bytes, filename: str) -> Refusal | None:
    """The reverse proof of one rewrite's own step: `prior` patched by `one` gave `after`."""
    return reverse_refusal(
        prior, after, lambda d: backward(patch, one, d, filename), lambda d: forward(patch, one, d, filename), filename
    )


def _blame(patch: Patch, rws: tuple[Rewrite, ...], before: bytes, filename: str) -> Refusal | None:
    """The first rewrite whose own step does not undo, named with its registry file:line."""
    for k in range(len(rws)):
        one = rws[k : k + 1]
        try:
            prior = forward(patch, rws[:k], before, filename)
            after = forward(patch, one, prior, filename)
        except RefusedError:
            return None
        refusal = _undo_one(patch, one, prior, after, filename)
        if refusal is not None:
            return refusal.blame(rws[k])
    return None


@dataclass
class Case:
    """One module before and after a patch's rewrites, as every step reads it. `forward` and
    `backward` default to running the rewrites (verify passes memoised ones); the compile step
    leaves the checked-hash .pyc in `pyc` when `want_pyc` and this interpreter compiled it."""

    patch: Patch
    rewrites: tuple[Rewrite, ...]
    before: bytes
    after: bytes
    filename: str
    python: PythonEnv | None = None
    forward: Callable[[bytes], bytes] | None = None
    backward: Callable[[bytes], bytes] | None = None
    want_pyc: bool = False
    pyc: bytes | None = field(default=None, repr=False)
    module: str | None = None  # the module's dotted name (self-imports), when known
    stars: tuple[star_exports.ModuleSource, ...] | None = None  # verify: the star-imported modules read from the wheel

    def fwd(self, data: bytes) -> bytes:
        return self.forward(data) if self.forward else forward(self.patch, self.rewrites, data, self.filename)

    def bwd(self, data: bytes) -> bytes:
        return self.backward(data) if self.backward else backward(self.patch, self.rewrites, data, self.filename)


@dataclass(frozen=True)
class Step:
    """One proof step: its name (verify's column), what passing means, the check, and how apply
    words a refusal (naming the rewrite that causes it, found only on this refusal path)."""

    name: str
    meaning: str
    check: Callable[[Case], Refusal | None]
    refuse: Callable[[Case, Refusal], RefusedError]


def _check_compile(c: Case) -> Refusal | None:
    refusal, c.pyc = _compile(c.after, c.filename, c.python, c.before, want_pyc=c.want_pyc, module=c.module)
    return refusal


def _refuse_compile(c: Case, r: Refusal) -> RefusedError:
    culprit = _first(
        c.patch,
        c.rewrites,
        c.before,
        c.filename,
        lambda d: compile_refusal(d, c.filename, c.python, c.before, c.module) is not None,
    )
    return r.blame(culprit).error(c.patch)


def _check_names(c: Case) -> Refusal | None:
    return names_refusal(c.before, c.after, c.filename, c.python, c.module, unjudged(c.patch))


def _refuse_names(c: Case, r: Refusal) -> RefusedError:
    skip = unjudged(c.patch)
    missing = {p.key for p in _introduced(c.before, c.after, c.module, c.filename, c.python, skip) or ()}
    culprit = _first(
        c.patch,
        c.rewrites,
        c.before,
        c.filename,
        lambda d: bool(missing & {p.key for p in _introduced(c.before, d, c.module, c.filename, c.python, skip) or ()}),
    )
    return r.blame(culprit).error(c.patch)


def _check_placement(c: Case) -> Refusal | None:
    return placement_refusal(c.patch, c.rewrites, c.before, c.after, c.filename, c.python, c.module, c.stars)


def _check_reverse(c: Case) -> Refusal | None:
    return reverse_refusal(c.before, c.after, c.bwd, c.fwd, c.filename)


def _refuse_reverse(c: Case, r: Refusal) -> RefusedError:
    return (_blame(c.patch, c.rewrites, c.before, c.filename) or r).error(c.patch)


def _as_is(c: Case, r: Refusal) -> RefusedError:
    return r.error(c.patch)


STEPS: tuple[Step, ...] = (
    Step("compile", "the patched module compiles", _check_compile, _refuse_compile),
    Step(
        "names",
        "the patched module uses no name the original did not already leave undefined",
        _check_names,
        _refuse_names,
    ),
    Step(
        "placement",
        "a definition the patch adds shadows nothing, and no rewrite lands in dead code",
        _check_placement,
        _as_is,
    ),
    Step(
        "reverse",
        "undoing the patch gives back the original code (as a syntax tree; revert writes the kept original bytes)",
        _check_reverse,
        _refuse_reverse,
    ),
)


@pausing
def prove(
    patch: Patch,
    rws: tuple[Rewrite, ...],
    before: bytes,
    after: bytes,
    filename: str,
    python: PythonEnv | None = None,
    module: str | None = None,
) -> bytes | None:
    """Run STEPS in order; refuse at the first that fails, naming the rewrite that causes it (its id
    and registry file:line). Returns `after`'s checked-hash .pyc when this interpreter compiled it
    (None when another interpreter was asked)."""
    case = Case(patch, rws, before, after, filename, python, want_pyc=True, module=module)
    for step in STEPS:
        refusal = step.check(case)
        if refusal is not None:
            raise step.refuse(case, refusal)
    return case.pyc


def _first(
    patch: Patch, rws: tuple[Rewrite, ...], before: bytes, filename: str, bad: Callable[[bytes], bool]
) -> Rewrite | None:
    """The first rewrite after which the file is `bad` (None when a prefix cannot be planned)."""
    data = before
    for rw in rws:
        try:
            data = forward(patch, (rw,), data, filename)
        except RefusedError:
            return None
        try:
            if bad(data):
                return rw
        except (SyntaxError, ValueError):  # an intermediate state symtable cannot read: keep going
            continue
    return None


def _text(data: bytes) -> str:
    return decode(data)[0]


def analyse(data: bytes, module: str | None = None, filename: str = "") -> None:
    """Parse `data` once for its proofs and the rewrites' index of it (kept for the next steps)."""
    _analysis(data, names.module_of(module, filename))
