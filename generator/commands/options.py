"""Options declared once: a request's fields carry their typer metadata, and the command's
signature (what typer parses) is built from the request type."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import typing
from typing import Any, Callable, Type, TypeVar

import typer

#: the dataclass field metadata key holding the field's typer.Option / typer.Argument
PARAMETER = "typer"

Request = TypeVar("Request")


def option(default: Any, *flags: str, **settings: Any) -> Any:
    """A request field parsed as `typer.Option(default, *flags, **settings)`."""
    return parsed_as(default, typer.Option(default, *flags, **settings))


def argument(default: Any, **settings: Any) -> Any:
    """A request field parsed as `typer.Argument(default, **settings)`."""
    return parsed_as(default, typer.Argument(default, **settings))


def parsed_as(default: Any, parameter: Any) -> Any:
    """A request field with an already built typer parameter (one shared by two commands)."""
    metadata = {PARAMETER: parameter}
    if default is ...:
        return dataclasses.field(metadata=metadata)
    if isinstance(default, (list, dict)):
        return dataclasses.field(default_factory=lambda: copy.copy(default), metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def request(cls: Type[Request]) -> Type[Request]:
    """A frozen, keyword-only dataclass: fields in the order `--help` lists them."""
    return dataclasses.dataclass(frozen=True, kw_only=True)(cls)


def signature_of(request_type: type) -> inspect.Signature:
    """The typer signature of a request type: one parameter per field that has typer metadata."""
    hints = typing.get_type_hints(request_type)
    parameters = [
        inspect.Parameter(
            field.name,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=field.metadata[PARAMETER],
            annotation=hints[field.name],
        )
        for field in dataclasses.fields(request_type)
        if PARAMETER in field.metadata
    ]
    return inspect.Signature(parameters, return_annotation=None)


def takes(request_type: type) -> Callable[[Callable], Callable]:
    """A CLI handler of one request: typer parses the request's fields, the handler gets the
    request built from them."""

    def wrap(handler: Callable) -> Callable:
        signature = signature_of(request_type)

        def command(**values: Any) -> Any:
            return handler(request_type(**values))

        for name in ("__name__", "__qualname__", "__doc__", "__module__"):
            setattr(command, name, getattr(handler, name))
        command.__signature__ = signature
        command.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
        command.__annotations__["return"] = None
        return command

    return wrap
