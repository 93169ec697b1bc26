"""The three ways a build or a call goes wrong that are not the solution's runtime error."""

from __future__ import annotations


class BuildError(Exception):
    """A toolchain rejected the source; the message is the toolchain's own output."""


class ReturnMismatch(Exception):
    """A solve returned the wrong number, shape or kind of arrays: a wrong answer."""


class CannotJudge(RuntimeError):
    """This machine lacks what a language needs at run time, or the challenge passes something the
    language cannot take: the judge's problem, not a verdict on the solution."""
