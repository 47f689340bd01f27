"""Count the names step's bound-on-some-paths reads over a release sdist's package files, read-only
(`tar` members are read in memory, nothing is extracted): the measure of how much correct code a
bound-on-some-paths rule would refuse (issue 21, flow39 F5 and flow40).

    python tools/partial_reads.py [--rev REV] [--sdist PATH | --tree DIR] [--list FILE] [--kind KIND]

--rev: a git revision of this checkout whose `radpatch/prove/names` is measured (copied out with `git
show` into a temporary directory; the package is standard library only); default: the checkout's own.
--tree: an installed `vllm` package folder instead of the sdist (its `.py` files, each named as the
sdist's `vllm/...`): a harness release venv's, `~/.cache/radpatch/harness/releases/0.33.0-py311/lib/
python3.11/site-packages/vllm`.
--list: write each read as `path:line: scope name`, to compare two revisions with `comm`.
--kind: count the problems of another kind (`all`: of every kind, each row with its kind)."""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SDIST = Path.home() / ".cache/radpatch/harness/sdists/vllm-0.33.0.tar.gz"


def names_package(rev: str | None, into: Path) -> object:
    """The names package of `rev` (None: this checkout's), served as the target probe serves it: as
    `radpatch_names`, beside `radpatch_placement` (names.special_forms imports placement.reached, and
    placement imports names back under that name when served)."""
    for package, name in (("names", "radpatch_names"), ("placement", "radpatch_placement")):
        folder = f"radpatch/prove/{package}/"
        listed = (
            subprocess.run(
                ["git", "-C", str(ROOT), "ls-tree", "--name-only", rev, folder],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            if rev is not None
            else [str(p.relative_to(ROOT)) for p in sorted((ROOT / folder).glob("*.py"))]
        )
        (into / name).mkdir()
        for path in listed:
            if rev is None:
                data = (ROOT / path).read_bytes()
            else:
                data = subprocess.run(
                    ["git", "-C", str(ROOT), "show", f"{rev}:{path}"], capture_output=True, check=True
                ).stdout
            (into / name / os.path.basename(path)).write_bytes(data)
    sys.path.insert(0, str(into))
    return importlib.import_module("radpatch_names")


def sources(sdist: Path, tree: Path | None) -> Iterator[tuple[str, bytes]]:
    """Each package file as (`vllm/...`, its bytes): from the folder `tree`, else the sdist's members."""
    if tree is not None:
        for path in sorted(tree.rglob("*.py")):
            yield f"vllm/{path.relative_to(tree).as_posix()}", path.read_bytes()
        return
    with tarfile.open(sdist) as tar:
        for member in tar.getmembers():
            parts = member.name.split("/")
            if not member.isfile() or not member.name.endswith(".py") or len(parts) < 3 or parts[1] != "vllm":
                continue
            handle = tar.extractfile(member)
            if handle is not None:
                yield "/".join(parts[1:]), handle.read()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rev")
    parser.add_argument("--sdist", type=Path, default=SDIST)
    parser.add_argument("--tree", type=Path)
    parser.add_argument("--list", type=Path)
    parser.add_argument("--kind", default="bound-on-some-paths")
    args = parser.parse_args()
    if args.tree is None and not args.sdist.is_file():
        print(f"{args.sdist}: no such sdist (give --sdist PATH or --tree DIR)", file=sys.stderr)
        return 2
    rows: list[str] = []
    files = 0
    with tempfile.TemporaryDirectory() as tmp:
        names = names_package(args.rev, Path(tmp))
        gc.disable()
        every = args.kind == "all"
        for where, data in sources(args.sdist, args.tree):
            try:
                found = names.problems(data, where)  # type: ignore[attr-defined]
            except SyntaxError:
                continue
            files += 1
            rows += [
                f"{where}:{p.line}: {p.scope} {p.name}" + (f" {p.kind}" if every else "")
                for p in found
                if every or p.kind == args.kind
            ]
    source = args.tree if args.tree is not None else args.sdist.name
    print(f"{args.rev or 'checkout'}: {len(rows)} {args.kind} reads in {files} files of {source}")
    if args.list:
        args.list.write_text("".join(row + "\n" for row in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
