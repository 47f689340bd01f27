"""The index client's verifying TLS context is built once per process for what it is built from
(pip's `cert` bundle, its client certificate, the system trust store), and again when one of those
files changes: each Http (one per verify run) used to read and parse the whole trust store."""

from __future__ import annotations

import dataclasses
import itertools
import shutil
import ssl
import subprocess
from pathlib import Path

import pytest

from radpatch.releases.index import Http
from radpatch.releases.pipconf import PipSettings
from tests.lib.generated import sample

pytestmark = pytest.mark.skipif(
    shutil.which("openssl") is None, reason="needs the openssl command to make certificates"
)

BASE = PipSettings("https://index.radpatch.invalid/simple/", (), False, (), None, None, None, frozenset(), 5.0, ())


def _certificate(tmp: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate and its key (ec: quick to make)."""
    key, cert = tmp / f"{name}.key", tmp / f"{name}.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        + ["-days", "2", "-subj", f"/CN={name}", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    return cert, key


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    tmp = tmp_path_factory.mktemp("certs")
    return {name: _certificate(tmp, name) for name in ("one", "two", "client")}


def _subjects(ctx: ssl.SSLContext) -> list[str]:
    return sorted(str(c["subject"]) for c in ctx.get_ca_certs())


# the CA file: the system store's (SSL_CERT_FILE) or pip's `cert` bundle; pip's client certificate:
# none or one; which file changes in place between runs: none, the CA file, the client certificate
CASES = sample(
    [
        (ca, client, change)
        for ca, client, change in itertools.product(("system", "bundle"), ("none", "client"), ("none", "ca", "client"))
        if not (change == "client" and client == "none")
    ]
)


@pytest.mark.parametrize(("ca", "client", "change"), CASES)
def test_one_context_per_content_of_what_it_is_built_from(
    ca: str,
    client: str,
    change: str,
    certs: dict[str, tuple[Path, Path]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[ssl.SSLContext] = []
    real = ssl.create_default_context

    def counting(*args: object, **kwargs: object) -> ssl.SSLContext:
        built.append(real(*args, **kwargs))  # type: ignore[arg-type]
        return built[-1]

    monkeypatch.setattr(ssl, "create_default_context", counting)
    cafile, client_pem = tmp_path / "ca.pem", tmp_path / "client.pem"
    if ca == "system":
        monkeypatch.setenv("SSL_CERT_FILE", str(cafile))  # the system store OpenSSL reads
    shutil.copyfile(certs["one"][0], cafile)
    client_pem.write_bytes(certs["client"][1].read_bytes() + certs["client"][0].read_bytes())
    settings = dataclasses.replace(
        BASE,
        cert=str(cafile) if ca == "bundle" else None,
        client_cert=str(client_pem) if client == "client" else None,
    )
    first = [Http(settings)._opener(True) for _ in range(3)]  # one Http per verify run
    assert len(first) == 3 and len(built) == 1
    assert _subjects(built[0]) == _subjects(real(cafile=str(certs["one"][0])))
    if change == "ca":
        shutil.copyfile(certs["two"][0], cafile)
    elif change == "client":
        client_pem.write_bytes(certs["two"][1].read_bytes() + certs["two"][0].read_bytes())
    Http(settings)._opener(True)
    Http(settings)._opener(True)
    assert len(built) == (1 if change == "none" else 2)
    if change == "ca":  # the new context trusts the bundle's new content
        assert _subjects(built[1]) == _subjects(real(cafile=str(certs["two"][0])))
