"""A Starlette app under uvicorn with bearer auth on the WebSocket handshake:
ENDPOINTS_WS_AUTH_URL (http://; its WebSocket paths are the same URL with ws://).

Tokens are opaque strings minted here, per user (any name the client picks, so tests running
at once do not touch each other's tokens). An access token is valid until its user's tokens
are revoked; a refresh token is single-use.

  path                        what it does
  --------------------------  -----------------------------------------------------------------
  POST /login                 JSON {"user": U} -> 200 {"access_token", "refresh_token",
                              "token_type": "Bearer", "expires_in": 3600}
  POST /refresh               JSON {"refresh_token": R} -> 200, a new pair as /login (R is used
                              up); 401 {"error": "invalid_grant"} for an unknown or used one
  POST /test/revoke?user=U    every access token of U stops being valid (its refresh tokens
                              stay valid) -> 200 {"revoked": n}
  POST /test/drop?user=U      closes every open WebSocket of U with ?code= (default 1012,
                              service restart) -> 200 {"dropped": n}
  GET  /test/stats?user=U     200 {"accepted", "rejected", "refreshes", "open"} for U
  WS   /ws/echo               the handshake needs `Authorization: Bearer <valid access token>`,
                              else HTTP 401 with `WWW-Authenticate: Bearer` and no upgrade; after
                              it, sends {"user": U, "connection": n} (n counts U's accepted
                              handshakes from 1), then echoes each text message as received
  WS   /ws/ticker             the same handshake; sends {"user": U, "connection": n}, then
                              {"tick": i} for i = 1, 2, … each ?interval= s (default 0.05); a text
                              message {"from": k} sent by the client restarts the count at k
"""

import asyncio
import contextlib
import json
import logging
import secrets
from dataclasses import dataclass, field

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

log = logging.getLogger("auth")


@dataclass
class User:
    access: set[str] = field(default_factory=set)
    accepted: int = 0
    rejected: int = 0
    refreshes: int = 0
    sockets: set[WebSocket] = field(default_factory=set)


users: dict[str, User] = {}
# Refresh token -> its user, until used.
refresh_tokens: dict[str, str] = {}
# Access token -> its user, for every token ever issued (revoked ones are removed from User.access).
access_owner: dict[str, str] = {}


def user(name: str) -> User:
    return users.setdefault(name, User())


def issue(name: str) -> dict:
    access, refresh = "a-" + secrets.token_urlsafe(12), "r-" + secrets.token_urlsafe(12)
    user(name).access.add(access)
    access_owner[access] = name
    refresh_tokens[refresh] = name
    return {"access_token": access, "refresh_token": refresh, "token_type": "Bearer", "expires_in": 3600}


async def login(request: Request):
    body = await request.json()
    return JSONResponse(issue(str(body["user"])))


async def refresh(request: Request):
    body = await request.json()
    name = refresh_tokens.pop(str(body.get("refresh_token", "")), None)
    if name is None:
        return JSONResponse({"error": "invalid_grant"}, status_code=401)
    user(name).refreshes += 1
    return JSONResponse(issue(name))


async def revoke(request: Request):
    who = user(request.query_params["user"])
    revoked = len(who.access)
    who.access.clear()
    return JSONResponse({"revoked": revoked})


async def drop(request: Request):
    who = user(request.query_params["user"])
    code = int(request.query_params.get("code", "1012"))
    sockets = list(who.sockets)
    for socket in sockets:
        try:
            await socket.close(code=code, reason="dropped")
        except RuntimeError:
            pass  # it closed meanwhile
    return JSONResponse({"dropped": len(sockets)})


async def stats(request: Request):
    who = user(request.query_params["user"])
    return JSONResponse(
        {"accepted": who.accepted, "rejected": who.rejected, "refreshes": who.refreshes, "open": len(who.sockets)}
    )


async def authenticated(websocket: WebSocket) -> tuple[str, User] | None:
    """The handshake's user, accepted; or None once the handshake was answered with 401."""
    header = websocket.headers.get("authorization", "")
    token = header[len("Bearer ") :] if header.startswith("Bearer ") else ""
    name = access_owner.get(token)
    if name is None or token not in user(name).access:
        if name is not None:
            user(name).rejected += 1
        response = PlainTextResponse("unauthorized\n", status_code=401, headers={"WWW-Authenticate": "Bearer"})
        await websocket.send_denial_response(response)
        return None
    who = user(name)
    who.accepted += 1
    await websocket.accept()
    who.sockets.add(websocket)
    await websocket.send_text(json.dumps({"user": name, "connection": who.accepted}))
    return name, who


async def echo(websocket: WebSocket):
    opened = await authenticated(websocket)
    if opened is None:
        return
    _, who = opened
    try:
        while True:
            await websocket.send_text(await websocket.receive_text())
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        who.sockets.discard(websocket)


async def ticker(websocket: WebSocket):
    opened = await authenticated(websocket)
    if opened is None:
        return
    _, who = opened
    interval = float(websocket.query_params.get("interval", "0.05"))
    state = {"next": 1}

    async def listen():
        while True:
            message = json.loads(await websocket.receive_text())
            state["next"] = int(message["from"])

    listener = asyncio.create_task(listen())
    try:
        while not listener.done():
            await websocket.send_text(json.dumps({"tick": state["next"]}))
            state["next"] += 1
            await asyncio.wait({listener}, timeout=interval)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        listener.cancel()
        who.sockets.discard(websocket)


app = Starlette(
    routes=[
        Route("/login", login, methods=["POST"]),
        Route("/refresh", refresh, methods=["POST"]),
        Route("/test/revoke", revoke, methods=["POST"]),
        Route("/test/drop", drop, methods=["POST"]),
        Route("/test/stats", stats, methods=["GET"]),
        WebSocketRoute("/ws/echo", echo),
        WebSocketRoute("/ws/ticker", ticker),
    ]
)


class _Server:
    """uvicorn on an already bound socket, in this event loop; the process's signals stay peers.py's."""

    def __init__(self, sock):
        import uvicorn

        class Server(uvicorn.Server):
            @contextlib.contextmanager
            def capture_signals(self):
                yield

        self.server = Server(uvicorn.Config(app, log_level="warning", ws="websockets-sansio", lifespan="off"))
        self.sock = sock
        self.task = None

    async def __aenter__(self):
        self.task = asyncio.create_task(self.server.serve(sockets=[self.sock]))
        while not self.server.started:
            if self.task.done():
                self.task.result()
                raise RuntimeError("uvicorn did not start")
            await asyncio.sleep(0.01)
        return self

    async def __aexit__(self, *exc):
        self.server.should_exit = True
        await self.task


def start(sock):
    """The app under uvicorn on `sock` (port 0, so the kernel chose the port), as an async context
    manager that returns once it accepts and stops it on exit."""
    return _Server(sock)
