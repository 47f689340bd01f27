"""A file's code hash: its syntax tree without positions (comments and layout do not count), tagged
with the Python that computed it, and the same hash computed by the target's interpreter (for its
engine-start self-check). Standard library only."""

from __future__ import annotations

import ast
import hashlib
import sys

CODE_SCHEME = f"ast{sys.version_info[0]}.{sys.version_info[1]}"  # ast.dump's text differs between Pythons


# the same hash computed by another interpreter (the target's, for its engine-start self-check)
TARGET_PROBE = """\
import ast, base64, hashlib, json, sys
tag = "ast%d.%d" % sys.version_info[:2]
out = []
for blob in json.loads(sys.stdin.read()):
    try:
        text = ast.dump(ast.parse(base64.b64decode(blob)))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        out.append("")
        continue
    out.append(tag + ":" + hashlib.sha256(text.encode()).hexdigest())
print(json.dumps(out))
"""


def target_code_hashes(executable: str, blobs: list[bytes]) -> list[str] | None:
    """The code hashes of `blobs` as the interpreter `executable` computes them, or None when it
    cannot be asked (the record then keeps radpatch's own only)."""
    import base64
    import json
    import subprocess

    try:
        done = subprocess.run(
            [executable, "-I", "-c", TARGET_PROBE],
            input=json.dumps([base64.b64encode(b).decode() for b in blobs]),
            capture_output=True,
            text=True,
            timeout=120,
        )
        out = json.loads(done.stdout) if done.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None
    if not isinstance(out, list) or len(out) != len(blobs) or not all(isinstance(c, str) for c in out):
        return None
    return out


def code_hash(data: bytes) -> str:
    """A hash of the file's code and nothing else: its syntax tree without positions, so comments,
    blank lines and formatting do not change it. Tagged with this Python's version (another
    Python's tree prints differently); "" for a file that does not parse."""
    try:
        tree = ast.parse(data)
        text = ast.dump(tree)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ""
    return f"{CODE_SCHEME}:{hashlib.sha256(text.encode()).hexdigest()}"
