"""One release's proof of an entry, in memory (verify runs it in worker processes).

A Job is a stack: the entry's requirements (`requires:`, in the order apply runs them) and the
entry last, each Layer holding its target files as the release's wheel has them; and candidate
Bases, releases the entry is written for (its declared range), the same targets' files as they
have them: the first where every layer applies shows what the entry's change is. The checks:

  requires    each requirement applies to the release's files first (or the release already
              contains it, or declares it `obsolete:`); the entry is proven on the files as the
              requirements leave them, as apply leaves them
  pristine    the entry's files do not already contain its change: not as status and apply judge
              it (prove.form.carries: the round trip, and not a `with` inside its `find`), and not in any layout
              (radpatch.releases.carried: the change the rewrites make of the base is there)
  match ... idempotent   as apply: the rewrites match, then apply's proof steps, then a second
              apply is a no-op

A failing check is a Refusal (radpatch.prove.refusal), the check's name as its step.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field

from packaging.version import Version

from radpatch.errors import RefusedError
from radpatch.prove.refusal import NOT_IN_EFFECT, Cause, Refusal
from radpatch.prove.star_exports import ModuleSource, module_of
from radpatch.prove.steps import STEPS, Case
from radpatch.registry import versions as policy
from radpatch.registry.model import Patch, Rewrite
from radpatch.releases import carried, replaced
from radpatch.releases.compared import Compared

PROOF_STEPS = {s.name: s.meaning for s in STEPS}  # apply's proof, step by step
MEANING = {
    "requires": (
        "the entries it requires apply first (or the release already contains them); the rest runs on their result"
    ),
    "pristine": (
        "the module does not already contain the change, in radpatch's layout or upstream's own (else: obsolete)"
    ),
    "match": "every rewrite matches exactly once",
    **PROOF_STEPS,
    "idempotent": (
        "the patched module classifies as applied (backward then forward reproduces it): a second apply is a no-op"
    ),
}
PROOF = tuple(MEANING)  # the checks that read the modules' text
Checks = dict[str, "bool | None"]


@dataclass(frozen=True)
class File:
    file: str
    module: str
    relpath: str
    rewrites: tuple[Rewrite, ...]
    data: bytes
    # the modules its star imports read (followed through theirs), as the release's wheel has them:
    # the placement step tells from them whether a later star import rebinds what the patch changes
    stars: tuple[ModuleSource, ...] = ()
    # the modules of the package its decorators are imported from (followed), as the wheel has them:
    # obsolete detection reads what such a decorator is (radpatch.releases.decorators)
    decorators: tuple[ModuleSource, ...] = ()


def _files_key(files: tuple[File, ...]) -> list[object]:
    return [
        [
            f.file,
            f.relpath,
            [r.id for r in f.rewrites],
            _sha(f.data),
            [[s.module, s.package, _sha(s.data)] for s in f.stars],
            [[s.module, s.package, _sha(s.data)] for s in f.decorators],
        ]
        for f in files
    ]


@dataclass(frozen=True)
class Layer:
    """One entry of a stack, and its files on the release."""

    patch: Patch
    files: tuple[File, ...]
    version: Version | None = None  # the release (for a requirement's `obsolete:`)

    def declared_obsolete(self, version: Version | None) -> bool:
        """The entry declares `version` in its `obsolete:` range (apply leaves it alone there)."""
        obsolete = self.patch.obsolete
        return version is not None and obsolete is not None and policy.allows(obsolete, version)

    def key(self) -> list[object]:
        return [self.patch.name, self.patch.digest, self.declared_obsolete(self.version), _files_key(self.files)]


@dataclass(frozen=True)
class ProofBase:
    """A release the entry is written for (its declared range), whose files show what the entry's
    change is: each layer's files there, in the job's order."""

    version: Version
    files: tuple[tuple[File, ...], ...]  # per layer of the job

    def key(self, layers: tuple[Layer, ...]) -> list[object]:
        return [[la.declared_obsolete(self.version), _files_key(fs)] for la, fs in zip(layers, self.files)]


@dataclass(frozen=True)
class Job:
    layers: tuple[Layer, ...]  # the requirements, in order, then the entry
    bases: tuple[ProofBase, ...] = ()  # candidates, the first where every layer applies is used

    @property
    def entry(self) -> Layer:
        return self.layers[-1]

    def key(self) -> str:
        """What the proof's answer depends on besides radpatch's code: entries, rewrites, bytes."""
        return json.dumps([[la.key() for la in self.layers], [b.key(self.layers) for b in self.bases]])


@dataclass(frozen=True)
class Proof:
    checks: Checks
    refusal: Refusal | None

    @property
    def error(self) -> str | None:
        return None if self.refusal is None else f"{self.refusal.step}: {self.refusal.why}"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Memo:
    """runner.forward / runner.backward of one file's rewrites, each computed once per input."""

    def __init__(self, patch: Patch, rewrites: tuple[Rewrite, ...], relpath: str) -> None:
        self.patch, self.rewrites, self.relpath = patch, rewrites, relpath
        self.done: dict[tuple[str, bytes], bytes | RefusedError] = {}

    def _call(self, way: str, data: bytes) -> bytes:
        key = (way, data)
        if key not in self.done:
            # here, not at the top: a run whose proofs are all kept never loads libcst
            from radpatch.rewrite import runner

            fn = runner.forward if way == "forward" else runner.backward
            try:
                self.done[key] = fn(self.patch, self.rewrites, data, self.relpath)
            except RefusedError as exc:
                self.done[key] = exc
        got = self.done[key]
        if isinstance(got, RefusedError):
            raise got
        return got

    def forward(self, data: bytes) -> bytes:
        return self._call("forward", data)

    def backward(self, data: bytes) -> bytes:
        return self._call("backward", data)

    def reads_patched(self, data: bytes) -> bool:
        """status's round trip, on the memoised forward/backward: how a file radpatch patched (the
        patched module, for the idempotent check) reads as applied."""
        from radpatch.prove.form import round_trip

        return round_trip(self.patch, self.rewrites, data, self.relpath, self.forward, self.backward).patched

    def carries(self, data: bytes, in_effect: Callable[[bytes], bool] | None = None) -> bool:
        """A release's file already carries the change, as status and apply judge a file radpatch
        has no record of (prove.form.carries), on the memoised forward/backward."""
        from radpatch.prove.form import carries

        return carries(self.patch, self.rewrites, data, self.relpath, self.forward, self.backward, in_effect=in_effect)


