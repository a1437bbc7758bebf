"""The `websockets` package (PyPI) as a well-behaved peer: ENDPOINTS_WS_ECHO_URL (ws://) and
ENDPOINTS_WSS_ECHO_URL (wss://, the same handler behind the throwaway CA's certificate).

Every path below answers the handshake with 101 (but /reject/N) and then, unless it says
otherwise, echoes each message back as received: text as text, binary as binary. Query
parameters are optional; the defaults are given.

  path                        what the server does after the handshake
  --------------------------  -----------------------------------------------------------------
  /  /echo                    echoes
  /close/{code}               closes with {code} and ?reason= (default "bye") after echoing
                              ?after= messages (default 0). Codes the library may send: 1000-1003,
                              1007-1014, 3000-4999.
  /ping                       sends a ping carrying ?payload= (default "endpoints") and waits
                              ?timeout= s (default 600: a loaded machine, not
                              the client, may delay it) for its pong; then sends the text
                              {"pong":true,"payload":P} and echoes, or closes with 1011 "no pong"
  /fragments                  sends one message in ?count= frames (default 4) of ?size= bytes
                              each (default 5) of ?type=text|binary (default text), then an
                              empty final frame (the package ends every fragmented send so: the
                              FIN bit is on that empty continuation), with a ping between the
                              first two fragments when ?interleave=ping; then echoes
  /size/{n}                   sends one message of {n} bytes of ?type=binary|text (default
                              binary) in one frame, then echoes
  /subprotocol                selects the first of the client's offered subprotocols that is
                              chat.v1 or chat.v2 (none if neither is offered); echoes. No other
                              path selects a subprotocol
  /headers                    sends the text {"path":…, "headers":{name: value, …}} (names
                              lowercased, repeated names joined with ", "), then echoes
  /reject/{status}            answers the handshake with HTTP {status} (e.g. 401, 404, 503) and
                              the body "rejected", no upgrade

Message contents are deterministic: a binary message of n bytes is bytes(i % 256 for i in
range(n)); a text message of n bytes is "abcdefghijklmnopqrstuvwxyz0123456789" repeated and cut
to n characters (ASCII, so n bytes). The server reads messages of up to 64 MiB, does not
compress (no permessage-deflate) and sends no keepalive pings of its own.
"""

import asyncio
import http
import json
import logging
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request

log = logging.getLogger("echo")

TEXT_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
SUBPROTOCOLS = ("chat.v1", "chat.v2")
MAX_INCOMING = 64 * 1024 * 1024


def text_of_size(n: int) -> str:
    """The deterministic text message of `n` characters (ASCII, so `n` bytes)."""
    repeats = n // len(TEXT_ALPHABET) + 1
    return (TEXT_ALPHABET * repeats)[:n]


def binary_of_size(n: int) -> bytes:
    """The deterministic binary message of `n` bytes."""
    pattern = bytes(range(256))
    return (pattern * (n // 256 + 1))[:n]


def split(path: str) -> tuple[list[str], dict[str, str]]:
    """The path's segments and its query, one value per name."""
    parts = urlsplit(path)
    segments = [segment for segment in parts.path.split("/") if segment]
    query = {name: values[-1] for name, values in parse_qs(parts.query, keep_blank_values=True).items()}
    return segments, query


async def echo(connection: ServerConnection, limit: int | None = None) -> None:
    """Echoes messages as received, `limit` of them or until the peer closes."""
    count = 0
    while limit is None or count < limit:
        message = await connection.recv()
        await connection.send(message)
        count += 1


async def handler(connection: ServerConnection) -> None:
    segments, query = split(connection.request.path)
    head = segments[0] if segments else "echo"
    try:
        if head == "close" and len(segments) == 2:
            await echo(connection, int(query.get("after", "0")))
            await connection.close(int(segments[1]), query.get("reason", "bye"))
            return
        if head == "ping":
            payload = query.get("payload", "endpoints")
            pong = await connection.ping(payload)
            try:
                await asyncio.wait_for(pong, float(query.get("timeout", "600")))
            except asyncio.TimeoutError:
                await connection.close(1011, "no pong")
                return
            await connection.send(json.dumps({"pong": True, "payload": payload}))
        elif head == "fragments":
            count, size = int(query.get("count", "4")), int(query.get("size", "5"))
            make = text_of_size if query.get("type", "text") == "text" else binary_of_size

            async def fragments():
                for index in range(count):
                    if index == 1 and query.get("interleave") == "ping":
                        # A control frame between two fragments of one message (RFC 6455 5.4).
                        await connection.ping(b"between fragments")
                    yield make(size)

            await connection.send(fragments())
        elif head == "size" and len(segments) == 2:
            n = int(segments[1])
            await connection.send(text_of_size(n) if query.get("type") == "text" else binary_of_size(n))
        elif head == "headers":
            headers: dict[str, str] = {}
            for name, value in connection.request.headers.raw_items():
                name = name.lower()
                headers[name] = f"{headers[name]}, {value}" if name in headers else value
            await connection.send(json.dumps({"path": connection.request.path, "headers": headers}))
        await echo(connection)
    except ConnectionClosed:
        pass


def process_request(connection: ServerConnection, request: Request):
    segments, _ = split(request.path)
    if len(segments) == 2 and segments[0] == "reject":
        return connection.respond(http.HTTPStatus(int(segments[1])), "rejected\n")
    return None


def select_subprotocol(connection: ServerConnection, offered):
    segments, _ = split(connection.request.path)
    if segments[:1] != ["subprotocol"]:
        return None
    return next((name for name in offered if name in SUBPROTOCOLS), None)


def start(sock, ssl=None):
    """The server on an already bound socket (port 0, so the kernel chose the port)."""
    return serve(
        handler,
        sock=sock,
        ssl=ssl,
        process_request=process_request,
        select_subprotocol=select_subprotocol,
        compression=None,
        max_size=MAX_INCOMING,
        ping_interval=None,
        logger=log,
    )
