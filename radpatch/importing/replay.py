"""How close the written entries come to GNU patch: each entry's rewrites run in memory, in series
order, on the installed files, and every file compared with what `patch` gives.

Why after writing: what is measured is what a user applies, the entries loaded from the YAML and
payloads just written, by the engine's own runner (`rewrite.runner.forward`), not the importer's
simulation. The rewrites are checked to reproduce `patch`'s code before anything is written
(importing.rewrites); here the bytes are counted too: a `delete` leaves a marker comment, comments
between changed statements may not be carried over, so some files are AST-equal only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from radpatch.errors import RadpatchError
from radpatch.importing.emit import same_code
from radpatch.registry.loader import load_patch
from radpatch.rewrite.runner import forward

Same = Literal["bytes", "ast", "differs", "refused"]


@dataclass(frozen=True)
class FileResult:
    rel: str  # relative to the site directory
    same: Same  # byte-identical to patch's result, AST-equal only, different code, or the entry refused
    detail: str = ""  # for "refused": the refusal


@dataclass(frozen=True)
class Replayed:
    files: tuple[FileResult, ...]

    def count(self, same: Same) -> int:
        return sum(f.same == same for f in self.files)

    def lines(self) -> list[str]:
        """The summary: `N of M files byte-identical to patch's result; the others AST-equal`, and
        one line per file that is neither (which would be an importer bug)."""
        total, identical = len(self.files), self.count("bytes")
        plural = "s" if total != 1 else ""
        if identical == total:
            head = f"{identical} of {total} file{plural} byte-identical to patch's result"
        elif identical + self.count("ast") == total:
            head = f"{identical} of {total} file{plural} byte-identical to patch's result; the others AST-equal"
        else:
            head = (
                f"{identical} of {total} file{plural} byte-identical to patch's result, {self.count('ast')} "
                f"AST-equal only, {total - identical - self.count('ast')} not reproduced (an importer bug; "
                "please report it)"
            )
        out = [head]
        for f in self.files:
            if f.same == "differs":
                out.append(f"  {f.rel}: the entries' result is not the code patch gives")
            elif f.same == "refused":
                out.append(f"  {f.rel}: the entries do not run on the installed file: {f.detail}")
        return out


def replay(site: Path, entries: list[Path], patched: list[tuple[str, str | None]]) -> Replayed:
    """`entries`: the written YAML files, in series order; `patched`: (file, the text `patch`
    leaves it with), in series order (the last one per file is the result). Files are relative to
    `site`; texts are UTF-8 with surrogate escapes, as the importer reads bytes."""
    expected = dict(patched)
    current: dict[str, bytes | None] = {}
    refused: dict[str, str] = {}
    for path in entries:
        patch = load_patch(path)
        for module in patch.modules:
            rel = module.choices[0].module_relpath
            if rel in refused:
                continue
            if rel not in current:
                disk = site / rel
                current[rel] = disk.read_bytes() if disk.is_file() else None
            rws = tuple(r for r in patch.rewrites if r.file == module.name)
            try:
                current[rel] = forward(patch, rws, current[rel] or b"", rel)
            except RadpatchError as exc:
                refused[rel] = exc.message
    results = []
    for rel, got in current.items():
        want = expected.get(rel)
        if rel in refused:
            results.append(FileResult(rel, "refused", refused[rel]))
        elif want is not None and got == want.encode("utf-8", "surrogateescape"):
            results.append(FileResult(rel, "bytes"))
        elif want is not None and got is not None and same_code(got.decode("utf-8", "surrogateescape"), want):
            results.append(FileResult(rel, "ast"))
        else:
            results.append(FileResult(rel, "differs"))
    return Replayed(tuple(results))
