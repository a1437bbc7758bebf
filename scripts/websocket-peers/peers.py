"""Starts every WebSocket peer of the test suite in one asyncio process, on loopback ports the
kernel chooses, and writes one line of JSON to stdout once all of them listen:

  {"ENDPOINTS_WS_ECHO_URL": "ws://127.0.0.1:…", …}

then runs until SIGTERM or SIGINT. scripts/websockets.sh reads that line (the readiness event)
and hands the URLs to the tests as environment variables. Logs go to stderr.

  python3 peers.py [--pidfile FILE] --cert server.pem --key server.key [--ca ca.pem]

What each server does: echo_server.py (the `websockets` package), auth_app.py (Starlette under
uvicorn, bearer auth on the handshake), hostile_server.py (raw sockets, one protocol violation
per path) and http2_server.py (HTTP/2 over TLS with the `h2` package, one violation of RFC 9113
per path; not a WebSocket peer, but the same certificate and process).
"""

import argparse
import asyncio
import json
import logging
import os
import signal
import socket
import ssl
import sys

import auth_app
import echo_server
import hostile_server
import http2_server

HOST = "127.0.0.1"


def bound_socket() -> socket.socket:
    """A listening TCP socket on a port the kernel chose."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, 0))
    sock.listen(128)
    sock.setblocking(False)
    return sock


def url(scheme: str, sock: socket.socket) -> str:
    return f"{scheme}://{HOST}:{sock.getsockname()[1]}"


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert", required=True, help="the server certificate (PEM), for wss://")
    parser.add_argument("--key", required=True, help="its private key (PEM)")
    parser.add_argument("--pidfile", help="where to write this process's pid, before anything else")
    parser.add_argument("--ca", help="the CA that signed it, passed on as ENDPOINTS_WS_CA_FILE")
    arguments = parser.parse_args()
    if arguments.pidfile:
        with open(arguments.pidfile, "w") as pidfile:
            pidfile.write(f"{os.getpid()}\n")

    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(arguments.cert, arguments.key)

    stop = asyncio.get_running_loop().create_future()
    for signum in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(signum, lambda: stop.done() or stop.set_result(None))

    urls: dict[str, str] = {}
    echo_plain, echo_tls, hostile, auth = bound_socket(), bound_socket(), bound_socket(), bound_socket()
    http2 = bound_socket()
    h2_listener = await http2_server.start(http2, arguments.cert, arguments.key)
    async with (
        h2_listener,
        echo_server.start(echo_plain),
        echo_server.start(echo_tls, ssl=tls),
        await hostile_server.start(hostile),
        auth_app.start(auth),
    ):
        urls["ENDPOINTS_WS_ECHO_URL"] = url("ws", echo_plain)
        urls["ENDPOINTS_WSS_ECHO_URL"] = url("wss", echo_tls)
        urls["ENDPOINTS_WS_HOSTILE_URL"] = url("ws", hostile)
        urls["ENDPOINTS_WS_AUTH_URL"] = url("http", auth)
        urls["ENDPOINTS_H2_URL"] = url("https", http2)
        if arguments.ca:
            urls["ENDPOINTS_WS_CA_FILE"] = os.path.abspath(arguments.ca)

        # The readiness event: every socket listens and every server accepts.
        sys.stdout.write(json.dumps(urls) + "\n")
        sys.stdout.flush()
        # Nothing else goes to stdout: the reader may be gone.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        await stop


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(asctime)s %(name)s %(message)s")
    # A session of its own, so the script can stop this process and anything under it as a group.
    try:
        os.setsid()
    except PermissionError:
        pass
    asyncio.run(main())
