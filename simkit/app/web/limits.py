"""What a request may carry: where it comes from, the body's size, the
query's parameters and values (capped), who the client is, and the one-line
JSON errors.

:class:`Gate` is the app's outermost layer: a request whose ``Host`` names
none of the server's own addresses is refused (a page of another site that
rebinds its name to this machine cannot reach the app), and so is one from
another site's page (its ``Origin`` or ``Sec-Fetch-Site`` says so) unless it
only opens one of the app's pages; it gives every client an identity of
the server's own (a signed cookie).  :class:`Guard`, inside it: a body over
:data:`MAX_BODY` is refused (413) while it is read, and an exception
nothing else handled is logged with its traceback and answered as a
one-line 500.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from collections.abc import Iterable, Mapping

from fastapi import Request
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from simkit.app.web.jobs import Command
from simkit.base.errors import InputError

log = logging.getLogger("simkit.app.web")

#: Largest request body (a pasted record is a few kB).
MAX_BODY = 1 << 20
#: Longest query value and most query parameters a request may carry.
MAX_VALUE = 2000
MAX_PARAMS = 200
#: The cookie holding the identity the server gave a client (tabs or people
#: behind one address); a client cannot choose its own.
CLIENT_COOKIE = "simkit_client"
#: The names of this machine the server answers to on any port, beside its
#: own --host and any --allow-host.
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def error(status: int, text: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    """The answer to a refused or failed request: ``{"error": text}``."""
    return JSONResponse({"error": text}, status_code=status, headers=headers)


def _host_name(host: str) -> str:
    """A Host header's name, without its port (``[::1]:8765`` -> ``::1``)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class Gate:
    """ASGI middleware, the app's outermost layer (see the module notes):
    requests to any Host but the server's names get 403, as do requests from
    another site's page (``Origin`` not this server's, or ``Sec-Fetch-Site``
    neither ``same-origin`` nor ``none``) unless they only open a page (a
    top-level GET navigation outside ``/api/``); every response carries no
    cross-origin permission.  Each client gets an identity of the server's:
    a random id signed with a secret of this process, in :data:`CLIENT_COOKIE`
    (``scope["state"]["client"]``)."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str] = ()):
        self.app = app
        self.hosts = frozenset(h.strip().lower().strip("[]") for h in (*LOOPBACK, *hosts)
                               if h.strip())
        self.secret = secrets.token_bytes(32)

    def _sign(self, ident: str) -> str:
        mac = hmac.new(self.secret, ident.encode(), hashlib.sha256).hexdigest()[:32]
        return f"{ident}.{mac}"

    def _identity(self, cookie: str | None) -> tuple[str, str | None]:
        """The client's identity, and the cookie to set (None: it has a good one)."""
        if cookie and "." in cookie:
            ident, _, _ = cookie.partition(".")
            if hmac.compare_digest(self._sign(ident), cookie):
                return ident, None
        ident = secrets.token_hex(12)
        return ident, self._sign(ident)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
        host = headers.get(b"host", "")
        if _host_name(host) not in self.hosts:
            shown = host[:80] or "(none)"
            await error(403, f"this server answers only at its own addresses, not at Host "
                             f"{shown!r}: open it as http://127.0.0.1 (or start simkit serve "
                             "with --allow-host NAME)")(scope, receive, send)
            return
        origin, site = headers.get(b"origin"), headers.get(b"sec-fetch-site")
        foreign = ((origin is not None and origin.lower() != f"http://{host.lower()}")
                   or (site is not None and site not in ("same-origin", "none")))
        opening = (scope.get("method") in ("GET", "HEAD")
                   and headers.get(b"sec-fetch-mode") == "navigate"
                   and not str(scope.get("path", "")).startswith("/api/"))
        if foreign and not opening:
            await error(403, "requests from another site's page are refused: simkit serve "
                             "answers only its own pages")(scope, receive, send)
            return
        cookies = {}
        for part in headers.get(b"cookie", "").split(";"):
            key, _, value = part.strip().partition("=")
            cookies[key] = value
        ident, cookie = self._identity(cookies.get(CLIENT_COOKIE))
        scope.setdefault("state", {})["client"] = ident

        async def sent(message: Message) -> None:
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message.get("headers", [])
                        if not k.lower().startswith(b"access-control-")]
                if cookie is not None:
                    kept.append((b"set-cookie", f"{CLIENT_COOKIE}={cookie}; Path=/; HttpOnly; "
                                                "SameSite=Strict".encode()))
                message = {**message, "headers": kept}
            await send(message)

        await self.app(scope, receive, sent)


class _TooLarge(Exception):
    """A request body over :data:`MAX_BODY`, found while it is read."""


class Guard:
    """ASGI middleware: bodies over :data:`MAX_BODY` get 413, and an exception
    nothing else handled is logged with its traceback and answered as a
    one-line 500 (the client never sees the traceback)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length", b"0")
        if not length.isdigit():
            await error(400, "bad Content-Length header: expected a number of bytes")(
                scope, receive, send)
            return
        if int(length) > MAX_BODY:
            await error(413, f"the request body is too large: at most {MAX_BODY:,} bytes")(
                scope, receive, send)
            return
        got = 0

        async def counted() -> Message:
            nonlocal got
            message = await receive()
            got += len(message.get("body", b""))
            if got > MAX_BODY:
                raise _TooLarge
            return message

        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except _TooLarge:
            if not started:
                await error(413, f"the request body is too large: at most {MAX_BODY:,} "
                                 f"bytes")(scope, receive, send)
        except Exception:
            log.exception("simkit serve: %s %s failed", scope.get("method"),
                          str(scope.get("path"))[:200])
            if not started:
                await error(500, "internal error: the server could not answer this request "
                                 "(the details are in its log)")(scope, receive, send)


def query(request: Request, drop: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """The query's (key, value) pairs in order, capped in number and length."""
    pairs = request.query_params.multi_items()
    if len(pairs) > MAX_PARAMS:
        raise InputError(f"too many query parameters ({len(pairs)}): at most {MAX_PARAMS}")
    for key, value in pairs:
        if len(key) > 100 or len(value) > MAX_VALUE:
            raise InputError(f"query value for {key[:40]!r} is too long: at most "
                             f"{MAX_VALUE} characters")
    return [(k, v) for k, v in pairs if k not in drop]


def job_command(request: Request) -> Command:
    """The ``command`` query parameter of estimate and jobs: advise, compare or search."""
    given = request.query_params.getlist("command")
    expected = " or ".join(f"command={c}" for c in Command)
    if len(given) != 1:
        raise InputError(f"give the command once: {expected}")
    if given[0] not in tuple(Command):
        raise InputError(f"bad command {given[0][:40]!r}: expected {expected}")
    return Command(given[0])


def client_of(request: Request) -> str:
    """Who asks: ``"ADDRESS ID"``, the client's address and the identity
    :class:`Gate` gave it (a client cannot choose its own)."""
    host = request.client.host if request.client else "-"
    return f"{host} {request.scope.get('state', {}).get('client', '-')}"

