"""Passwords and CSRF tokens.

Passwords are stored only as scrypt hashes (RFC 7914, ``hashlib.scrypt``; N = 2^14, r = 8, p = 1,
a 16-byte random salt: the parameters OWASP's password storage cheat sheet lists for scrypt),
written ``scrypt$N$r$p$salt$hash`` in hex, and checked in constant time (``hmac.compare_digest``).
The session is Starlette's signed cookie (itsdangerous HMAC); it carries a random session id and
a random CSRF token that every form (hidden field ``csrf``) and every API call (header
``X-CSRF-Token``) must echo. The session id is looked up in the database's ``sessions`` table
(only its SHA-256 is stored), so a session can be revoked: logging out, an organiser's "sign out
everyone", and a password change (or an account taken out of the campaign file) end it. The
signing secret is never in the database or its backups (``session_secret``): it comes from the
environment variable ``HUMEVAL_SESSION_SECRET`` or from a file beside the campaign file
(``NAME.session-secret``, created readable by its owner only).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

N, R, P = 2 ** 14, 8, 1


def hash_password(password: str, n: int = N, r: int = R, p: int = P) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=32)
    return f"scrypt${n}${r}${p}${salt.hex()}${digest.hex()}"


def parse_hash(hashed: str):
    """(n, r, p, salt, digest) of a stored hash, or None when it is not one."""
    parts = hashed.split("$")
    if len(parts) != 6 or parts[0] != "scrypt":
        return None
    try:
        n, r, p = (int(x) for x in parts[1:4])
        salt, digest = bytes.fromhex(parts[4]), bytes.fromhex(parts[5])
    except ValueError:
        return None
    if n < 2 or n & (n - 1) or r < 1 or p < 1 or not salt or not digest:
        return None
    return n, r, p, salt, digest


def verify_password(password: str, hashed: str) -> bool:
    parsed = parse_hash(hashed)
    if parsed is None:
        return False
    n, r, p, salt, digest = parsed
    given = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=len(digest), maxmem=2 ** 27)
    return hmac.compare_digest(given, digest)


def new_token() -> str:
    return secrets.token_urlsafe(24)


def same_token(given, expected) -> bool:
    return isinstance(given, str) and isinstance(expected, str) and hmac.compare_digest(given.encode(), expected.encode())


def session_secret(campaign) -> str:
    """The session-signing secret (see the module docstring); made on first use."""
    given = os.environ.get("HUMEVAL_SESSION_SECRET")
    if given:
        return given
    path = Path(campaign.path).with_name(Path(campaign.path).stem + ".session-secret")
    try:
        return path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        pass
    secret = new_token() + new_token()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another server started at the same moment wrote it
        return path.read_text(encoding="ascii").strip()
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(secret + "\n")
    return secret
