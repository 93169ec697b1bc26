"""Can a GPU solution run in the sandbox here? Ask the driver, the way the judge will need it.

A process set up like the judge's worker (`process.harden_worker`) allocates a few bytes with
`cuMemAlloc`, exports them with `cuIpcGetMemHandle` and starts, in the solution's sandbox and as
the solution's user, a child that opens the handle (`cuIpcOpenMemHandle`) and writes a value the
exporter then reads back. Only that round trip proves the sandbox works for CUDA (a gVisor or
container runtime may refuse what bare bubblewrap allows). Torch is not imported on either side.

    python -m generator.isolation.gpu_probe export DEVICE UID        # prints one JSON line
    python -m generator.isolation.gpu_probe open DEVICE HANDLE_HEX UID   # in the sandbox
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import List, Optional

from generator.isolation.channel import Refused, decode
from generator.isolation.solution import (
    SCRATCH,
    solution_argv,
    solution_binds,
    solution_process_env,
)
from generator.resources import PACKAGE_DIR

#: The value the sandboxed child writes (a word the fresh allocation cannot hold by chance).
MAGIC = 0x5EC0DE42
#: Seconds the whole probe may take (two CUDA initialisations and bubblewrap's start).
PROBE_SECONDS = 120.0
#: the longest answer line the exporter may print
MAX_ANSWER = 4096


def ordinal_of(device: str) -> int:
    _, _, index = device.partition(":")
    return int(index) if index.isdigit() else 0


def child_argv(device: str, handle: bytes, uid: Optional[int]) -> List[str]:
    """The sandboxed opener's command line: the solution's own sandbox, then this module."""
    command = [sys.executable, "-m", "generator.isolation.gpu_probe", "open", device, handle.hex()]
    return solution_argv(solution_binds(), {}, device) + ["--"] + command + [str(uid or "")]


def ipc_failure(device: str, uid: Optional[int]) -> Optional[str]:
    """Run the probe in a fresh exporter process; why the sandbox cannot take GPU solutions here,
    or None where it can."""
    env = dict(os.environ)  # the exporter is the judge's side
    env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(PACKAGE_DIR.parent), env.get("PYTHONPATH")])
    )
    argv = [sys.executable, "-m", "generator.isolation.gpu_probe", "export", device, str(uid or "")]
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=PROBE_SECONDS,
            env=env,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"the GPU sandbox probe did not finish: {exc}"
    return read_verdict(done.returncode, done.stdout.decode(errors="replace"), done.stderr)


def read_verdict(returncode: int, stdout: str, stderr: bytes) -> Optional[str]:
    """The exporter's answer: its JSON line, else what its exit and stderr say."""
    for line in reversed(stdout.splitlines()):
        try:
            answer = decode(line.encode(), MAX_ANSWER)
        except Refused:
            continue
        if "ok" in answer:
            return None if answer["ok"] else str(answer.get("reason") or "no reason given")[:300]
    tail = stderr.decode(errors="replace").strip().splitlines()
    return f"the GPU sandbox probe exited with status {returncode}" + (
        f": {tail[-1][:200]}" if tail else ""
    )


def export(device: str, uid: Optional[int]) -> dict:
    """The exporter's side (in a process hardened like the worker)."""
    from generator.isolation.process import harden_worker
    from generator.judge.cuda_driver import Driver

    harden_worker(device, sandboxed=True)
    driver = Driver()
    driver.use_primary_context(ordinal_of(device))
    ptr = driver.alloc(4)
    try:
        driver.fill32(ptr, 0)
        argv = child_argv(device, driver.export(ptr), uid)
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=PROBE_SECONDS / 2,
            cwd="/",
            env=solution_process_env(SCRATCH),
            check=False,
        )
        if done.returncode != 0:
            lines = done.stderr.decode(errors="replace").strip().splitlines()
            why = lines[-1][:200] if lines else f"exit status {done.returncode}"
            return {"ok": False, "reason": f"CUDA IPC in the sandbox failed: {why}"}
        seen = driver.read32(ptr)
        if seen != MAGIC:
            return {
                "ok": False,
                "reason": f"CUDA IPC in the sandbox wrote {seen:#x}, not {MAGIC:#x}",
            }
        return {"ok": True}
    finally:
        driver.free(ptr)


def open_and_write(device: str, handle_hex: str, uid: Optional[int]) -> None:
    """The sandboxed child's side: become the solution's user, open the handle, write MAGIC."""
    from generator.isolation.limits import drop_to
    from generator.judge.cuda_driver import Driver

    if uid is not None:
        drop_to(uid)
    driver = Driver()
    driver.use_primary_context(ordinal_of(device))  # CUDA_VISIBLE_DEVICES is the exporter's
    ptr = driver.open(bytes.fromhex(handle_hex))
    driver.fill32(ptr, MAGIC)
    driver.close(ptr)


def main(argv: List[str]) -> int:
    if argv[:1] not in (["export"], ["open"]) or len(argv) != {"export": 3, "open": 4}[argv[0]]:
        print("\n".join(__doc__.strip().splitlines()[-2:]), file=sys.stderr)
        return 2
    uid = int(argv[-1]) if argv[-1] else None
    try:
        if argv[0] == "open":
            open_and_write(argv[1], argv[2], uid)
            return 0
        print(json.dumps(export(argv[1], uid)))
    except Exception as exc:  # noqa: BLE001 - the probe's answer, not chgen's failure
        if argv[0] == "open":
            print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
            return 1
        print(json.dumps({"ok": False, "reason": f"{type(exc).__name__}: {exc}"}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
