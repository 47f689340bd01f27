"""The proof: one ordered list of steps (STEPS) that apply and verify both run.

A patched module must compile in the target interpreter's grammar (compile), use no name the
original did not already leave undefined (names), put its code where it runs and shadow nothing
(placement), and undo to the original code (reverse). apply (prove.plan) stops at the first step
that refuses and names the rewrite that causes it; verify (releases.verify) reports each step as
a column. A step answers with a typed Refusal, never a bare string.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from radpatch.errors import RefusedError
from radpatch.files.bytecode import checked_pyc
from radpatch.gcpause import pausing
from radpatch.install.environment import PythonEnv
from radpatch.prove import star_exports, unchecked
from radpatch.prove.analysis import backward, compiled, for_python, forward, on_target, other_python, short
from radpatch.prove.names_check import introduced, names_refusal, own_modules, unjudged
from radpatch.prove.placement_check import placement_refusal
from radpatch.prove.refusal import COMPILE_HINT, REVERSE_HINT, Refusal
from radpatch.registry.model import Patch, Rewrite, creates


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
    if other_python(python):
        assert python is not None
        why = on_target(python, before if before is not None else after, after, filename, module).compile_error
    else:
        why, code = compiled(after, filename)
        out = checked_pyc(after, code) if code is not None and want_pyc else None
        del code  # the marshalled bytes are a fraction of the code objects: free them before the next proof
    if why is None:
        return None, out
    what, hint = _newer_grammar(after, filename, python, why) or (why, COMPILE_HINT)
    return Refusal("compile", f"the patched {filename} does not compile{for_python(python)}: {what}", hint), None


_LINE = re.compile(r"\(line (\d+)\)")
_F_STRING = re.compile(r"""(?<![\w'"])(?:[fF][rR]?|[rR][fF])['"]""")


def _f_string_at(data: bytes, why: str) -> bool:
    """Does the line the compile error names (`why`'s "(line N)") hold an f-string?"""
    at = _LINE.search(why)
    if at is None:
        return False
    n, lines = int(at.group(1)), data.decode("utf-8", "replace").splitlines()
    return 0 < n <= len(lines) and bool(_F_STRING.search(lines[n - 1]))


def _newer_grammar(after: bytes, filename: str, python: PythonEnv | None, why: str) -> tuple[str, str] | None:
    """(what, what to do) when `after`, refused by an older target's compiler, compiles on radpatch's
    own newer Python: code written in a grammar the target lacks (PEP 701's f-strings, 3.12), which
    is correctly refused, but for that reason, not as code that is wrong."""
    if python is None or not other_python(python) or tuple(python.version[:2]) >= sys.version_info[:2]:
        return None
    if compiled(after, filename)[0] is not None:
        return None
    here, there = f"{sys.version_info[0]}.{sys.version_info[1]}", f"{python.version[0]}.{python.version[1]}"
    if sys.version_info >= (3, 12) and _f_string_at(after, why):
        return (
            f"{why}; the rewrite's f-string is Python 3.12+ syntax (PEP 701: the f-string's own quotes, a "
            f"backslash or a comment inside its braces), which the target's Python {there} does not read",
            "inside an f-string's braces use the other quotes (f\"{d['k']}\"), and no backslash or comment",
        )
    return (
        f"{why}; the rewrite's code is valid on Python {here} (radpatch's) but not in the target's "
        f"Python {there} grammar",
        f"write the rewrite's code in Python {there}'s syntax",
    )


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
    return placement_refusal(c.patch, c.rewrites, c.before, c.after, c.filename, c.python, c.module, c.stars, c.version)


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
        lambda c: [] if creates(c.rewrites) else unchecked.fallbacks(c.before, c.after, c.module, c.filename),
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