@dataclass
class _Run:
    """One job's state as the checks go: each file's bytes (the release's, as the requirements
    leave them), each layer's change on the base (computed when first asked), the patched bytes."""

    job: Job
    data: dict[str, bytes] = field(default_factory=dict)  # relpath -> the release's bytes
    after: dict[str, bytes] = field(default_factory=dict)  # relpath -> the entry's patched bytes
    memos: dict[tuple[str, str, tuple[str, ...]], Memo] = field(default_factory=dict)
    _changes: list[dict[str, tuple[bytes, bytes]]] | None = None

    def memo(self, patch: Patch, f: File) -> Memo:
        key = (patch.name, f.relpath, tuple(r.id for r in f.rewrites))
        if key not in self.memos:
            self.memos[key] = Memo(patch, f.rewrites, f.relpath)
        return self.memos[key]

    def change(self, layer: int, file: str) -> tuple[bytes, bytes] | None:
        """What layer `layer` does to `file` (a `modules:` name) on a base release: (before, after); None when no
        candidate base has every layer apply."""
        if self._changes is None:
            self._changes = next((c for b in self.job.bases if (c := self._on_base(b)) is not None), [])
        return self._changes[layer].get(file) if layer < len(self._changes) else None

    def _on_base(self, base: ProofBase) -> list[dict[str, tuple[bytes, bytes]]] | None:
        """Every layer run on `base` in order: per layer, `modules:` name -> (before, after); None when one
        does not apply there."""
        state: dict[str, bytes] = {}
        out: list[dict[str, tuple[bytes, bytes]]] = []
        for layer, files in zip(self.job.layers, base.files):
            for f in files:
                state.setdefault(f.relpath, f.data)
            changes: dict[str, tuple[bytes, bytes]] = {}
            if not layer.declared_obsolete(base.version):
                for f in files:
                    try:
                        after = self.memo(layer.patch, f).forward(state[f.relpath])
                    except RefusedError:
                        return None
                    changes[f.file] = (state[f.relpath], after)
                    state[f.relpath] = after
            out.append(changes)
        return out


