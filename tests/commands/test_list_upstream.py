"""`radpatch list`: each entry's upstream state below the table (links, and obsolete-from once
verify has seen the releases that contain the change)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.releases.test_matrix_and_port import entry
from tests.unit.test_verify import IndexServer, build_wheel, serve  # noqa: F401 (serve: a fixture)

LINK = "https://github.com/vllm-project/vllm/pull/31337"


def test_list_names_the_links_then_obsolete_from_once_verify_saw_it(
    tmp_path: Path,
    serve: Any,  # noqa: F811
    write_registry: Any,
    radpatch: Any,
) -> None:
    from tests.releases.test_matrix_and_port import RELEASES

    for version in ("1.0", "3.0"):
        build_wheel(tmp_path / "wheels", "radpatch-toy", version, dict(RELEASES[version]))
    serve()
    reg = write_registry("cap", f"upstream: [{LINK}]\n" + entry(">=1.0,<4"))
    before = radpatch("--registry", str(reg), "list")
    assert "upstream: cap: vllm-project/vllm#31337\n" in before.out
    v = radpatch("--registry", str(reg), "verify", "cap")
    assert v.code == 1  # a release of the declared range already has the change: retire or declare it
    assert f"radpatch-toy 3.0 already contains the change (declare it in `obsolete:`; upstream: {LINK})" in v.out
    after = radpatch("--registry", str(reg), "list")
    assert "upstream: cap: vllm-project/vllm#31337, obsolete from 3.0\n" in after.out
