"""What a child that ran foreign code sends is data or a refusal, never code run in chgen.

A pickle that would plant a folder if it were unpickled, a message over the size limit, malformed
JSON, a JSON array, and a well-formed result that names a file outside the specs folder: through
the channel's own framing, through a real import worker (challenge.py writes them to the pool's
pipe, in the real sandbox) and through a real judge worker (challenge.py writes them to the
report pipe); each is refused, and the planted folder never appears.
"""

from __future__ import annotations

import os
import pickle
import shutil
import socket
import struct
from pathlib import Path

import pytest

from generator.importer.isolated import MAX_ANSWER, ImportPool
from generator.importer.report import Report
from generator.importer.result import Equivalence, ImportResult, to_json
from generator.isolation.channel import Channel, Lines, Refused, encode
from tests.conftest import ROOT

FIXTURE_TREE = ROOT / "tests" / "importer" / "fixtures" / "public_style"
SCALED_ADD_TREE = ROOT / "tests" / "judge" / "fixtures" / "tree"


class Planter:
    """Unpickled, this would create `path` (a folder) in whichever process unpickles it."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return (os.mkdir, (self.path,))


def pickled_planter(path: Path) -> bytes:
    """The planter as multiprocessing's Connection frames it (a length, then the pickle)."""
    data = pickle.dumps(Planter(path))
    return struct.pack("!i", len(data)) + data


def test_the_channel_refuses_what_is_not_a_message(tmp_path):
    planted = tmp_path / "planted"
    lines = Lines(limit=1000)
    assert list(lines.feed(b'{"a": 1}\n{"b"')) == [{"a": 1}]
    assert list(lines.feed(b": [2]}\n")) == [{"b": [2]}]
    # the messages read before a refused line (one read, under load) reach the caller first
    handled = []
    with pytest.raises(Refused):
        for message in Lines(limit=1000).feed(b'{"done": 5}\n{"step": 6}\n\x80\x04 (pickled)\n'):
            handled.append(message)
    assert handled == [{"done": 5}, {"step": 6}]
    crafted = [
        pickled_planter(planted) + b"\n",
        pickle.dumps(Planter(planted)) + b"\n",
        b'{"index": 0, "refused": \n',
        b"[1, 2]\n",
        b"\xff\xfe\n",
        b"x" * 1001,  # refused before its line ends
    ]
    for data in crafted:
        with pytest.raises(Refused):
            list(Lines(limit=1000).feed(data))
    mine, theirs = socket.socketpair()
    channel = Channel(mine)
    theirs.sendall(pickle.dumps(Planter(planted)) + b"\n")
    with pytest.raises(Refused):
        channel.receive(timeout=10)
    theirs.close()
    assert not planted.exists()


# ----------------------------------------------------------------------------- children


#: challenge.py's first lines: write PAYLOAD to every pipe this process may write to besides its
#: stdout and stderr (the protocol's, however the worker numbered it), before anything else
CRAFTED_PREFIX = """\
import fcntl as _fcntl
import os as _os


def _writable_pipes():
    found = []
    for name in _os.listdir("/proc/self/fd"):
        try:
            fd = int(name)
            pipe = _os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:")
            if fd > 2 and pipe and _fcntl.fcntl(fd, _fcntl.F_GETFL) & _os.O_ACCMODE == _os.O_WRONLY:
                found.append(fd)
        except OSError:
            pass
    return found


for _fd in _writable_pipes():
    _os.write(_fd, PAYLOAD)
"""


def crafted_challenge_py(original: str, payload: str) -> str:
    """`original` with CRAFTED_PREFIX first (the fixtures hold no __future__ import)."""
    return f"PAYLOAD = {payload}\n" + CRAFTED_PREFIX + "\n" + original


def forged_result(index: int) -> bytes:
    """A well-formed answer whose spec would be written outside the specs folder."""
    result = ImportResult(
        "../../planted.yaml", "id: 1\n", None, None, Report(), {}, Equivalence([], []), []
    )
    return encode({"index": index, "imported": to_json(result)})


def test_an_import_worker_that_sends_crafted_bytes_has_its_challenge_refused(tmp_path):
    planted = tmp_path / "planted"
    payloads = {  # the pool (one worker) gives directory i the index i
        "211_pickled": repr(pickled_planter(planted)),
        "212_oversized": f'b\'{{"index": 1, "refused": "\' + b\'x\' * {MAX_ANSWER + 10}',
        "213_malformed": repr(b'{"index": 2, "refused": \n'),
        "214_forged_name": repr(forged_result(3)),
    }
    root = tmp_path / "tree" / "challenges"
    shutil.copytree(FIXTURE_TREE / "challenges" / "core", root / "core")
    source = FIXTURE_TREE / "challenges" / "easy" / "201_scale_vector"
    directories = []
    for name, payload in payloads.items():
        target = root / "easy" / name
        shutil.copytree(source, target)
        original = (target / "challenge.py").read_text()
        (target / "challenge.py").write_text(crafted_challenge_py(original, payload))
        directories.append(target)
    outcomes = list(ImportPool(jobs=1, timeout=120).run(directories))
    assert [o.imported for o in outcomes] == [False] * 4
    for outcome in outcomes:
        assert outcome.reason == "the import process sent what chgen refuses", outcome.message
    messages = [o.message for o in outcomes]
    assert "over the limit" in messages[1] and "not a JSON message" in messages[2]
    assert "'../../planted.yaml', not a plain spec name" in messages[3]
    assert not planted.exists()
    assert not (tmp_path / "planted.yaml").exists()


def test_a_judge_worker_whose_challenge_sends_crafted_bytes_is_refused(tmp_path):
    from generator.judge.cache import Cache
    from generator.judge.runner import Job, judge

    planted = tmp_path / "planted"
    tree = tmp_path / "tree"
    shutil.copytree(SCALED_ADD_TREE, tree)
    challenge = tree / "challenges" / "easy" / "9001_scaled_add"
    original = (challenge / "challenge.py").read_text()
    payload = repr(pickled_planter(planted) + b"\n")
    (challenge / "challenge.py").write_text(crafted_challenge_py(original, payload))
    solution = tmp_path / "solution.pytorch.py"
    solution.write_text("def solve(A, B, C, N, alpha):\n    C.copy_(A + alpha * B)\n")
    result = judge(Job(challenge, solution, "pytorch"), Cache(tmp_path / "cache"))
    assert result["verdict"] == "judge_error", result["message"]
    assert "the worker sent what chgen refuses (not a JSON message)" in result["message"]
    assert not planted.exists()