def prove(job: Job) -> Proof:
    """Run PROOF over the job, check by check; stop at the first refusal."""
    run = _Run(job)
    for layer in job.layers:
        for f in layer.files:
            run.data.setdefault(f.relpath, f.data)
    checks: Checks = dict.fromkeys(PROOF)
    for check in PROOF:
        refusal = _CHECKS[check](run)
        if refusal is not None:
            checks[check] = False
            return Proof(checks, refusal)
        checks[check] = True
    return Proof(checks, None)


def _contains(run: _Run, index: int, memo: Memo, f: File, data: bytes) -> bool:
    """`data` (a file of layer `index`) already holds the layer's change. In radpatch's layout,
    status's and apply's judgement tells (prove.form.carries); in upstream's own, only where the
    rewrites do not apply (where they apply, apply makes the change: an insertion already there is
    told by the round trip). Neither where a `replace`'s new code may not take effect (not_in_effect)."""
    if memo.carries(data, _in_effect(run, index, f)):
        return True
    if memo.carries(data):
        return False  # it reads as patched, but the new code may not take effect (not_in_effect)
    try:
        memo.forward(data)
        return False
    except RefusedError:
        pass
    change = run.change(index, f.file)
    return change is not None and _carried(change, f, data) and not _undone(change, f, data)


def _carried(change: tuple[bytes, bytes], f: File, data: bytes) -> bool:
    """radpatch.releases.carried on the release's file, with the modules its decorators come from."""
    return carried.carries(Compared(*change, data, module_of(f.relpath), f.decorators))


def _undone(change: tuple[bytes, bytes], f: File, data: bytes) -> bool:
    """radpatch.releases.replaced on the release's file, with the modules its decorators come from."""
    return replaced.undone(Compared(*change, data, module_of(f.relpath), f.decorators))


def _in_effect(run: _Run, index: int, f: File) -> Callable[[bytes], bool]:
    """Whether layer `index`'s new code in `f` takes effect, judged against its change on a base
    (radpatch.releases.replaced); True where no base tells (the first proof, without bases)."""

    def judge(data: bytes) -> bool:
        change = run.change(index, f.file)
        return change is None or not _undone(change, f, data)

    return judge


def not_in_effect(run: _Run, index: int, memo: Memo, f: File, data: bytes) -> bool:
    """`data` holds layer `index`'s new code (it reads as patched, or holds the change in upstream's
    layout) but, against the change on a base, it may not take effect (prove.refusal.NOT_IN_EFFECT):
    not carried, so not obsolete."""
    change = run.change(index, f.file)
    if change is None or not _undone(change, f, data):
        return False
    if memo.carries(data):
        return True
    try:
        memo.forward(data)
        return False  # the rewrites still apply: apply makes the change there
    except RefusedError:
        return _carried(change, f, data)


def _requires(run: _Run) -> Refusal | None:
    for index, layer in enumerate(run.job.layers[:-1]):
        if layer.declared_obsolete(layer.version):
            continue  # apply leaves it alone there
        for f in layer.files:
            memo = run.memo(layer.patch, f)
            now = run.data[f.relpath]
            try:
                run.data[f.relpath] = memo.forward(now)
            except RefusedError as exc:
                if _contains(run, index, memo, f, now):
                    continue  # the release already has it
                from radpatch.rewrite.runner import short

                return Refusal(
                    "requires",
                    f"{layer.patch.name} (required) does not apply to {f.relpath}: {short(exc)}",
                    f"verify {layer.patch.name} alone; the entry is proven only on what its requirements leave",
                    cause=Cause.REQUIREMENT,
                )
    return None


def _entry_files(run: _Run) -> list[File]:
    """The entry's files with the bytes the requirements left."""
    return [dataclasses.replace(f, data=run.data[f.relpath]) for f in run.job.entry.files]


