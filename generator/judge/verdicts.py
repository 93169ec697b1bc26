"""Verdict names and what each one means; the single place reports and docs read them from."""

from __future__ import annotations

from typing import Any, Dict, Optional

PASS = "pass"
WRONG_ANSWER = "wrong_answer"
BUILD_ERROR = "build_error"
RUNTIME_ERROR = "runtime_error"
CRASH = "crash"
TIMEOUT = "timeout"
OUT_OF_BOUNDS = "out_of_bounds"
INPUT_MODIFIED = "input_modified"
MEMORY_LIMIT = "memory_limit"
#: Not verdicts on a solution: it compiled but this machine cannot run it (no GPU), the judge
#: itself could not do its work (missing toolchain, broken challenge tree), or the run's deadline
#: came first.
BUILT = "built"
JUDGE_ERROR = "judge_error"
NOT_RUN = "not_run"
#: Not a verdict on a solution: a mutant of a multi-GPU challenge that survived every case on
#: the fewer ranks of --ranks (on one rank every collective is the identity).
NOT_PROVABLE = "not_provable"

MEANING: Dict[str, str] = {
    PASS: "every case ran and matched the reference within the challenge's tolerance",
    WRONG_ANSWER: "an output differs from the reference (or was not written, or has a wrong shape)",
    BUILD_ERROR: "the toolchain rejected the source; the message is the compiler's own",
    RUNTIME_ERROR: "solve raised, or the GPU reported an error (e.g. an illegal address)",
    CRASH: "the worker process died (signal, or exit) before reporting a verdict",
    TIMEOUT: "a case (or the start-up) ran past its time limit; the worker was killed",
    OUT_OF_BOUNDS: "a write landed in a canary band just before or after a tensor",
    INPUT_MODIFIED: "an input tensor differs after the call",
    MEMORY_LIMIT: "the solution's processes held more memory than the limit; they were killed",
    BUILT: "compiled; not run because this device cannot run the language",
    JUDGE_ERROR: "the judge could not judge (missing toolchain, bad challenge tree)",
    NOT_RUN: "not run: the run's deadline had passed",
    NOT_PROVABLE: "a mutant that survived every case on fewer ranks than its cases ask for "
    "(--ranks): a mistake in a collective cannot show there",
}

#: What a starter may end in: it must build and run yet not solve the challenge.
STARTER_OK = (WRONG_ANSWER, BUILT)
#: What a mutant (a known mistake) must end in: some functional case caught it.
CAUGHT = (WRONG_ANSWER, RUNTIME_ERROR, OUT_OF_BOUNDS, INPUT_MODIFIED)


def expectation_met(expect: str, verdict: str, message: str = "") -> bool:
    """`expect` is `pass`, `not_pass` (starters), `baseline`, `caught` (mutants), or verdict
    names joined by `|`."""
    if "|" in expect:
        return any(expectation_met(one, verdict, message) for one in expect.split("|"))
    if expect == "pass":
        return verdict in (PASS, BUILT)
    if expect == "not_pass":
        return verdict in STARTER_OK
    if expect == "caught":
        return verdict in CAUGHT
    if expect == "baseline":
        return verdict in (PASS, BUILT) or is_unavailable(verdict, message)
    return verdict == expect


def is_unavailable(verdict: str, message: str) -> bool:
    """A baseline whose library is not installed here is reported, not failed."""
    return verdict == RUNTIME_ERROR and "No module named" in message


def rank_count(count: int) -> str:
    """ "1 rank", "2 ranks": how the reports of a --ranks run name the ranks."""
    return f"{count} rank" if count == 1 else f"{count} ranks"


def rank_choices(counts: Any) -> str:
    """ "2 or 4": the ranks a --ranks run's cases asked for, as its reports name them."""
    return " or ".join(str(n) for n in sorted(counts))


def exit_code(verdict: Optional[str]) -> int:
    """`chgen judge` exits 0 only when every case passed."""
    return 0 if verdict == PASS else 1
