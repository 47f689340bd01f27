"""How close the entries come to GNU patch: every file the series changes, as apply's plan leaves
it after the entries (importing.dry_run: the rewrites run once, by apply's own runner, on the
installed files, each entry on what the ones before it leave), compared with what `patch` gives.

What is measured is what a user applies: the plan is of the entries loaded from the YAML and
payloads import writes (written to a scratch registry for the proof; only `supported:` may differ,
as --supported says), not the importer's simulation. The rewrites are checked to reproduce
`patch`'s code before anything is written (importing.rewrites); here the bytes are counted too: a
`delete` leaves a marker comment, comments between changed statements may not be carried over, so
some files are AST-equal only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from radpatch.importing.emit import same_code

Same = Literal["bytes", "ast", "differs", "unplanned"]


@dataclass(frozen=True)
class FileResult:
    rel: str  # relative to the site directory
    same: Same  # byte-identical to patch's result, AST-equal only, different code, or not planned
    detail: str = ""  # for "unplanned": why apply's plan has no result for it


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
            elif f.same == "unplanned":
                out.append(f"  {f.rel}: {f.detail}")
        return out


def replay(planned: dict[str, bytes], changed: list[str], patched: list[tuple[str, str | None]]) -> Replayed:
    """`planned`: each file as apply's plan leaves it after the entries (importing.dry_run.prove);
    `changed`: the files the entries change, in series order; `patched`: (file, the text `patch`
    leaves it with), in series order (the last one per file is the result). Files are relative to
    the site directory; texts are UTF-8 with surrogate escapes, as the importer reads bytes."""
    expected = dict(patched)
    results = []
    for rel in dict.fromkeys(changed):
        got, want = planned.get(rel), expected.get(rel)
        if got is None:
            results.append(
                FileResult(rel, "unplanned", "apply's plan leaves it unchanged (the entry reads applied here)")
            )
        elif want is not None and got == want.encode("utf-8", "surrogateescape"):
            results.append(FileResult(rel, "bytes"))
        elif want is not None and same_code(got.decode("utf-8", "surrogateescape"), want):
            results.append(FileResult(rel, "ast"))
        else:
            results.append(FileResult(rel, "differs"))
    return Replayed(tuple(results))
