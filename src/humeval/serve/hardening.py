"""Limits that keep ``humeval serve`` up under abuse.

- **Login throttling** (``Throttle``): after ``free`` failed logins in a row for one account (5) or
  from one address (20), every further attempt for that account or from that address is answered
  429 with ``Retry-After`` for 2^(n − free) seconds (1, 2, 4, … at most 15 minutes) after the n-th
  failure, without the password being checked, so the right password does not get through a
  guessing run either. A successful login resets the account's and the address's counts. The
  counts live in the server's memory (a restart forgets them); behind a reverse proxy every
  client has the proxy's address.
- **Request bodies** (``BodyLimit``, an ASGI middleware): a limit per route (``LIMITS``: 4 KiB for
  login and logout, 1 MiB for answers, 64 KiB elsewhere), refused with 413 from
  ``Content-Length`` before anything is read, and counted while reading a body sent in chunks; a
  body that stalls for ``body_timeout`` seconds between chunks is refused with 408.
- **JSON** (``parse_json``): not JSON, not UTF-8, nested deeper than ``MAX_DEPTH`` or holding a
  lone surrogate (``"\\ud800"``: not valid Unicode, which the database could not store) is a 400.
- **Slow request heads** (``protocol``): uvicorn's HTTP/1.1 protocol (h11), closing a connection
  that has not sent a whole request head within ``header_timeout`` seconds of connecting or of its
  last response (uvicorn itself waits forever for the first one).
- **File names** (``safe_filename``): a campaign name becomes letters, digits, ``.``, ``-`` and
  ``_`` only, never a path.
- **The leaderboard's child process** (``die_with_parent``) ends when the server does, even on
  kill -9: Linux's ``PR_SET_PDEATHSIG``, and a thread that watches the parent's process id.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
import time

from humeval.serve.tasks import Refused

LIMITS = (("/login", 4096), ("/logout", 4096), ("/api/login", 4096), ("/task", 2 ** 20), ("/api/task/", 2 ** 20))
DEFAULT_LIMIT = 2 ** 16
MAX_DEPTH = 32
MAX_DELAY = 900.0


class Throttled(Refused):
    """A login refused by the throttle: 429 with ``retry_after`` seconds."""

    def __init__(self, retry_after: float):
        self.retry_after = max(1, int(retry_after + 0.999))
        super().__init__(429, f"too many failed logins: try again in {self.retry_after} s")

    def __reduce__(self):
        return type(self), (self.retry_after,)


class Throttle:
    """Failed-login counts per key; ``retry_after(key)`` is 0 while a login may be tried."""

    def __init__(self, free: int, cap: float = MAX_DELAY, clock=time.monotonic, size: int = 100_000):
        self.free, self.cap, self.clock, self.size = free, cap, clock, size
        self._failures: dict[object, tuple[int, float]] = {}  # key -> (failures in a row, time of the last)
        self._lock = threading.Lock()

    def delay(self, failures: int) -> float:
        """Seconds a key waits after ``failures`` failures in a row: 0 up to ``free``, then 2^(n − free)."""
        return 0.0 if failures < self.free else min(self.cap, 2.0 ** (failures - self.free))

    def retry_after(self, key) -> float:
        with self._lock:
            failures, last = self._failures.get(key, (0, 0.0))
        return max(0.0, last + self.delay(failures) - self.clock())

    def failed(self, key):
        with self._lock:
            if len(self._failures) >= self.size:  # keys cycled by an attacker: forget the oldest half
                for old in sorted(self._failures, key=lambda k: self._failures[k][1])[:self.size // 2]:
                    del self._failures[old]
            failures, _ = self._failures.get(key, (0, 0.0))
            self._failures[key] = (failures + 1, self.clock())

    def reset(self, key):
        with self._lock:
            self._failures.pop(key, None)


def limit_for(path: str) -> int:
    for prefix, limit in LIMITS:
        if path == prefix or (prefix.endswith("/") and path.startswith(prefix)):
            return limit
    return DEFAULT_LIMIT


class BodyLimit:
    """ASGI middleware: request bodies capped per route and timed (see the module docstring)."""

    def __init__(self, app, body_timeout: float = 30.0):
        self.app, self.body_timeout = app, body_timeout

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        limit = limit_for(scope["path"])
        headers = dict(scope.get("headers") or ())
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            return await _refuse(send, 413, f"the request body is larger than this route takes ({limit:,} bytes)")
        seen = 0

        async def limited():
            nonlocal seen
            try:
                message = await asyncio.wait_for(receive(), self.body_timeout)
            except asyncio.TimeoutError:
                raise Refused(408, f"the request body stalled for {self.body_timeout:g} s") from None
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise Refused(413, f"the request body is larger than this route takes ({limit:,} bytes)")
            return message

        await self.app(scope, limited, send)


async def _refuse(send, status: int, message: str):
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


def parse_json(raw: bytes):
    """A request body's JSON, or ``Refused`` (400) for anything the server will not take."""
    try:
        body = json.loads(raw)
    except RecursionError:
        raise Refused(400, f"the JSON nests deeper than {MAX_DEPTH} levels") from None
    except ValueError:
        raise Refused(400, "the body is not valid JSON in UTF-8") from None
    stack = [(body, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise Refused(400, f"the JSON nests deeper than {MAX_DEPTH} levels")
        if isinstance(value, dict):
            stack.extend((k, depth) for k in value)
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
        elif isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise Refused(400, "the JSON holds a lone surrogate (e.g. \\ud800): not valid Unicode") from None
    return body


def safe_filename(name: str) -> str:
    """``name`` as a file name: letters, digits, ``.``, ``-`` and ``_`` only, no leading dot."""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._-")[:80]
    return cleaned or "campaign"


def protocol(header_timeout: float):
    """uvicorn's h11 protocol with a deadline for each request head (see the module docstring)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeadTimeout(H11Protocol):
        _head_timer = None

        def connection_made(self, transport):
            super().connection_made(transport)
            self._arm()

        def _arm(self):
            if self._head_timer is not None:
                self._head_timer.cancel()
            self._head_timer = self.loop.call_later(header_timeout, self._head_late, self.cycle)

        def _head_late(self, waiting):
            if self.cycle is waiting and not self.transport.is_closing():  # no new request head arrived
                self.transport.close()

        def on_response_complete(self):
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc):
            if self._head_timer is not None:
                self._head_timer.cancel()
            super().connection_lost(exc)

    return HeadTimeout


def uvicorn_options(campaign) -> dict:
    """The options ``humeval serve`` gives ``uvicorn.run`` (besides app, host and port)."""
    return {"http": protocol(campaign.header_timeout), "timeout_keep_alive": 5, "timeout_graceful_shutdown": 30,
            "h11_max_incomplete_event_size": 16 * 1024}


def die_with_parent(parent: int):
    """Run in a child process: end it when process ``parent`` ends (see the module docstring)."""
    try:
        import ctypes
        import signal
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):  # not Linux: the watching thread alone
        pass
    if os.getppid() != parent:  # the parent died before the signal was asked for
        os._exit(0)

    def watch():
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(0)
    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()
