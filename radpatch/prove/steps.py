"""The proof: one ordered list of steps (STEPS) that apply and verify both run.

A patched module must compile in the target interpreter's grammar (compile), use no name the
original did not already leave undefined (names), put its code where it runs and shadow nothing
(placement), and undo to the original code (reverse). apply (prove.plan) stops at the first step
that refuses and names the rewrite that causes it; verify (releases.verify) reports each step as
a column. A step answers with a typed Refusal, never a bare string.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from radpatch.errors import RefusedError
from radpatch.gcpause import pausing
from radpatch.install.environment import PythonEnv
from radpatch.prove import enum_members, names, star_exports, unchecked
from radpatch.prove.analysis import backward, forward
from radpatch.prove.compile_check import _compile, compile_refusal
from radpatch.prove.names_check import introduced, names_refusal, own_modules, unjudged
from radpatch.prove.placement_check import placement_refusal
from radpatch.prove.refusal import Refusal
from radpatch.prove.reverse_check import _blame, reverse_refusal
from radpatch.registry.model import Patch, Rewrite, creates


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
    version: tuple[int, int] | None = None  # verify: the target Python's major.minor, without its interpreter
    site: tuple[str, ...] = ()  # verify: a directory holding the package's other modules (releases.package_files)

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
    # what the check leaves unchecked without an installed target (Case.python None: verify), in words
    unchecked: Callable[[Case], list[str]] = lambda c: []


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
    skip, own = unjudged(c.patch), own_modules(c.patch)
    return names_refusal(c.before, c.after, c.filename, c.python, c.module, skip, own, c.site)


def _refuse_names(c: Case, r: Refusal) -> RefusedError:
    skip, own = unjudged(c.patch), own_modules(c.patch)
    missing = {p.key for p in introduced(c.before, c.after, c.module, c.filename, c.python, skip, own, c.site) or ()}
    culprit = _first(
        c.patch,
        c.rewrites,
        c.before,
        c.filename,
        lambda d: bool(
            missing & {p.key for p in introduced(c.before, d, c.module, c.filename, c.python, skip, own, c.site) or ()}
        ),
    )
    return r.blame(culprit).error(c.patch)


def _check_placement(c: Case) -> Refusal | None:
    return placement_refusal(
        c.patch, c.rewrites, c.before, c.after, c.filename, c.python, c.module, c.stars, c.version, c.site
    )


def _check_reverse(c: Case) -> Refusal | None:
    return reverse_refusal(c.before, c.after, c.bwd, c.fwd, c.filename)


def _refuse_reverse(c: Case, r: Refusal) -> RefusedError:
    return (_blame(c.patch, c.rewrites, c.before, c.filename) or r).error(c.patch)


def _as_is(c: Case, r: Refusal) -> RefusedError:
    return r.error(c.patch)


STEPS: tuple[Step, ...] = (
    Step(
        "compile",
        "the patched module compiles",
        _check_compile,
        _refuse_compile,
        lambda c: unchecked.grammar(c.version),
    ),
    Step(
        "names",
        "the patched module uses no name the original did not already leave undefined",
        _check_names,
        _refuse_names,
        lambda c: unchecked.names(c.before, c.after, c.module, c.filename, c.version, bool(c.site)),
    ),
    Step(
        "placement",
        "a definition the patch adds shadows nothing, and no rewrite lands in dead code",
        _check_placement,
        _as_is,
        lambda c: (
            []
            if creates(c.rewrites)
            else unchecked.fallbacks(c.before, c.after, c.module, c.filename)
            + (
                enum_members.unasked(c.rewrites, c.before, names.module_of(c.module, c.filename), c.site)
                if c.site
                else enum_members.unread(c.rewrites)
            )
        ),
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
