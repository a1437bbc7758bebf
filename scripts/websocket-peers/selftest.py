"""Checks that every path of every peer behaves as its file says, with the `websockets` package's
client (and raw sockets where a client library would refuse what the server sends). Run by
`scripts/websockets.sh selftest`, which sets the variables; prints one line per check and
"N passed, N failed" at the end; exits non-zero when a check failed.
"""

import asyncio
import json
import os
import ssl
import sys
import time
import traceback

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

ECHO = os.environ["ENDPOINTS_WS_ECHO_URL"]
ECHO_TLS = os.environ["ENDPOINTS_WSS_ECHO_URL"]
CA_FILE = os.environ["ENDPOINTS_WS_CA_FILE"]
TIMEOUT = 10

CHECKS = []


def check(function):
    CHECKS.append(function)
    return function


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


def trusting_ca() -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=CA_FILE)
    return context


def binary_of_size(n: int) -> bytes:
    return (bytes(range(256)) * (n // 256 + 1))[:n]


def text_of_size(n: int) -> str:
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
    return (alphabet * (n // len(alphabet) + 1))[:n]


def peer(url: str, **options):
    """A client connection with the options every check uses."""
    return connect(url, compression=None, max_size=None, ping_interval=None, open_timeout=TIMEOUT, **options)


# The echo server (echo_server.py).


async def round_trips(url: str, **options):
    async with peer(url, **options) as ws:
        for message in ["hello", "ümlaut 🎉", "", b"\x00\x01\xff", b""]:
            await ws.send(message)
            echoed = await ws.recv()
            expect(echoed == message and type(echoed) is type(message), f"echoed {echoed!r} for {message!r}")


@check
async def echo_round_trips_text_and_binary():
    await round_trips(ECHO + "/echo")
    await round_trips(ECHO + "/")


@check
async def echo_round_trips_over_tls_for_both_names():
    await round_trips(ECHO_TLS + "/echo", ssl=trusting_ca())
    await round_trips(ECHO_TLS.replace("127.0.0.1", "localhost") + "/echo", ssl=trusting_ca())


@check
async def echo_over_tls_is_refused_without_the_ca():
    try:
        async with peer(ECHO_TLS + "/echo", ssl=ssl.create_default_context()):
            pass
    except ssl.SSLCertVerificationError:
        return
    raise AssertionError("connected without trusting the throwaway CA")


@check
async def close_sends_the_code_and_reason_after_echoing():
    async with peer(ECHO + "/close/4001?reason=gone%20away&after=1") as ws:
        await ws.send("one")
        expect(await ws.recv() == "one", "the message before the close was not echoed")
        try:
            await ws.recv()
            raise AssertionError("no close")
        except ConnectionClosed as closed:
            expect(closed.rcvd.code == 4001 and closed.rcvd.reason == "gone away", f"closed with {closed.rcvd}")


@check
async def ping_is_answered_by_the_client_and_reported():
    async with peer(ECHO + "/ping?payload=p1") as ws:
        report = json.loads(await ws.recv())
        expect(report == {"pong": True, "payload": "p1"}, f"report {report}")
        await ws.send("after")
        expect(await ws.recv() == "after", "no echo after the ping")


@check
async def fragments_arrive_as_separate_frames():
    for kind, make in (("text", text_of_size), ("binary", binary_of_size)):
        for interleave in ("", "&interleave=ping"):
            async with peer(ECHO + f"/fragments?count=3&size=7&type={kind}{interleave}") as ws:
                fragments = [fragment async for fragment in ws.recv_streaming()]
                # The package ends a fragmented send with an empty final frame.
                expect(fragments == [make(7)] * 3 + [make(0)], f"{kind}{interleave}: fragments {fragments!r}")


@check
async def size_sends_one_message_of_the_size():
    async with peer(ECHO + "/size/3000000") as ws:
        expect(await ws.recv() == binary_of_size(3_000_000), "binary message differs")
    async with peer(ECHO + "/size/100?type=text") as ws:
        expect(await ws.recv() == text_of_size(100), "text message differs")


@check
async def subprotocol_is_negotiated_only_where_offered_and_known():
    async with peer(ECHO + "/subprotocol", subprotocols=["chat.v9", "chat.v1"]) as ws:
        expect(ws.subprotocol == "chat.v1", f"selected {ws.subprotocol}")
    async with peer(ECHO + "/subprotocol", subprotocols=["chat.v9"]) as ws:
        expect(ws.subprotocol is None, f"selected {ws.subprotocol} from none it knows")
    async with peer(ECHO + "/echo", subprotocols=["chat.v1"]) as ws:
        expect(ws.subprotocol is None, f"/echo selected {ws.subprotocol}")


@check
async def headers_are_reported():
    async with peer(ECHO + "/headers?q=1", additional_headers={"X-Trace-Id": "trace-7"}) as ws:
        report = json.loads(await ws.recv())
        expect(report["path"] == "/headers?q=1", f"path {report['path']}")
        expect(report["headers"].get("x-trace-id") == "trace-7", f"headers {report['headers']}")
        expect(report["headers"].get("upgrade") == "websocket", "no upgrade header reported")


@check
async def reject_answers_the_handshake_with_the_status():
    for status in (401, 404, 503):
        try:
            async with peer(ECHO + f"/reject/{status}"):
                raise AssertionError(f"/reject/{status} upgraded")
        except InvalidStatus as error:
            expect(error.response.status_code == status, f"status {error.response.status_code}")


# The hostile server (hostile_server.py): what it sends is read byte by byte with a raw client,
# and a few cases also with the `websockets` client, whose close code the report must show.

HOSTILE = os.environ["ENDPOINTS_WS_HOSTILE_URL"]
KEY = "dGhlIHNhbXBsZSBub25jZQ=="
KEY_ACCEPT = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="  # RFC 6455's own example


class Raw:
    """A WebSocket client on a raw socket: sends the handshake, reads exactly what comes back."""

    async def open(self, path: str):
        host, port = HOSTILE.removeprefix("ws://").split(":")
        self.reader, self.writer = await asyncio.open_connection(host, int(port))
        self.writer.write(
            (
                f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        return self

    async def head(self):
        lines = (await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), TIMEOUT)).decode().split("\r\n")
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name:
                headers[name.lower()] = value.strip()
        return int(lines[0].split(" ")[1]), headers

    async def upgraded(self):
        status, headers = await self.head()
        expect(status == 101 and headers.get("sec-websocket-accept") == KEY_ACCEPT, f"handshake {status} {headers}")

    async def frame(self, read_payload=True):
        """(fin, rsv, opcode, masked, declared length, payload)."""
        read = lambda n: asyncio.wait_for(self.reader.readexactly(n), TIMEOUT)  # noqa: E731
        first, second = await read(2)
        length = second & 0x7F
        if length == 126:
            length = int.from_bytes(await read(2), "big")
        elif length == 127:
            length = int.from_bytes(await read(8), "big")
        masked = bool(second & 0x80)
        mask = await read(4) if masked else b"\0\0\0\0"
        payload = await read(length) if read_payload else b""
        payload = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
        return bool(first & 0x80), (first >> 4) & 0x7, first & 0x0F, masked, length, payload

    def send(self, opcode: int, payload: bytes = b"", fin=True):
        mask = os.urandom(4)
        assert len(payload) < 126
        masked = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
        self.writer.write(bytes([(0x80 if fin else 0) | opcode, 0x80 | len(payload)]) + mask + masked)

    def close(self):
        self.writer.close()


async def hostile_frames(path: str, count: int = 1):
    raw = await Raw().open(path)
    try:
        await raw.upgraded()
        return [await raw.frame() for _ in range(count)]
    finally:
        raw.close()


async def hostile_report(name: str) -> dict:
    host, port = HOSTILE.removeprefix("ws://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(f"GET /report/{name} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    response = await asyncio.wait_for(reader.read(), 2 * TIMEOUT)
    writer.close()
    return json.loads(response.split(b"\r\n\r\n", 1)[1])


@check
async def hostile_handshakes_are_broken_as_documented():
    for path, test in {
        "/handshake/200": lambda status, headers: status == 200,
        "/handshake/wrong-accept": lambda status, headers: status == 101
        and headers["sec-websocket-accept"] != KEY_ACCEPT
        and headers["upgrade"] == "websocket",
        "/handshake/no-upgrade": lambda status, headers: status == 101
        and "upgrade" not in headers
        and headers["sec-websocket-accept"] == KEY_ACCEPT,
        "/handshake/no-connection": lambda status, headers: status == 101 and "connection" not in headers,
        "/handshake/unrequested-subprotocol": lambda status, headers: headers.get("sec-websocket-protocol")
        == "chat.v9",
        "/handshake/unrequested-extension": lambda status, headers: headers.get("sec-websocket-extensions")
        == "permessage-deflate",
        "/no/such/case": lambda status, headers: status == 404,
    }.items():
        raw = await Raw().open(path)
        status, headers = await raw.head()
        raw.close()
        expect(test(status, headers), f"{path}: {status} {headers}")


@check
async def hostile_silent_handshake_never_answers():
    raw = await Raw().open("/handshake/silent")
    try:
        await asyncio.wait_for(raw.reader.read(1), 0.5)
        raise AssertionError("/handshake/silent answered")
    except asyncio.TimeoutError:
        pass
    finally:
        raw.close()


@check
async def hostile_frames_are_broken_as_documented():
    # (fin, rsv, opcode, masked, declared length, payload) of the first frame(s) after the handshake.
    cases = {
        "/frame/masked": [(True, 0, 1, True, 6, b"masked")],
        "/frame/rsv1": [(True, 4, 1, False, 8, b"reserved")],
        "/frame/rsv2": [(True, 2, 1, False, 8, b"reserved")],
        "/frame/rsv3": [(True, 1, 1, False, 8, b"reserved")],
        "/frame/opcode/3": [(True, 0, 3, False, 1, b"x")],
        "/frame/opcode/11": [(True, 0, 11, False, 1, b"x")],
        "/frame/continuation-without-start": [(True, 0, 0, False, 6, b"orphan")],
        "/frame/text-during-fragmented": [(False, 0, 1, False, 5, b"first"), (True, 0, 1, False, 6, b"second")],
        "/control/long-ping": [(True, 0, 9, False, 126, b"p" * 126)],
        "/control/long-close": [(True, 0, 8, False, 126, b"\x03\xe8" + b"r" * 124)],
        "/control/fragmented-ping": [(False, 0, 9, False, 4, b"part")],
        "/utf8/invalid-text": [(True, 0, 1, False, 2, b"\xff\xfe")],
        "/utf8/invalid-split": [(False, 0, 1, False, 5, b"ok \xe2\x82"), (True, 0, 0, False, 1, b"\x28")],
        "/utf8/truncated": [(True, 0, 1, False, 5, b"ok \xe2\x82")],
        "/utf8/valid-split": [(False, 0, 1, False, 9, b"price: \xe2\x82"), (True, 0, 0, False, 1, b"\xac")],
        "/close/1005": [(True, 0, 8, False, 5, b"\x03\xedbye")],
        "/close/1006": [(True, 0, 8, False, 5, b"\x03\xeebye")],
        "/close/1015": [(True, 0, 8, False, 5, b"\x03\xf7bye")],
        "/close/invalid-utf8-reason": [(True, 0, 8, False, 4, b"\x03\xe8\xff\xfe")],
        "/close/one-byte": [(True, 0, 8, False, 1, b"\x03")],
        "/pong/unsolicited": [(True, 0, 10, False, 11, b"unsolicited")],
    }
    for path, expected in cases.items():
        frames = await hostile_frames(path, len(expected))
        expect(frames == expected, f"{path}: {frames}")


@check
async def hostile_lengths_are_declared_as_documented():
    for path, declared in (("/length/msb-set", 1 << 63), ("/length/max", (1 << 63) - 1)):
        raw = await Raw().open(path)
        try:
            await raw.upgraded()
            fin, rsv, opcode, masked, length, _ = await raw.frame(read_payload=False)
            expect((fin, opcode, length) == (True, 2, declared), f"{path}: declared {length}")
        finally:
            raw.close()


@check
async def hostile_oversized_messages_have_the_size():
    single = await hostile_frames("/size/over")
    expect(len(single) == 1 and single[0][4] == 2 * 1024 * 1024 + 1, "/size/over is not one frame of 2 MiB + 1")
    expect(single[0][5] == binary_of_size(2 * 1024 * 1024 + 1), "/size/over's bytes differ")
    fragments = await hostile_frames("/size/over-fragmented?bytes=200000&fragment=65536", 4)
    expect([f[4] for f in fragments] == [65536, 65536, 65536, 3392], f"fragment sizes {[f[4] for f in fragments]}")
    expect([(f[0], f[2]) for f in fragments] == [(False, 2), (False, 0), (False, 0), (True, 0)], "fragment flags")


@check
async def hostile_ok_echoes_and_answers_pings_and_close():
    raw = await Raw().open("/ok")
    try:
        await raw.upgraded()
        raw.send(1, b"hello")
        expect(await raw.frame() == (True, 0, 1, False, 5, b"hello"), "no echo")
        raw.send(9, b"p")
        expect(await raw.frame() == (True, 0, 10, False, 1, b"p"), "no pong")
        raw.send(8, b"\x03\xe8")
        expect(await raw.frame() == (True, 0, 8, False, 2, b"\x03\xe8"), "no close answer")
    finally:
        raw.close()


@check
async def hostile_pings_stop_being_answered():
    for path, answered in (("/ping/no-pong", 0), ("/ping/stop-after/2", 2)):
        raw = await Raw().open(path)
        try:
            await raw.upgraded()
            for index in range(3):
                raw.send(9, f"{index}".encode())
            # An echo after the pings: every pong the server sends comes before it.
            raw.send(1, b"marker")
            frames = []
            while (received := await raw.frame())[2] != 1:
                frames.append(received)
            pongs = [payload for _, _, opcode, _, _, payload in frames if opcode == 10]
            expect(pongs == [f"{index}".encode() for index in range(answered)], f"{path}: pongs {pongs}")
        finally:
            raw.close()


@check
async def hostile_reports_the_clients_close_code():
    for path, code, options in (
        ("/frame/rsv1", 1002, {}),
        ("/frame/masked", 1002, {}),
        ("/utf8/invalid-text", 1007, {}),
        ("/utf8/invalid-split", 1007, {}),
        ("/size/over", 1009, {"max_size": 2 * 1024 * 1024}),
    ):
        name = f"selftest-{path.strip('/').replace('/', '-')}-{os.getpid()}"
        async with connect(
            f"{HOSTILE}{path}?id={name}", compression=None, ping_interval=None, open_timeout=TIMEOUT, **options
        ) as ws:
            try:
                await ws.recv()
                raise AssertionError(f"{path}: the client accepted the message")
            except ConnectionClosed as closed:
                expect(closed.sent is not None and closed.sent.code == code, f"{path}: the client sent {closed.sent}")
        report = await hostile_report(name)
        expect(report["ended"] and report["client_close_code"] == code, f"{path}: report {report}")
        expect(report["client_frames_masked"], f"{path}: unmasked client frames reported")


@check
async def hostile_controls_pass_the_websockets_client():
    async with peer(HOSTILE + "/utf8/valid-split") as ws:
        expect(await ws.recv() == "price: €", "valid split text")
        await ws.send("again")
        expect(await ws.recv() == "again", "no echo after the split text")
    async with peer(HOSTILE + "/pong/unsolicited") as ws:
        await ws.send(b"bin")
        expect(await ws.recv() == b"bin", "no echo after the unsolicited pong")


# The Starlette app under uvicorn (auth_app.py).

AUTH = os.environ["ENDPOINTS_WS_AUTH_URL"]
AUTH_WS = AUTH.replace("http://", "ws://", 1)


def auth_post(path: str, body: dict | None = None):
    """POSTs JSON to the auth app; (status, JSON body)."""
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        AUTH + path, data=json.dumps(body or {}).encode(), method="POST", headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def bearer(tokens: dict) -> dict:
    return {"Authorization": "Bearer " + tokens["access_token"]}


@check
async def auth_handshake_refresh_revoke_and_drop_work_as_documented():
    user = f"selftest-{time.monotonic_ns()}"
    _, tokens = auth_post("/login", {"user": user})
    async with peer(AUTH_WS + "/ws/echo", additional_headers=bearer(tokens)) as ws:
        expect(json.loads(await ws.recv()) == {"user": user, "connection": 1}, "the greeting")
        await ws.send("hi")
        expect(await ws.recv() == "hi", "no echo")
        expect(auth_post(f"/test/drop?user={user}") == (200, {"dropped": 1}), "drop")
        try:
            await ws.recv()
            expect(False, "not dropped")
        except ConnectionClosed:
            expect(ws.close_code == 1012, f"dropped with {ws.close_code}")
    expect(auth_post(f"/test/revoke?user={user}") == (200, {"revoked": 1}), "revoke")
    try:
        async with peer(AUTH_WS + "/ws/echo", additional_headers=bearer(tokens)):
            expect(False, "a revoked token was accepted")
    except InvalidStatus as error:
        expect(error.response.status_code == 401, f"rejected with {error.response.status_code}")
    status, renewed = auth_post("/refresh", {"refresh_token": tokens["refresh_token"]})
    expect(status == 200, "refresh")
    expect(auth_post("/refresh", {"refresh_token": tokens["refresh_token"]})[0] == 401, "a used refresh token")
    async with peer(AUTH_WS + "/ws/ticker?interval=0.01", additional_headers=bearer(renewed)) as ws:
        expect(json.loads(await ws.recv())["connection"] == 2, "the second connection")
        expect(json.loads(await ws.recv()) == {"tick": 1}, "the first tick")
        await ws.send(json.dumps({"from": 100}))
        ticks = [json.loads(await ws.recv())["tick"] for _ in range(20)]
        expect(100 in ticks, f"the ticks after from=100: {ticks}")


async def run() -> int:
    passed = failed = 0
    selected = sys.argv[1:]
    for function in CHECKS:
        if selected and not any(name in function.__name__ for name in selected):
            continue
        started = time.monotonic()
        try:
            await asyncio.wait_for(function(), 3 * TIMEOUT)
            passed += 1
            print(f"ok      {function.__name__} ({(time.monotonic() - started) * 1000:.0f} ms)")
        except BaseException as error:  # noqa: BLE001 - a check's failure of any kind is reported
            if isinstance(error, (KeyboardInterrupt, SystemExit)):
                raise
            failed += 1
            print(f"FAILED  {function.__name__}: {error!r}")
            traceback.print_exc(file=sys.stdout)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(run()))
