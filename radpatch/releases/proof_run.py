"""One proof job's state as verify's checks go (radpatch.releases.proof): the rewrites run forward
and backward on each input once (Memo), each file's bytes as the requirements leave them, and each
layer's change read off the first candidate base where every layer applies (JobRun.change).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from radpatch.errors import RefusedError
from radpatch.registry.model import Patch, Rewrite
from radpatch.releases.proof_job import File, Job, ProofBase


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
class JobRun:
    """One job's state as the checks go: each file's bytes (the release's, as the requirements
    leave them), each layer's change on the base (computed when first asked), the patched bytes."""

    job: Job
    data: dict[str, bytes] = field(default_factory=dict)  # relpath -> the release's bytes
    after: dict[str, bytes] = field(default_factory=dict)  # relpath -> the entry's patched bytes
    memos: dict[tuple[str, str, tuple[str, ...]], Memo] = field(default_factory=dict)
    unchecked: list[str] = field(default_factory=list)  # what the steps could not check without a target
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

    def on_base(self, base: ProofBase) -> list[dict[str, tuple[bytes, bytes]]] | None:
        return self._on_base(base)

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
