"""A WebSocket server written on raw sockets, no library: ENDPOINTS_WS_HOSTILE_URL. Each path does
exactly one bad thing, after a correct handshake (101, right Sec-WebSocket-Accept) unless the
bad thing is the handshake itself; a few paths marked (control) do nothing wrong, so a test can
tell the client's rejection of the bad thing from a rejection of this server.

  path                              what the server does
  --------------------------------  ---------------------------------------------------------------
  /ok                               (control) echoes each frame back unmasked with its opcode and
                                    FIN bit, answers pings, answers a close with the same code
  /handshake/200                    answers the handshake with 200 OK and a body "ok\\n"
  /handshake/wrong-accept           101 with a Sec-WebSocket-Accept computed from another key
  /handshake/no-upgrade             101 without the Upgrade header
  /handshake/no-connection          101 without the Connection header
  /handshake/unrequested-subprotocol  101 selecting chat.v9, which no client offers
  /handshake/unrequested-extension  101 with permessage-deflate, which the client did not offer
  /handshake/silent                 accepts the connection, reads the request, never answers
  /frame/masked                     a masked text frame "masked"
  /frame/rsv1  /frame/rsv2  /frame/rsv3   a text frame "reserved" with that reserved bit set
  /frame/opcode/{n}                 a frame with opcode {n} (3-7 and 11-15 are reserved), payload "x"
  /frame/continuation-without-start a continuation frame (FIN set) "orphan" with no message open
  /frame/text-during-fragmented     a text frame without FIN, then a new text frame (not a
                                    continuation) while the first message is open
  /control/long-ping                a ping with a 126-byte payload (over 125)
  /control/long-close               a close with a 126-byte payload (code 1000 and 124 bytes)
  /control/fragmented-ping          a ping without FIN
  /utf8/invalid-text                a text frame with the bytes 0xFF 0xFE
  /utf8/invalid-split               a text message in two fragments: "ok \\xE2\\x82" then "\\x28"
                                    (the sequence is broken across the fragment boundary)
  /utf8/truncated                   a text frame ending inside a sequence: "ok \\xE2\\x82"
  /utf8/valid-split                 (control) "price: \\xE2\\x82" then "\\xAC": "price: €" split
                                    inside the euro sign, then echoes like /ok
  /close/{code}                     a close frame with {code} and the reason "bye", e.g. 1005,
                                    1006, 1015 (never valid on the wire), 999, 1004, 2999, 5000
  /close/invalid-utf8-reason        a close frame with code 1000 and the reason bytes 0xFF 0xFE
  /close/one-byte                   a close frame with a 1-byte payload
  /length/msb-set                   a binary frame header declaring 2^63 bytes (the 64-bit length's
                                    most significant bit, which must be 0, set), then nothing
  /length/max                       a binary frame header declaring 2^63 - 1 bytes, then 1 KiB
  /size/over                        one binary frame of ?bytes= (default 2 MiB + 1) bytes
  /size/over-fragmented             one binary message of ?bytes= (default 2 MiB + 1) bytes in
                                    frames of ?fragment= bytes (default 65536)
  /ping/no-pong                     echoes like /ok but never answers a ping
  /ping/stop-after/{n}              echoes like /ok, answers the first {n} pings, then no more
  /pong/unsolicited                 (control) sends a pong nobody asked for, then echoes like /ok
  any other path                    404 Not Found

After its bad thing a path reads what the client sends until the client closes the connection,
answering a close frame with a close frame of the same code and closing the socket.
Add ?id=NAME to a WebSocket URL and a plain HTTP GET /report/NAME (no upgrade) answers, once
that connection has ended (it waits up to ?timeout= s, default 10), with JSON:

  {"ended": true, "client_close_code": 1002 or null, "client_close_reason": "…" or null,
   "client_frames_masked": true, "frames_from_client": 1}

("ended": false when it timed out.) So a test can check that the client closed the socket and
which close code it sent.
"""

import asyncio
import base64
import hashlib
import json
import logging
import struct
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

log = logging.getLogger("hostile")

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
MAX_CLIENT_PAYLOAD = 16 * 1024 * 1024
DEFAULT_OVER = 2 * 1024 * 1024 + 1
SILENT_LIMIT = 300  # seconds a /handshake/silent connection is kept at most


@dataclass
class Report:
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    close_code: int | None = None
    close_reason: str | None = None
    masked: bool = True
    frames: int = 0

    def json(self) -> dict:
        return {
            "ended": self.ended.is_set(),
            "client_close_code": self.close_code,
            "client_close_reason": self.close_reason,
            "client_frames_masked": self.masked,
            "frames_from_client": self.frames,
        }


REPORTS: dict[str, Report] = {}


def report(name: str) -> Report:
    return REPORTS.setdefault(name, Report())


def accept(key: str) -> str:
    return base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()


