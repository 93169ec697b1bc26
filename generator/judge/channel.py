"""Messages between the judge and the solution's process: JSON lines over a Unix socket.

File descriptors (the shared buffers on the CPU) travel with a message as SCM_RIGHTS. Nothing
is ever unpickled, and a message from the solution's side is bounded in size: what it says is
only ever "done" or "this went wrong", never a verdict the judge takes on trust.
"""

from __future__ import annotations

import json
import socket
from typing import Any, Dict, List, Optional, Tuple

MAX_MESSAGE = 1 << 20
MAX_FDS = 64


class ChannelClosed(Exception):
    """The other side closed the socket (or died)."""


class Channel:
    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.buffer = b""
        self.fds: List[int] = []

    def send(self, message: Dict[str, Any], fds: Optional[List[int]] = None) -> None:
        data = (json.dumps(message) + "\n").encode()
        try:
            if fds:
                socket.send_fds(self.sock, [data[:1]], fds)
                data = data[1:]
            self.sock.sendall(data)
        except OSError as exc:
            raise ChannelClosed(str(exc)) from None

    def receive(self, timeout: Optional[float] = None) -> Tuple[Dict[str, Any], List[int]]:
        """One message and the descriptors that came with it; raises socket.timeout."""
        self.sock.settimeout(timeout)
        while b"\n" not in self.buffer:
            if len(self.buffer) > MAX_MESSAGE:
                raise ChannelClosed("message too long")
            try:
                data, fds, _, _ = socket.recv_fds(self.sock, 1 << 16, MAX_FDS)
            except socket.timeout:
                raise
            except OSError as exc:
                raise ChannelClosed(str(exc)) from None
            self.fds.extend(fds)
            if not data:
                raise ChannelClosed("closed")
            self.buffer += data
        line, self.buffer = self.buffer.split(b"\n", 1)
        fds, self.fds = self.fds, []
        try:
            message = json.loads(line)
        except ValueError:
            raise ChannelClosed("not a JSON message") from None
        if not isinstance(message, dict):
            raise ChannelClosed("not a JSON object")
        return message, fds
