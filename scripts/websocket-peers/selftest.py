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