def frame(opcode: int, payload: bytes = b"", *, fin=True, rsv=0, mask: bytes | None = None, length=None) -> bytes:
    """A frame as the server sends it; `length` overrides the declared payload length."""
    declared = len(payload) if length is None else length
    first = (0x80 if fin else 0) | (rsv << 4) | opcode
    mask_bit = 0x80 if mask else 0
    if declared < 126:
        header = struct.pack("!BB", first, mask_bit | declared)
    elif declared < 1 << 16:
        header = struct.pack("!BBH", first, mask_bit | 126, declared)
    else:
        header = struct.pack("!BBQ", first, mask_bit | 127, declared)
    if mask:
        payload = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
        header += mask
    return header + payload


def close_frame(code: int, reason: bytes = b"") -> bytes:
    return frame(CLOSE, struct.pack("!H", code) + reason)


class Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, query: dict, report: Report):
        self.reader, self.writer, self.query, self.report = reader, writer, query, report

    async def send(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def read_frame(self):
        """The client's next frame as (fin, opcode, payload), or None at end of stream."""
        try:
            first, second = await self.reader.readexactly(2)
            length = second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", await self.reader.readexactly(2))
            elif length == 127:
                (length,) = struct.unpack("!Q", await self.reader.readexactly(8))
            if length > MAX_CLIENT_PAYLOAD:
                return None
            masked = bool(second & 0x80)
            mask = await self.reader.readexactly(4) if masked else b"\0\0\0\0"
            payload = await self.reader.readexactly(length)
        except (asyncio.IncompleteReadError, ConnectionError):
            return None
        self.report.frames += 1
        self.report.masked = self.report.masked and masked
        payload = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
        opcode = first & 0x0F
        if opcode == CLOSE and self.report.close_code is None and len(payload) >= 2:
            self.report.close_code = struct.unpack("!H", payload[:2])[0]
            self.report.close_reason = payload[2:].decode("utf-8", "replace")
        return bool(first & 0x80), opcode, payload

    async def drain_client(self) -> None:
        """Reads (and drops) what the client sends until it closes: a close frame is answered as
        RFC 6455 says (with the same code), so the bad thing stays the only one."""
        while (received := await self.read_frame()) is not None:
            if received[1] == CLOSE:
                await self.send(frame(CLOSE, received[2][:2]))
                return

    async def echo(self, pongs: int | None = None) -> None:
        """A correct peer: echoes data frames, answers `pongs` pings (all when None), answers a close."""
        answered = 0
        while (received := await self.read_frame()) is not None:
            fin, opcode, payload = received
            if opcode in (TEXT, BINARY, CONTINUATION):
                await self.send(frame(opcode, payload, fin=fin))
            elif opcode == PING:
                if pongs is None or answered < pongs:
                    answered += 1
                    await self.send(frame(PONG, payload))
            elif opcode == CLOSE:
                await self.send(frame(CLOSE, payload[:2]))
                return


def handshake(key: str, *, accept_value=None, upgrade=True, connection=True, extra=()) -> bytes:
    lines = ["HTTP/1.1 101 Switching Protocols"]
    if upgrade:
        lines.append("Upgrade: websocket")
    if connection:
        lines.append("Connection: Upgrade")
    lines.append(f"Sec-WebSocket-Accept: {accept(key) if accept_value is None else accept_value}")
    lines.extend(extra)
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def http_response(status: str, body: bytes, content_type="text/plain") -> bytes:
    head = f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    return head.encode() + body


# The cases: each is sent the connection after the request was read; a handshake case answers the
# handshake itself, every other case gets a correct 101 first.

HANDSHAKES = {
    "/handshake/200": lambda key: http_response("200 OK", b"ok\n"),
    "/handshake/wrong-accept": lambda key: handshake(key, accept_value=accept(key + "x")),
    "/handshake/no-upgrade": lambda key: handshake(key, upgrade=False),
    "/handshake/no-connection": lambda key: handshake(key, connection=False),
    "/handshake/unrequested-subprotocol": lambda key: handshake(key, extra=["Sec-WebSocket-Protocol: chat.v9"]),
    "/handshake/unrequested-extension": lambda key: handshake(
        key, extra=["Sec-WebSocket-Extensions: permessage-deflate"]
    ),
}

ONE_BAD_THING = {
    "/frame/masked": frame(TEXT, b"masked", mask=b"\x01\x02\x03\x04"),
    "/frame/rsv1": frame(TEXT, b"reserved", rsv=4),
    "/frame/rsv2": frame(TEXT, b"reserved", rsv=2),
    "/frame/rsv3": frame(TEXT, b"reserved", rsv=1),
    "/frame/continuation-without-start": frame(CONTINUATION, b"orphan"),
    "/frame/text-during-fragmented": frame(TEXT, b"first", fin=False) + frame(TEXT, b"second"),
    "/control/long-ping": frame(PING, b"p" * 126),
    "/control/long-close": close_frame(1000, b"r" * 124),
    "/control/fragmented-ping": frame(PING, b"part", fin=False),
    "/utf8/invalid-text": frame(TEXT, b"\xff\xfe"),
    "/utf8/invalid-split": frame(TEXT, b"ok \xe2\x82", fin=False) + frame(CONTINUATION, b"\x28"),
    "/utf8/truncated": frame(TEXT, b"ok \xe2\x82"),
    "/close/invalid-utf8-reason": close_frame(1000, b"\xff\xfe"),
    "/close/one-byte": frame(CLOSE, b"\x03"),
    "/length/msb-set": struct.pack("!BBQ", 0x80 | BINARY, 127, 1 << 63),
    "/length/max": struct.pack("!BBQ", 0x80 | BINARY, 127, (1 << 63) - 1) + b"\0" * 1024,
}


def case_for(path: str, segments: list[str], query: dict):
    """What the server does after a correct 101 on `path`, or None when `path` is no such case."""

    async def one_bad_thing(connection: Connection, data: bytes) -> None:
        await connection.send(data)
        await connection.drain_client()

    if path in ONE_BAD_THING:
        return lambda connection: one_bad_thing(connection, ONE_BAD_THING[path])
    if path == "/ok":
        return lambda connection: connection.echo()
    if len(segments) == 3 and segments[:2] == ["frame", "opcode"] and segments[2].isdigit():
        return lambda connection: one_bad_thing(connection, frame(int(segments[2]) & 0x0F, b"x"))
    if len(segments) == 2 and segments[0] == "close" and segments[1].isdigit():
        return lambda connection: one_bad_thing(connection, close_frame(int(segments[1]), b"bye"))
    if path in ("/size/over", "/size/over-fragmented"):
        size = int(query.get("bytes", DEFAULT_OVER))
        step = size if path == "/size/over" else int(query.get("fragment", 65536))

        async def over(connection: Connection) -> None:
            payload = bytes(range(256)) * (size // 256 + 1)
            for offset in range(0, size, step):
                last = offset + step >= size
                chunk = payload[offset : min(offset + step, size)]
                await connection.send(frame(BINARY if offset == 0 else CONTINUATION, chunk, fin=last))
            await connection.drain_client()

        return over
    if path == "/utf8/valid-split":

        async def valid_split(connection: Connection) -> None:
            await connection.send(frame(TEXT, b"price: \xe2\x82", fin=False) + frame(CONTINUATION, b"\xac"))
            await connection.echo()

        return valid_split
    if path == "/ping/no-pong":
        return lambda connection: connection.echo(pongs=0)
    if len(segments) == 3 and segments[:2] == ["ping", "stop-after"] and segments[2].isdigit():
        return lambda connection: connection.echo(pongs=int(segments[2]))
    if path == "/pong/unsolicited":

        async def unsolicited(connection: Connection) -> None:
            await connection.send(frame(PONG, b"unsolicited"))
            await connection.echo()

        return unsolicited
    return None


async def read_head(reader: asyncio.StreamReader) -> tuple[str, str, dict[str, str]] | None:
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.TimeoutError, ConnectionError):
        return None
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3:
        return None
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name:
            headers[name.strip().lower()] = value.strip()
    return parts[0], parts[1], headers


async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    record = None
    try:
        request = await read_head(reader)
        if request is None:
            return
        _, target, headers = request
        parts = urlsplit(target)
        path = parts.path
        query = {name: values[-1] for name, values in parse_qs(parts.query).items()}
        segments = [segment for segment in path.split("/") if segment]

        if len(segments) == 2 and segments[0] == "report" and "upgrade" not in headers:
            entry = report(segments[1])
            try:
                await asyncio.wait_for(entry.ended.wait(), float(query.get("timeout", 10)))
            except asyncio.TimeoutError:
                pass
            writer.write(http_response("200 OK", json.dumps(entry.json()).encode(), "application/json"))
            await writer.drain()
            return

        key = headers.get("sec-websocket-key", "")
        record = report(query["id"]) if "id" in query else Report()
        connection = Connection(reader, writer, query, record)
        if path == "/handshake/silent":
            try:
                await asyncio.wait_for(reader.read(), SILENT_LIMIT)
            except asyncio.TimeoutError:
                pass
            return
        if path in HANDSHAKES:
            await connection.send(HANDSHAKES[path](key))
            await connection.drain_client()
            return
        case = case_for(path, segments, query)
        if case is None or not key:
            writer.write(http_response("404 Not Found", b"no such case\n"))
            await writer.drain()
            return
        await connection.send(handshake(key))
        await case(connection)
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        if record is not None:
            record.ended.set()
        writer.close()


def start(sock):
    """The server on an already bound socket (port 0, so the kernel chose the port)."""
    return asyncio.start_server(handle, sock=sock, limit=64 * 1024)
