"""Real vLLM module files (tests/fixtures/vllm/<version>/...) installed into a fake site-packages."""

from __future__ import annotations

from pathlib import Path

from tests.lib.site import record_hash

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "vllm"
VERSIONS = ("0.32.0", "0.33.0")


def fixture(version: str, relpath: str) -> bytes:
    return (FIXTURES / version / relpath).read_bytes()


def install_vllm(root: Path, version: str) -> dict[str, bytes]:
    """Every fixture file of `version`, byte for byte, and a vllm dist-info whose RECORD hashes them."""
    rows, files = [], {}
    for path in sorted((FIXTURES / version).rglob("*.py")):
        rel = path.relative_to(FIXTURES / version).as_posix()
        data = path.read_bytes()
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
        rows.append(f"{rel},sha256={record_hash(data)},{len(data)}")
        files[rel] = data
    dist = root / f"vllm-{version}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: vllm\nVersion: {version}\n\n")
    (dist / "RECORD").write_text("\n".join([*rows, f"{dist.name}/METADATA,,", f"{dist.name}/RECORD,,"]) + "\n")
    return files
