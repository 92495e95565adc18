"""What a request may carry: the body's size, the query's parameters and
values (capped), who the client is, and the one-line JSON errors.

:class:`Guard` is the app's outermost layer: a body over :data:`MAX_BODY` is
refused (413) while it is read, and an exception nothing else handled is
logged with its traceback and answered as a one-line 500.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

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
#: How a page may tell its client apart from others at the same address.
CLIENT_HEADER, CLIENT_COOKIE = "x-simkit-client", "simkit_client"


def error(status: int, text: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    """The answer to a refused or failed request: ``{"error": text}``."""
    return JSONResponse({"error": text}, status_code=status, headers=headers)


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
    """The ``command`` query parameter of estimate and jobs: advise or compare."""
    given = request.query_params.getlist("command")
    expected = " or ".join(f"command={c}" for c in Command)
    if len(given) != 1:
        raise InputError(f"give the command once: {expected}")
    if given[0] not in tuple(Command):
        raise InputError(f"bad command {given[0][:40]!r}: expected {expected}")
    return Command(given[0])


def client_of(request: Request) -> str:
    """Who asks: the client's address, and the ``X-Simkit-Client`` header or
    ``simkit_client`` cookie a page may send (tabs or people behind one address)."""
    host = request.client.host if request.client else "-"
    tag = request.headers.get(CLIENT_HEADER) or request.cookies.get(CLIENT_COOKIE) or ""
    return f"{host} {tag[:64]}"

