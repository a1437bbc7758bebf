"""An HTTP/2 server over TLS (ALPN h2, the `h2` package) that breaks RFC 9113 one way per path:
ENDPOINTS_H2_URL, with the certificate of ENDPOINTS_WS_CA_FILE. A client that offers only
http/1.1 is answered by a small HTTP/1.1 responder (200, {"value":"h1"}) whatever the path. The
(control) paths do nothing wrong, so a test can tell the client's rejection of the bad thing
from a rejection of this server.

  path                        what the server does
  --------------------------  -----------------------------------------------------------------
  /ok                         (control) 200, {"value":"x"}, with its Content-Length
  /big?bytes=N                (control) 200 and N bytes of "b", within the client's flow control
  /trailers                   (control) 200, {"value":"x"}, then a trailer field
  /early-hints                (control) a 103 with a Link, then as /ok
  /goaway-first?id=ID         the first request with that ID: a GOAWAY whose last stream is the
                              one before it (so the server did not process it), the connection
                              closed 100 ms later; every later one: as /ok
  /reset/{code}               RST_STREAM with error code {code} (0-13) before any head
  /reset-mid-body/{code}      a 200 head (?length=1: with Content-Length 100000), 1,000 bytes,
                              then RST_STREAM {code} instead of END_STREAM (?gzip=1: the bytes
                              are the first 1,000 of a gzip body, with Content-Encoding: gzip)
  /length/short  /length/long a Content-Length of 100 with 50 bytes, of 10 with 50 bytes
  /malformed/{kind}           a head nghttp2 must refuse: connection-header (connection: close),
                              transfer-encoding (chunked), crlf-value, lf-value, nul-value (in a
                              field's value), uppercase-name, no-status, status-2000, two-statuses
  /headers/{kib}              a 200 whose head holds about {kib} KiB of fields
  /stall/head                 reads the request, never answers
  /stall/body                 a head with Content-Length 10, one byte, then nothing
  /http11-required            RST_STREAM HTTP_1_1_REQUIRED: the client should ask again over
                              HTTP/1.1, which the HTTP/1.1 responder answers
  /report?id=ID               (plain JSON) {"requests": N}: how many requests carried ?id=ID
  any other path              404

Every request's ?id= is counted, whatever its path (but /report), before its path runs.
"""

import asyncio
import gzip
import json
import logging
import os
import ssl
from urllib.parse import parse_qs, urlsplit

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
from hyperframe.frame import GoAwayFrame

log = logging.getLogger("http2_server")
JSON = b'{"value":"x"}'

# Requests per ?id=, over every connection.
requests_by_id: dict[str, int] = {}


def counted(target: str) -> tuple[str, dict[str, str]]:
    """The path and query of a request target, its ?id= counted (but /report's)."""
    parts = urlsplit(target)
    query = {name: values[0] for name, values in parse_qs(parts.query).items()}
    if "id" in query and parts.path != "/report":
        requests_by_id[query["id"]] = requests_by_id.get(query["id"], 0) + 1
    return parts.path, query
# The ids whose GOAWAY was sent.
refused_ids: set[str] = set()


