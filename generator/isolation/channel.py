"""What a child that runs foreign code may say to chgen: JSON objects, one a line, each bounded.

Nothing from such a child is ever unpickled or evaluated. Every message is a line of JSON holding
an object, at most `limit` bytes; anything else (a pickle, a line over the limit, malformed JSON,
an array) is `Refused`, and the caller ends the child and says so, as it would for a crash. Two
carriers use the same framing: `Lines`, for pipes (a spec-code child's stdout, the judge worker's
report, an import worker's answers), and `Channel`, a Unix socket between the judge and the
solution's process, where file descriptors (the shared buffers on the CPU) travel with a message
as SCM_RIGHTS. What the solution's side says is only ever "done" or "this went wrong", never a
verdict the judge takes on trust.
"""

from __future__ import annotations

import json
import socket
from typing import Any, Dict, Iterator, List, Optional, Tuple

#: the largest message of the solution's process (its timing samples are the longest)
MAX_MESSAGE = 1 << 20
MAX_FDS = 64


class ChannelClosed(Exception):
    """The other side closed the socket (or died)."""


class Refused(ChannelClosed):
    """The other side sent something that is not a message: the reason, in words."""


def decode(line: bytes, limit: int) -> Dict[str, Any]:
    """One line as a message: a JSON object of at most `limit` bytes, else Refused."""
    if len(line) > limit:
        raise Refused(f"a message of {len(line)} bytes, over the limit of {limit}")
    try:
        message = json.loads(line)
    except ValueError:  # UnicodeDecodeError included
        raise Refused("not a JSON message") from None
    if not isinstance(message, dict):
        raise Refused("not a JSON object")
    return message


def typed(data: Any, fields: Dict[str, type]) -> Dict[str, Any]:
    """`data` as a dict holding exactly `fields`, each value of its type (a part of a message
    that chgen turns into one of its own objects), else Refused."""
    if not isinstance(data, dict) or set(data) != set(fields):
        raise Refused(f"not an object with the fields {', '.join(sorted(fields))}")
    for name, kind in fields.items():
        if not isinstance(data[name], kind):
            raise Refused(f"{name} is not a {kind.__name__}")
    return data


def encode(message: Dict[str, Any]) -> bytes:
    """A message as one line (what `decode` reads back)."""
    return (json.dumps(message) + "\n").encode()


class Lines:
    """Messages framed by newlines as bytes arrive: `feed` the bytes, then take `messages()`.
    A line longer than `limit` is refused as soon as it is, not when it ends."""

    def __init__(self, limit: int):
        self.limit = limit
        self.buffer = bytearray()

    def feed(self, data: bytes) -> Iterator[Dict[str, Any]]:
        """Add `data`; then yield the messages it completes, one at a time, so that a caller has
        handled every message before a refused line when Refused is raised (a busy reader gets
        several messages in one read; the last one it handled says which step went wrong)."""
        self.buffer += data
        return self._complete()

    def _complete(self) -> Iterator[Dict[str, Any]]:
        while True:
            message = self.next()
            if message is None:
                return
            yield message

    def next(self) -> Optional[Dict[str, Any]]:
        """The next complete message, or None until one is (raises Refused)."""
        end = self.buffer.find(b"\n")
        if end < 0:
            if len(self.buffer) > self.limit:
                raise Refused(f"a message of more than {self.limit} bytes, over the limit")
            return None
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        return decode(line, self.limit)


class Channel:
    """JSON messages and file descriptors over a Unix socket (see the module doc)."""

    def __init__(self, sock: socket.socket, limit: int = MAX_MESSAGE):
        self.sock = sock
        self.lines = Lines(limit)
        self.fds: List[int] = []

    def send(self, message: Dict[str, Any], fds: Optional[List[int]] = None) -> None:
        data = encode(message)
        try:
            if fds:
                socket.send_fds(self.sock, [data[:1]], fds)
                data = data[1:]
            self.sock.sendall(data)
        except OSError as exc:
            raise ChannelClosed(str(exc)) from None

    def receive(self, timeout: Optional[float] = None) -> Tuple[Dict[str, Any], List[int]]:
        """One message and the descriptors that came with it; raises socket.timeout, Refused."""
        self.sock.settimeout(timeout)
        while True:
            message = self.lines.next()
            if message is not None:
                break
            try:
                data, fds, _, _ = socket.recv_fds(self.sock, 1 << 16, MAX_FDS)
            except socket.timeout:
                raise
            except OSError as exc:
                raise ChannelClosed(str(exc)) from None
            self.fds.extend(fds)
            if not data:
                raise ChannelClosed("closed")
            self.lines.buffer += data
        fds, self.fds = self.fds, []
        return message, fds
