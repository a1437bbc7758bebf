"""The `websockets` package's own client as the reference of `endpoints-bench websocket`: the same
echo round trips as the Swift side, against the same echo server (echo_server.py), one round at a
time, so that the benchmark can alternate its rounds with this client's.

  python3 bench_client.py ws://127.0.0.1:PORT

For each line `C M` read from standard input: makes sure C connections to URL/echo are open
(opening them anew, outside the measurement, when C changed), then on each of them at once sends M
text messages of 32 bytes, each after the echo of the one before came back, and writes one line of
JSON: {"messages": C*M, "seconds": wall time, "cpu": this process's CPU time, user and system, in
seconds (time.process_time)}. Ends at the end of its input. Client settings as the server's: no
compression, no keepalive pings.

Standard input is read with a blocking readline between rounds: the event loop has nothing to do
then (no pings, no messages), and no thread is added whose CPU would be counted.
"""

import asyncio
import json
import sys
import time

from websockets.asyncio.client import ClientConnection, connect

# The Swift side sends the same 32 bytes (Sources/EndpointsBench/WebSocketBenchmark.swift).
MESSAGE = "abcdefghijklmnopqrstuvwxyz012345"


async def round_trips(connection: ClientConnection, count: int) -> None:
    for _ in range(count):
        await connection.send(MESSAGE)
        if await connection.recv() != MESSAGE:
            raise RuntimeError("the echo differs from the message sent")


async def open_one(url: str) -> ClientConnection:
    return await connect(url, compression=None, ping_interval=None, open_timeout=None)


async def main() -> None:
    url = sys.argv[1].rstrip("/") + "/echo"
    connections: list[ClientConnection] = []
    while line := sys.stdin.readline():
        count, per_connection = (int(word) for word in line.split())
        if len(connections) != count:
            await asyncio.gather(*(connection.close() for connection in connections))
            connections = list(await asyncio.gather(*(open_one(url) for _ in range(count))))
        cpu, start = time.process_time(), time.perf_counter()
        await asyncio.gather(*(round_trips(connection, per_connection) for connection in connections))
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        sys.stdout.write(json.dumps({"messages": count * per_connection, "seconds": seconds, "cpu": cpu}) + "\n")
        sys.stdout.flush()
    await asyncio.gather(*(connection.close() for connection in connections))


if __name__ == "__main__":
    asyncio.run(main())
