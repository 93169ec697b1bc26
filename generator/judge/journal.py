"""A run's journal: each finished job's result, one signed JSON line, appended as it comes.

A run cut short (a call of limited length that stops starting jobs at its deadline) is taken up
by the next run with the same journal: the jobs it holds are not run again, their results are
read back. Lines are signed as the cache signs its runs (generator/judge/cache.py), with a key
kept beside the journal, so a line written by anyone else, e.g. a solution that found the file,
does not verify and is ignored; so is a line cut off when a call was killed.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from generator.judge import verdicts as V
from generator.judge.cache import Cache

FUNCTIONAL, TIMED = "functional", "timed"


class Journal:
    def __init__(self, path: Path):
        self.path = Path(path)
        self.cache = Cache(self.path.parent)  # only its key, in the journal's folder
        self._lock = threading.Lock()
        self._done: Dict[Tuple[str, str], Dict[str, Any]] = {}
        #: when each journalled job finished (time.time()), in file order
        self.finished_at: List[float] = []
        if self.path.is_file():
            for line in self.path.read_text(encoding="utf-8", errors="replace").splitlines():
                self._read(line)

    def _read(self, line: str) -> None:
        try:
            entry = json.loads(line)
            key, body = f"{entry['id']}\0{entry['phase']}", entry["result"]
            if not self.cache.verify(key, body, entry["mac"]):
                return
            self._done[(entry["id"], entry["phase"])] = json.loads(body)
            self.finished_at.append(float(entry["at"]))
        except (ValueError, KeyError, TypeError):
            return

    def get(self, job_id: str, phase: str) -> Optional[Dict[str, Any]]:
        """A result journalled before (marked `resumed`), or None."""
        found = self._done.get((job_id, phase))
        return None if found is None else {**found, "resumed": True}

    def add(self, job_id: str, phase: str, result: Dict[str, Any]) -> None:
        """Record a finished job (a job not run is left for the next run)."""
        if result.get("verdict") == V.NOT_RUN:
            return
        body = json.dumps(result, default=str)
        key = f"{job_id}\0{phase}"
        line = {"id": job_id, "phase": phase, "at": time.time(), "result": body,
                "mac": self.cache.sign(key, body)}  # fmt: skip
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(line) + "\n")
            self._done[(job_id, phase)] = result
