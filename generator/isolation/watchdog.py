"""The one loop that watches a child running foreign code, on chgen's own clock.

A `Watchdog` holds a child and, between two looks at what the child said, judges three things:
has the running phase overstayed its limit (plus a grace; the clock restarts with each phase),
does the child's whole process tree hold more resident memory than its limit (a scan of /proc,
every MEMORY_POLL_S), has the child exited. `watch(step)` is the loop: `step(timeout)` waits at
most `timeout` seconds for the child to say something and returns True when the exchange is over;
a breach ends the loop instead. What a breach means (a timeout verdict, a refused import, a
finding) is the caller's to say, in its own words; the caller also ends the child.
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass
from typing import Callable, Optional

from generator.isolation.process import tree_usage

#: Seconds one step may wait for the child before the dog looks again.
POLL_S = 0.05
#: Seconds between two looks at the tree's resident memory (a scan of /proc).
MEMORY_POLL_S = 0.25

TIME = "time"
MEMORY = "memory"
EXIT = "exit"


@dataclass(frozen=True)
class Breach:
    """Why the dog ended a watch: TIME (`limit` seconds overstayed), MEMORY (`rss` bytes over
    `limit`) or EXIT (the child ended, with `returncode`)."""

    kind: str
    limit: float = 0.0
    rss: int = 0
    returncode: Optional[int] = None


class Watchdog:
    """One child: its phase clock, its memory, its exit (see the module doc).

    `memory_bytes` None: memory is not watched (an rlimit holds it); `also_rss`: resident bytes
    counted against the same limit besides the child's tree (its idle sibling groups); `exits`
    False: the child's exit is no breach (the caller reads its output to the end first)."""

    def __init__(
        self,
        proc: subprocess.Popen,
        seconds: float,
        memory_bytes: Optional[int] = None,
        also_rss: Optional[Callable[[], float]] = None,
        grace: float = 0.0,
        exits: bool = True,
    ):
        self.proc = proc
        self.seconds = seconds
        self.memory_bytes = memory_bytes
        self.also_rss = also_rss
        self.grace = grace
        self.exits = exits
        self.started = time.monotonic()
        self.memory_seen = 0.0
        self.peak_rss = 0

    def restart(self, seconds: Optional[float] = None) -> None:
        """A new phase: the clock starts again, with `seconds` as its limit when given."""
        self.started = time.monotonic()
        if seconds is not None:
            self.seconds = seconds

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def remaining(self) -> float:
        """Seconds left to the running phase (grace included); 0 once it has overstayed."""
        return max(0.0, self.seconds + self.grace - self.elapsed())

    def look(self) -> Optional[Breach]:
        """The first limit the child breaches now: time, then memory, then its exit."""
        if self.elapsed() > self.seconds + self.grace:
            return Breach(TIME, self.seconds)
        if self.memory_bytes is not None and time.monotonic() - self.memory_seen >= MEMORY_POLL_S:
            self.memory_seen = time.monotonic()
            rss = tree_usage(self.proc.pid)[0]
            self.peak_rss = max(self.peak_rss, rss)
            rss += int(self.also_rss()) if self.also_rss is not None else 0
            if rss > self.memory_bytes:
                return Breach(MEMORY, float(self.memory_bytes), rss=rss)
        if self.exits and self.proc.poll() is not None:
            return Breach(EXIT, returncode=self.proc.returncode)
        return None

    def watch(self, step: Callable[[float], bool], poll: float = POLL_S) -> Optional[Breach]:
        """The loop: `step` until it says the exchange is over (None) or the child breaches a
        limit (the Breach)."""
        while True:
            if step(max(min(poll, self.remaining()), 0.001)):
                return None
            breach = self.look()
            if breach is not None:
                return breach

    def wait_exit(self) -> Optional[int]:
        """The child's exit status once it ends, waiting no longer than the running phase may
        still take; None when it is still running then."""
        try:
            return self.proc.wait(timeout=max(self.remaining(), 0.01))
        except subprocess.TimeoutExpired:
            return None
