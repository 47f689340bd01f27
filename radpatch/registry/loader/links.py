"""An `upstream:` link as the registry takes it: an http(s) URL that is a valid IRI-reference (the
CycloneDX BOM's `resolves[].references` must be), with an authority `[user@]host[:port]`, the host a
name or an IPv6 address in brackets. A link is taken as a browser's address bar shows it: the scheme and
host in any case, non-ASCII characters as they are (an IRI's; the SBOM writes them percent-encoded).
Otherwise one line says what is wrong and what to write. Two links that differ only in the case of their
scheme or host, or in writing the scheme's default port (`:443` for https), are one link (`same`).

A GitHub pull request or issue is read as OWNER/REPO#N (`github_ref`, as `list` and the SBOM name it) in
every spelling GitHub answers for the same thing: `www.`, the default port, a subpage (`/files`,
`/commits/SHA`), a query, a fragment (`#issuecomment-1`), a pull request's `.diff` or `.patch`. A link to
github.com (on its default port) whose path names a pull request or issue but no number of one
(`/pulls/1`, `/pull/12a`, `/issues/`) is refused, saying what to write; on another port it is another
link, shown as written; a git remote (`git@github.com:OWNER/REPO`) or a link without
its scheme is refused with the link to write."""

from __future__ import annotations

import ipaddress
import re
import unicodedata
import urllib.parse

from radpatch.registry.loader.nodes import IRI_CHAR, URL

_SCHEME = "[Hh][Tt][Tt][Pp][Ss]?://"  # in ASCII's two cases only (re.IGNORECASE takes `httpſ://` too)
_SPLIT = re.compile(rf"^({_SCHEME})([^/?#]*)(.*)$", re.DOTALL)
_DEFAULT_PORT = {"http://": ":80", "https://": ":443"}
# the path of a GitHub pull request or issue: /OWNER/REPO/pull|issues/N, a pull request's N.diff or N.patch,
# then a subpage, a query or a fragment; _GITHUB_LIKE: a path that means to name one (any case, plural)
_GITHUB = re.compile(r"/([^/?#]+/[^/?#]+)/(?:pull/([0-9]+)(?:\.diff|\.patch)?|issues/([0-9]+))(?:[/?#].*)?", re.DOTALL)
_GITHUB_LIKE = re.compile(r"/([^/?#]+)/([^/?#]+)/(pulls?|issues?)(?:[/?#.].*)?", re.DOTALL | re.IGNORECASE)


def _any_case(word: str, folded: bool = False) -> str:
    """A pattern of `word` in ASCII's two cases (as str.lower compares a host), or (`folded`) in any
    case as re.IGNORECASE reads it (ı and İ for i, ſ for s), spelled out so an editor's ECMAScript
    regular expression reads it the same."""
    folds = {"i": "\u0130\u0131", "s": "\u017f", "k": "\u212a"} if folded else {}
    return "".join(f"[{c.upper()}{c}{folds.get(c, '')}]" if c.isalpha() else re.escape(c) for c in word)


_END = r"(?![\s\S])"  # the end of the text: `$` in Python also before a final line break
_HOST = rf"(?:{_any_case('www.')})?{_any_case('github.com')}"
# a link `problem` refuses as naming no GitHub pull request or issue (_github_problem), as a pattern the
# editor's JSON Schema carries (`not`): github.com on its default port, a path like _GITHUB_LIKE's that
# is not _GITHUB's. Links the loader's URL pattern takes are judged by it; tests/registry checks the two agree
GITHUB_NAMES_NONE = re.compile(
    rf"^(?:{_any_case('http://')}{_HOST}(?::|:80)?|{_any_case('https://')}{_HOST}(?::|:443)?)"
    rf"(?!/[^/?#]+/[^/?#]+/(?:pull/[0-9]+(?:\.diff|\.patch)?|issues/[0-9]+)(?:[/?#][\s\S]*)?{_END})"
    rf"/[^/?#]+/[^/?#]+/(?:{_any_case('pull', True)}|{_any_case('issue', True)}){_any_case('s', True)}?"
    rf"(?:[/?#.][\s\S]*)?{_END}"
)


def split(url: str) -> tuple[str, str, str, str, str] | None:
    """`url` as (scheme://, userinfo with its '@' or '', host, ':port' or '', the rest), or None."""
    found = _SPLIT.match(url)
    if found is None:
        return None
    scheme, authority, rest = found.groups()
    user, at, hostport = authority.rpartition("@")
    if hostport.startswith("[") and "]" in hostport:
        host, _, tail = hostport.partition("]")
        host, port = host + "]", tail
    else:
        host, colon, port = hostport.partition(":")
        port = colon + port
    return scheme, user + at, host, port, rest


def bad_port(port: str) -> bool:
    """`port` (from split) is neither nothing, ':' nor ':' and digits."""
    return bool(port) and not (port[0] == ":" and (port[1:] == "" or port[1:].isdigit()))


def ipv6(host: str) -> ipaddress.IPv6Address | None:
    """The address of a bracketed host (`[::1]`), or None."""
    if not (host.startswith("[") and host.endswith("]")) or "%" in host:  # a zone (%25eth0) is no IRI
        return None
    try:
        return ipaddress.IPv6Address(host[1:-1])
    except ValueError:
        return None