class Connection(asyncio.Protocol):
    """One client connection: h2's state machine, a task per request."""

    def __init__(self) -> None:
        config = h2.config.H2Configuration(
            client_side=False,
            header_encoding=None,
            # The bad heads are the point: h2 must send them as written.
            validate_outbound_headers=False,
            normalize_outbound_headers=False,
            validate_inbound_headers=False,
        )
        self.h2 = h2.connection.H2Connection(config=config)
        self.transport: asyncio.Transport | None = None
        self.window_opened = asyncio.Event()
        self.tasks: set[asyncio.Task] = set()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.h2.initiate_connection()
        self.flush()

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        self.window_opened.set()
        for task in self.tasks:
            task.cancel()

    def flush(self) -> None:
        data = self.h2.data_to_send()
        if data and self.transport is not None:
            self.transport.write(data)

    def data_received(self, data: bytes) -> None:
        try:
            events = self.h2.receive_data(data)
        except h2.exceptions.ProtocolError as error:
            log.warning("closing a connection: %s", error)
            self.flush()
            if self.transport is not None:
                self.transport.close()
            return
        for event in events:
            if isinstance(event, h2.events.RequestReceived):
                headers = dict(event.headers)
                task = asyncio.ensure_future(self.serve(event.stream_id, headers))
                self.tasks.add(task)
                task.add_done_callback(self.tasks.discard)
            elif isinstance(event, h2.events.DataReceived):
                self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, (h2.events.WindowUpdated, h2.events.RemoteSettingsChanged)):
                self.window_opened.set()
        self.flush()

    # What a path sends.

    def head(self, stream: int, fields: list[tuple[str, str]], end: bool = False) -> None:
        self.h2.send_headers(stream, [(name.encode(), value.encode()) for name, value in fields], end_stream=end)
        self.flush()

    async def body(self, stream: int, data: bytes, end: bool = True) -> None:
        """Sends `data` within the client's flow control window."""
        data = memoryview(data)  # slices without copying
        while True:
            if self.transport is None:
                return
            size = min(len(data), self.h2.local_flow_control_window(stream), self.h2.max_outbound_frame_size)
            if size > 0 or not data:
                last = size == len(data)
                self.h2.send_data(stream, bytes(data[:size]), end_stream=end and last)
                self.flush()
                data = data[size:]
                if last:
                    return
                continue
            self.window_opened.clear()
            await self.window_opened.wait()

    def reset(self, stream: int, code: int) -> None:
        self.h2.reset_stream(stream, code)
        self.flush()

    async def ok(self, stream: int) -> None:
        self.head(stream, [(":status", "200"), ("content-type", "application/json"), ("content-length", "13")])
        await self.body(stream, JSON)

    async def serve(self, stream: int, headers: dict[bytes, bytes]) -> None:
        path, query = counted(headers.get(b":path", b"/").decode("latin-1"))
        try:
            await self.route(stream, path, query)
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError) as error:
            log.info("%s: %s", path, error)

    async def route(self, stream: int, path: str, query: dict[str, str]) -> None:
        parts = path.strip("/").split("/")
        if path == "/ok":
            await self.ok(stream)
        elif path == "/big":
            count = int(query.get("bytes", "1048576"))
            self.head(stream, [(":status", "200"), ("content-length", str(count))])
            await self.body(stream, b"b" * count)
        elif path == "/trailers":
            self.head(stream, [(":status", "200"), ("content-type", "application/json")])
            await self.body(stream, JSON, end=False)
            self.head(stream, [("x-trailer", "1")], end=True)
        elif path == "/early-hints":
            self.head(stream, [(":status", "103"), ("link", "</style.css>; rel=preload")])
            await self.ok(stream)
        elif path == "/goaway-first":
            token = query.get("id", "")
            if token in refused_ids:
                await self.ok(stream)
                return
            refused_ids.add(token)
            # Written as a raw frame: h2's state machine sends nothing after its own GOAWAY, and a
            # server draining a connection still answers the streams at or below the last one.
            goaway = GoAwayFrame(0)
            goaway.last_stream_id = stream - 2 if stream > 2 else 0
            goaway.error_code = 0
            self.flush()
            if self.transport is not None:
                self.transport.write(goaway.serialize())
            await asyncio.sleep(0.1)
            if self.transport is not None:
                self.transport.close()
        elif len(parts) == 2 and parts[0] == "reset":
            self.reset(stream, int(parts[1]))
        elif len(parts) == 2 and parts[0] == "reset-mid-body":
            fields = [(":status", "200"), ("content-type", "application/octet-stream")]
            if query.get("length") == "1":
                fields.append(("content-length", "100000"))
            data = b"a" * 1000
            if query.get("gzip") == "1":
                fields.append(("content-encoding", "gzip"))
                data = gzip.compress(os.urandom(5000))[:1000]
            self.head(stream, fields)
            await self.body(stream, data, end=False)
            await asyncio.sleep(0.05)
            self.reset(stream, int(parts[1]))
        elif path == "/length/short":
            self.head(stream, [(":status", "200"), ("content-length", "100")])
            await self.body(stream, b"a" * 50)
        elif path == "/length/long":
            self.head(stream, [(":status", "200"), ("content-length", "10")])
            await self.body(stream, b"a" * 50)
        elif len(parts) == 2 and parts[0] == "malformed" and parts[1] in MALFORMED:
            self.head(stream, MALFORMED[parts[1]] + [("content-length", "2")])
            await self.body(stream, b"ok")
        elif len(parts) == 2 and parts[0] == "headers":
            fields = [(":status", "200")] + [(f"x-field-{n}", "v" * 1000) for n in range(int(parts[1]))]
            self.head(stream, fields + [("content-length", "2")])
            await self.body(stream, b"ok")
        elif path == "/stall/head":
            await asyncio.Event().wait()
        elif path == "/stall/body":
            self.head(stream, [(":status", "200"), ("content-length", "10")])
            await self.body(stream, b"a", end=False)
            await asyncio.Event().wait()
        elif path == "/http11-required":
            self.reset(stream, h2.errors.ErrorCodes.HTTP_1_1_REQUIRED)
        elif path == "/report":
            report = json.dumps({"requests": requests_by_id.get(query.get("id", ""), 0)}).encode()
            self.head(stream, [(":status", "200"), ("content-length", str(len(report)))])
            await self.body(stream, report)
        else:
            self.head(stream, [(":status", "404"), ("content-length", "0")], end=True)


