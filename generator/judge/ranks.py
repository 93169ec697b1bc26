"""The ranks of a multi-GPU solution: G solution processes started together, in one sandbox.

    python -m generator.judge.ranks FD_0 ... FD_G-1 [UID]

Each FD is a Unix socket to the judge's worker; rank r is `python -m generator.judge.solver FD_r`,
told its rank and the world size by the worker's hello. All ranks share this process's sandbox
(its network namespace, where they reach each other on the loopback, and its /tmp, where their
process group's file store lies), so one bubblewrap holds the whole group. When any rank ends,
the others are killed and this process exits with that rank's status: the worker sees the group
die at once, never a rank waiting for a peer that is gone. Every rank runs with NVLink multicast
off (RANK_ENV): the judge's collectives need none, and it holds fabric resources that the host's
GPUs share.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import List

#: What every rank's environment holds, whatever the judge's held: the loopback for the process
#: group's sockets, and no NVLink multicast (NCCL's NVLS, PyTorch's symmetric memory, NVSHMEM).
RANK_ENV = {
    "GLOO_SOCKET_IFNAME": "lo",
    "NCCL_SOCKET_IFNAME": "lo",
    "NCCL_NVLS_ENABLE": "0",
    "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
    "NVSHMEM_DISABLE_NVLS": "1",
}


def main(argv: List[str]) -> int:
    fds = [a for a in argv if not a.startswith("--uid=")]
    uids = [int(a.split("=", 1)[1]) for a in argv if a.startswith("--uid=")]
    if uids:  # sandboxed, started by root: become nobody before any rank starts
        os.setgroups([])
        os.setgid(uids[0])
        os.setuid(uids[0])
    env = dict(os.environ, **RANK_ENV)
    ranks = [
        subprocess.Popen(
            [sys.executable, "-m", "generator.judge.solver", fd], pass_fds=[int(fd)], env=env
        )
        for fd in fds
    ]
    for fd in fds:
        os.close(int(fd))
    while True:
        for rank in ranks:
            code = rank.poll()
            if code is not None:
                for other in ranks:
                    if other.poll() is None:
                        other.kill()
                for other in ranks:
                    other.wait()
                if code < 0:  # a rank killed by a signal: end by the same signal
                    signal.signal(-code, signal.SIG_DFL)
                    os.kill(os.getpid(), -code)
                return code
        time.sleep(0.02)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    sys.exit(main(sys.argv[1:]))