def github_ref(link: str) -> str | None:
    """`OWNER/REPO#N` of a GitHub issue or pull request link (None for any other link): the host
    github.com or www.github.com in any case, on the scheme's default port."""
    path = _github_path(link)
    found = _GITHUB.fullmatch(path) if path is not None else None
    return f"{found.group(1)}#{found.group(2) or found.group(3)}" if found else None


def _github_path(link: str) -> str | None:
    """The path (and what follows it) of a link to github.com on its default port, else None."""
    parts = split(link)
    if parts is None or parts[1] or parts[2].lower() not in ("github.com", "www.github.com"):
        return None
    if parts[3] not in ("", ":", _DEFAULT_PORT[parts[0].lower()]):
        return None
    return parts[4]


def _github_problem(link: str) -> str | None:
    """What keeps a github.com link that means a pull request or issue from naming one (None: it does, or
    it does not mean one)."""
    path = _github_path(link)
    like = _GITHUB_LIKE.fullmatch(path) if path is not None and github_ref(link) is None else None
    if like is None:
        return None
    kind = "pull" if like.group(3).lower().startswith("pull") else "issues"
    return (
        f"{link!r} names no GitHub pull request or issue: write "
        f"https://github.com/{like.group(1)}/{like.group(2)}/{kind}/N, N its number"
    )


def problem(url: str) -> str | None:
    """What keeps `url` from being a link (None when it is one)."""
    parts = split(url)
    if parts is not None and URL.match(url) and (not parts[2].startswith("[") or ipv6(parts[2])):
        return _github_problem(url)
    hidden = next((c for c in url if _invisible(c)), "")
    if hidden and re.match(rf"^{_SCHEME}[^\s/?#]", url):  # copied with the link
        return f"{url!r} is not a valid link: {_hidden(url, hidden)}"
    if not re.match(rf"^{_SCHEME}[^\s/?#]+\S*$", url):  # not an http(s) URL at all
        remote = re.fullmatch(r"(?:ssh://)?git@github\.com[:/]([^/\s]+/[^/\s]+?)(?:\.git)?(/\S*)?", url, re.IGNORECASE)
        if remote:  # a git remote: the same repository's page
            page = f"https://github.com/{remote.group(1)}{remote.group(2) or ''}"
            return f"{url!r} is not an http(s) URL but a git remote: write {page}"
        if re.fullmatch(r"(?:www\.)?github\.com/\S+", url, re.IGNORECASE):
            return f"{url!r} is not an http(s) URL (no scheme): write https://{url}"
        return (
            f"{url!r} is not an http(s) URL; give the address of the upstream PR or issue, "
            "e.g. https://github.com/vllm-project/vllm/pull/12345"
        )
    return f"{url!r} is not a valid link: {_unlinkable(url)}"


def _unlinkable(url: str) -> str:
    parts = split(url)
    assert parts is not None
    scheme, user, host, port, rest = parts
    if "@" in user[:-1]:
        return f"a second '@' in {user + host!r}: one '@' ends the user name; write any other as %40"
    if host.startswith("["):
        if ipv6(host) is None:
            return f"{host!r} is no IPv6 address in brackets: write one (e.g. [2001:db8::1]) or a host name without []"
    elif not host:
        return "no host after '//': write the server's name, e.g. https://github.com/..."
    if bad_port(port):
        if ":" in port[1:]:
            return f"a second ':' in {host + port!r}: one ':' starts the port (digits); write any other as %3A"
        return (
            f"{port.lstrip(':')!r} after {host!r} is no port (a port is ':' and digits); a path starts with '/': "
            f"{scheme}{user}{host}/{port.lstrip(':')}{rest}"
        )
    bad_escape = re.search(r"%(?![0-9A-Fa-f]{2})", url)
    if bad_escape:
        return (
            f"'%' at character {bad_escape.start() + 1} starts no escape: write it as %25 (or a full escape, e.g. %20)"
        )
    if url.count("#") > 1:
        return "a second '#': write it as %23 (a link has one fragment)"
    outside = user + ("" if ipv6(host) else host) + port + rest
    char = next((c for c in outside if not IRI_CHAR.match(c)), "")
    if not char:
        return "write it as an IRI-reference (RFC 3987), e.g. https://github.com/vllm-project/vllm/pull/12345"
    if _invisible(char):
        return _hidden(url, char)
    return f"{char!r} cannot stand in a link: write it percent-encoded, as {urllib.parse.quote(char, safe='')}"


def _invisible(char: str) -> bool:
    """A character a browser shows as nothing or as a space: a control, a format mark, a separator."""
    return char != " " and unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Zs") and not IRI_CHAR.match(char)


def _hidden(url: str, char: str) -> str:
    return (
        f"an invisible character U+{ord(char):04X} ({unicodedata.name(char, 'a control character')}) at character "
        f"{url.index(char) + 1}, copied with the link: delete it, or write it percent-encoded, as "
        f"{urllib.parse.quote(char, safe='')}"
    )


def same(url: str) -> str:
    """`url` as two links are compared: its scheme and host in lower case (RFC 3986 6.2.2.1), no port
    where it is the scheme's default or empty (6.2.3), the rest as written."""
    parts = split(url)
    if parts is None:
        return url
    scheme, user, host, port, rest = parts
    if port in ("", ":", _DEFAULT_PORT[scheme.lower()]):
        port = ""
    return scheme.lower() + user + host.lower() + port + rest