MALFORMED: dict[str, list[tuple[str, str]]] = {
    "connection-header": [(":status", "200"), ("connection", "close")],
    "transfer-encoding": [(":status", "200"), ("transfer-encoding", "chunked")],
    "crlf-value": [(":status", "200"), ("x-injected", "a\r\nset-cookie: stolen=1")],
    "lf-value": [(":status", "200"), ("x-injected", "a\nset-cookie: stolen=1")],
    "nul-value": [(":status", "200"), ("x-injected", "a\x00b")],
    "uppercase-name": [(":status", "200"), ("X-Upper", "1")],
    "no-status": [("x-field", "1")],
    "status-2000": [(":status", "2000")],
    "two-statuses": [(":status", "200"), (":status", "500")],
}


class HTTP11Responder(asyncio.Protocol):
    """The HTTP/1.1 responder: one request, 200 {"value":"h1"}, close."""

    def __init__(self) -> None:
        self.received = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.received += data
        if b"\r\n\r\n" not in self.received or self.transport is None:
            return
        counted(self.received.split(b" ", 2)[1].decode("latin-1") if b" " in self.received else "/")
        self.transport.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 14\r\n"
            b'Connection: close\r\n\r\n{"value":"h1"}'
        )
        self.transport.close()
        self.transport = None


class Negotiated(asyncio.Protocol):
    """Hands a connection to the h2 server or the HTTP/1.1 responder, by the protocol ALPN chose."""

    def __init__(self) -> None:
        self.inner: asyncio.Protocol = HTTP11Responder()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        tls = transport.get_extra_info("ssl_object")
        if tls is not None and tls.selected_alpn_protocol() == "h2":
            self.inner = Connection()
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        self.inner.data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.inner.connection_lost(exc)


async def start(sock, cert: str, key: str) -> asyncio.AbstractServer:
    """Serves on the listening socket `sock` with the certificate `cert` and its key."""
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert, key)
    tls.set_alpn_protocols(["h2", "http/1.1"])
    return await asyncio.get_running_loop().create_server(Negotiated, sock=sock, ssl=tls)