def _pristine(run: _Run) -> Refusal | None:
    patch = run.job.entry.patch
    last = len(run.job.layers) - 1
    for f in _entry_files(run):
        if _contains(run, last, run.memo(patch, f), f, f.data):
            return Refusal(
                "pristine",
                f"{f.relpath} already contains this change: the release is obsolete for this patch",
                "declare the releases in `obsolete:` (apply then leaves them alone), or end `supported` before them",
            )
        if not_in_effect(run, last, run.memo(patch, f), f, f.data):
            return Refusal(
                "pristine",
                f"{f.relpath}: {NOT_IN_EFFECT}, so the release does not carry the change (not obsolete)",
                "read the release's code: where the change is still needed, add a `versions:` variant of the "
                "rewrite that makes it there; where it is not, declare the release in `obsolete:`",
                cause=Cause.NOT_IN_EFFECT,
                file=f.file,
            )
    for f, wheel in zip(_entry_files(run), run.job.entry.files):
        part = _part_present(patch, f, wheel.data)
        if part is not None:
            return part
    return None


def _part_present(patch: Patch, f: File, wheel: bytes) -> Refusal | None:
    """The release's file already holds what some of the entry's rewrites add (upstream took part
    of the change), as apply judges it before planning (prove.form.present, which refuse_if_present
    asks): on the file as the requirements leave it and, as apply asks of a file radpatch has no
    record of, on the release's own bytes (code a requirement inserted is not upstream's)."""
    from radpatch.prove.form import present

    found = present(patch, f.rewrites, f.data, f.relpath)
    if found is None or (wheel != f.data and present(patch, f.rewrites, wheel, f.relpath) is None):
        return None
    rewrites, what = found
    ids = ", ".join(repr(rw.id) for rw in rewrites)
    todo = f"drop rewrite {ids} for this release with a `versions:` variant, or split the entry"
    return Refusal(
        "pristine",
        f"{f.relpath} already contains {what} (upstream took part of the change; apply refuses it): {todo}",
        f"{todo}; if the release needs none of the change, declare it in `obsolete:`",
        rewrites[0].id,
        cause=Cause.PART_PRESENT,
        file=f.file,
    )


def _match(run: _Run) -> Refusal | None:
    patch = run.job.entry.patch
    for f in _entry_files(run):
        try:
            run.after[f.relpath] = run.memo(patch, f).forward(f.data)
        except RefusedError as exc:
            from radpatch.rewrite.runner import RewriteRefused  # loaded by the forward that raised it

            if not isinstance(exc, RewriteRefused):
                return Refusal("match", exc.message, exc.hint or "")
            gone = Cause.SCOPE_GONE if exc.scope_gone else None
            return Refusal("match", exc.message, exc.hint or "", exc.rewrite, cause=gone, file=f.file)
    return None


def _proof_step(name: str) -> Callable[[_Run], Refusal | None]:
    """One of apply's proof steps (prove.steps.STEPS), on this release's module, as its own check."""
    step = next(s for s in STEPS if s.name == name)

    def check(run: _Run) -> Refusal | None:
        patch = run.job.entry.patch
        for f in _entry_files(run):
            m = run.memo(patch, f)
            case = Case(
                patch,
                f.rewrites,
                f.data,
                run.after[f.relpath],
                f.relpath,
                None,
                m.forward,
                m.backward,
                module=f.module,
                stars=f.stars,
            )
            refusal = step.check(case)
            if refusal is not None:
                return Refusal(name, refusal.why, refusal.hint)
        return None

    return check


def _idempotent(run: _Run) -> Refusal | None:
    patch = run.job.entry.patch
    for f in _entry_files(run):
        if not run.memo(patch, f).reads_patched(run.after[f.relpath]):
            return Refusal(
                "idempotent",
                f"the patched {f.relpath} does not classify as applied (backward then forward does not reproduce it): "
                "a second apply would not be a no-op",
                "a rewrite's result must be what its undo finds: check each rewrite's `with`/`code`",
            )
    return None


_CHECKS: dict[str, Callable[[_Run], Refusal | None]] = {
    "requires": _requires,
    "pristine": _pristine,
    "match": _match,
    **{name: _proof_step(name) for name in PROOF_STEPS},
    "idempotent": _idempotent,
}
