"""challenge.py rules, read from the AST (nothing is imported or run)."""

from __future__ import annotations

import ast
from typing import Dict, Iterable, List, Optional, Set

from generator.challenge.pyfile import (
    ATTRIBUTES,
    REQUIRED_METHODS,
    ChallengePy,
    asserted_tensors,
    read_challenge_py,
    walk,
)
from generator.checks.model import assignments, call_name, functional_count
from generator.checks.report import Report
from generator.checks.source import ChallengeDir
from generator.naming import URL_NAME_RE  # noqa: E402 - one rule for specs and trees

ALLOWED_IMPORTS = {
    "ctypes",
    "typing",
    "math",
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "core.challenge_base",
}
#: a JAX reference (reference_impl_jax) may import JAX inside its body
JAX_IMPORTS = ("jax",)
PURE_BUILTINS = {"int", "float", "abs", "min", "max", "round", "len", "pow", "tuple", "range"}
NOT_GENERATORS = ("reference_impl", "reference_impl_jax", "get_solve_signature")
TENSOR_CONSTRUCTORS = {
    "tensor",
    "as_tensor",
    "zeros",
    "ones",
    "empty",
    "full",
    "rand",
    "randn",
    "randint",
    "randperm",
    "arange",
    "linspace",
    "logspace",
    "eye",
    "empty_strided",
}
RANDOM_FUNCTIONS = {"rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial"}
RANDOM_METHODS = {
    "normal_",
    "uniform_",
    "random_",
    "bernoulli_",
    "exponential_",
    "cauchy_",
    "log_normal_",
    "geometric_",
}


def pos(node: ast.AST) -> tuple:
    return getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1


def check(ch: ChallengeDir, report: Report) -> Optional[ChallengePy]:
    source = ch.file("challenge.py")
    if source is None:
        return None
    model = read_challenge_py(source.text, source.display)
    if model.module is None:
        err = model.syntax_error
        report.add(
            "P001",
            source.display,
            (err.lineno or 1) if err else 1,
            (err.offset or 1) if err else 1,
            f"syntax error: {err.msg if err else source.read_error}",
        )
        return None
    where = source.display
    _imports(model, report, where)
    _import_time(model, report, where)
    if model.cls is None or not model.base_ok:
        line, col = pos(model.cls) if model.cls else (1, 1)
        report.add("P002", where, line, col, "no `class Challenge(ChallengeBase)`")
        if model.cls is None:
            return model
    elif not _imports_base(model.module):
        line, col = pos(model.cls)
        report.add(
            "P002",
            where,
            line,
            col,
            "ChallengeBase is not imported from core.challenge_base",
            "add `from core.challenge_base import ChallengeBase`",
        )
    _attributes(model, report, where)
    if "__init__" in model.methods:
        line, col = pos(model.methods["__init__"])
        report.add("P006", where, line, col, "Challenge defines __init__")
    for name in REQUIRED_METHODS:
        if name not in model.methods:
            line, col = pos(model.cls)
            report.add("P007", where, line, col, f"method {name} is missing")
    for node, message in model.signature_issues:
        line, col = pos(node)
        report.add("P009", where, line, col, message)
    reference = model.methods.get("reference_impl")
    if reference is not None:
        _reference_params(model, reference, report, where)
        _reference_asserts(model, reference, report, where)
        _reference_devices(reference, report, where)
    jax_reference = model.methods.get("reference_impl_jax")
    if jax_reference is not None:
        _jax_reference_params(model, jax_reference, report, where)
    _device_kwargs(model, report, where)
    _case_count(model, report, where)
    _random_example(model, report, where)
    return model


# ------------------------------------------------------------------------------ module level


def _imports_base(module: ast.Module) -> bool:
    return any(
        isinstance(node, ast.ImportFrom)
        and node.module == "core.challenge_base"
        and any(alias.name == "ChallengeBase" for alias in node.names)
        for node in module.body
    )


def _imports(model: ChallengePy, report: Report, where: str) -> None:
    jax_scopes: List[ast.AST] = [
        f for name, f in model.methods.items() if name.endswith("_jax") or name == "reference_jax"
    ]
    jax_nodes = {id(n) for scope in jax_scopes for n in walk(scope)}
    for node in walk(model.module):
        names: List[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = ["." * node.level + (node.module or "")]
        for name in names:
            if name in ALLOWED_IMPORTS:
                continue
            if id(node) in jax_nodes and name.split(".")[0] in JAX_IMPORTS:
                continue
            line, col = pos(node)
            report.add("P010", where, line, col, f"import of '{name}' is not allowed")


def _pure_call(node: ast.Call) -> bool:
    """math.sqrt(64), int(...): calls that compute a constant and touch nothing else."""
    func = node.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.value.id == "math"
    return isinstance(func, ast.Name) and func.id in PURE_BUILTINS


def _static_value(node: Optional[ast.AST]) -> bool:
    """Values that only define: constants, names, attributes and arithmetic over them."""
    if node is None:
        return True
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and not _pure_call(sub):
            return False
        if isinstance(sub, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Await)):
            return False
        if isinstance(sub, (ast.Yield, ast.YieldFrom, ast.NamedExpr)):
            return False
    return True


def _defaults_static(node: ast.AST) -> bool:
    args = getattr(node, "args", None)
    if args is None:
        return True
    return all(_static_value(d) for d in list(args.defaults) + list(args.kw_defaults) if d)


def _import_time(model: ChallengePy, report: Report, where: str) -> None:
    for i, node in enumerate(model.module.body):
        if _definition(node, i == 0):
            continue
        if (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Compare)
            and ast.unparse(node.test).replace("'", '"') == '__name__ == "__main__"'
        ):
            continue
        line, col = pos(node)
        report.add(
            "P011",
            where,
            line,
            col,
            f"module-level `{_short(node)}` runs when challenge.py is imported",
        )
    for i, node in enumerate(model.cls.body if model.cls else []):
        if isinstance(node, ast.Pass) or _definition(node, i == 0):
            continue
        line, col = pos(node)
        report.add("P011", where, line, col, f"class-level `{_short(node)}` runs at import time")


def _definition(node: ast.stmt, first: bool) -> bool:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return True
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return _defaults_static(node)
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return isinstance(node.value.value, str)  # a docstring or a bare string
    if isinstance(node, ast.Assign):
        return _static_value(node.value)
    if isinstance(node, ast.AnnAssign):
        return _static_value(node.value)
    return False


def _short(node: ast.AST) -> str:
    text = ast.unparse(node).split("\n")[0]
    return text if len(text) <= 60 else text[:57] + "..."


# ------------------------------------------------------------------------------ class body


def _attributes(model: ChallengePy, report: Report, where: str) -> None:
    cls = model.cls
    for name in ATTRIBUTES:
        node = model.attributes.get(name)
        if node is None:
            line, col = pos(cls)
            report.add("P003", where, line, col, f"class attribute `{name}` is missing")
            continue
        value = model.attribute_value(name)
        literal = value.value if isinstance(value, ast.Constant) else None
        if isinstance(value, ast.UnaryOp) and isinstance(value.operand, ast.Constant):
            literal = -value.operand.value if isinstance(value.op, ast.USub) else None
        problem = None
        if name == "name":
            if not isinstance(literal, str) or not literal.strip():
                problem = "`name` must be a non-empty string"
            elif not URL_NAME_RE.match(literal):
                line, col = pos(value)
                report.add("P005", where, line, col, f"name {literal!r} is not URL-friendly")
        elif name in ("atol", "rtol"):
            if isinstance(literal, bool) or not isinstance(literal, (int, float)) or literal < 0:
                problem = f"`{name}` must be a number >= 0"
        elif name == "num_gpus":
            if isinstance(literal, bool) or not isinstance(literal, int) or literal < 1:
                problem = "`num_gpus` must be an integer >= 1"
        elif name == "access_tier" and literal not in ("free", "premium"):
            problem = "`access_tier` must be 'free' or 'premium'"
        if problem:
            line, col = pos(node)
            report.add("P003", where, line, col, problem)
    present = [(model.attributes[n].lineno, n) for n in ATTRIBUTES if n in model.attributes]
    order = [n for _, n in sorted(present)]
    expected = [n for n in ATTRIBUTES if n in model.attributes]
    if order != expected:
        first = next(n for n, e in zip(order, expected) if n != e)
        line, col = pos(model.attributes[first])
        report.add("P004", where, line, col, f"attributes are ordered {', '.join(order)}")


def _reference_params(
    model: ChallengePy, reference: ast.FunctionDef, report: Report, where: str
) -> None:
    if model.signature is None:
        return
    args = reference.args
    names = [a.arg for a in args.posonlyargs + args.args][1:] + [a.arg for a in args.kwonlyargs]
    expected = [e.name for e in model.signature]
    if args.vararg or args.kwarg or names != expected:
        line, col = pos(reference)
        shown = names + (["*" + args.vararg.arg] if args.vararg else [])
        shown += ["**" + args.kwarg.arg] if args.kwarg else []
        report.add(
            "P008",
            where,
            line,
            col,
            f"reference_impl takes ({', '.join(shown)}); the signature is ({', '.join(expected)})",
        )


def _jax_reference_params(
    model: ChallengePy, reference: ast.FunctionDef, report: Report, where: str
) -> None:
    """The runner calls reference_impl_jax with the in/inout tensors and the scalars."""
    if model.signature is None:
        return
    args = reference.args
    names = [a.arg for a in args.posonlyargs + args.args][1:] + [a.arg for a in args.kwonlyargs]
    expected = [e.name for e in model.signature if e.direction != "out"]
    if args.vararg or args.kwarg or names != expected:
        line, col = pos(reference)
        report.add(
            "P019",
            where,
            line,
            col,
            f"reference_impl_jax takes ({', '.join(names)}); the in/inout tensors and scalars "
            f"are ({', '.join(expected)})",
        )


def _reference_asserts(
    model: ChallengePy, reference: ast.FunctionDef, report: Report, where: str
) -> None:
    shape, dtype = asserted_tensors(reference)
    params = {a.arg for a in reference.args.args}
    line, col = pos(reference)
    for entry in model.tensors:
        if entry.name not in params:
            continue
        if entry.name not in shape:
            report.add(
                "P012",
                where,
                line,
                col,
                f"reference_impl never asserts the shape of '{entry.name}'",
            )
        if entry.name not in dtype:
            report.add(
                "P013",
                where,
                line,
                col,
                f"reference_impl never asserts the dtype of '{entry.name}'",
            )


def _reference_devices(reference: ast.FunctionDef, report: Report, where: str) -> None:
    for node in walk(reference):
        if isinstance(node, ast.Assert):
            if any(isinstance(s, ast.Attribute) and s.attr == "device" for s in ast.walk(node)):
                line, col = pos(node)
                report.add("P014", where, line, col, f"`{_short(node)}` checks devices")
            continue
        problem = None
        if isinstance(node, ast.Attribute):
            if node.attr in ("cuda", "cudnn") and ast.unparse(node) in (
                "torch.cuda",
                "torch.backends.cudnn",
            ):
                problem = f"`{ast.unparse(node)}` is CUDA-only"
            elif node.attr == "is_cuda":
                problem = "`.is_cuda` checks the device type"
            elif node.attr == "type" and isinstance(node.value, ast.Attribute):
                if node.value.attr == "device":
                    problem = "`.device.type` checks the device type"
            elif node.attr in ("sdp_kernel", "flash_attn"):
                problem = f"`{node.attr}` is a CUDA-only kernel"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "cuda":
                problem = "`.cuda()` moves to a CUDA device"
        if problem:
            line, col = pos(node)
            report.add("P015", where, line, col, problem)


# ------------------------------------------------------------------------------ generators


def _generator_functions(model: ChallengePy) -> Iterable[ast.FunctionDef]:
    for name, method in model.methods.items():
        if name not in NOT_GENERATORS:
            yield method
    yield from model.functions.values()


def _device_ok(value: ast.expr, env: Dict[str, ast.expr], params: Set[str]) -> bool:
    text = ast.unparse(value)
    if text == "self.device":
        return True
    if isinstance(value, ast.Name):
        if value.id in params:
            return True
        bound = env.get(value.id)
        return bound is not None and _device_ok(bound, {}, set())
    if isinstance(value, ast.Attribute) and value.attr == "device":
        # the device of another tensor, itself created on self.device
        return isinstance(value.value, ast.Name) and value.value.id != "torch"
    return False


def _moved_to_device(nodes: List[ast.AST]) -> Set[int]:
    """The calls of a chain that ends in `.to(self.device)`, e.g. a draw on the CPU generator
    (`torch.empty(...).normal_(0.0, 1.0, generator=g).to(self.device)`): made on the CPU, they
    reach the test on the device."""
    moved: Set[int] = set()
    for node in nodes:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        targets = list(node.args[:1]) + [k.value for k in node.keywords if k.arg == "device"]
        if node.func.attr != "to" or not any(ast.unparse(t) == "self.device" for t in targets):
            continue
        receiver = node.func.value
        while isinstance(receiver, ast.Call):
            moved.add(id(receiver))
            if not isinstance(receiver.func, ast.Attribute):
                break
            receiver = receiver.func.value
    return moved


def _device_kwargs(model: ChallengePy, report: Report, where: str) -> None:
    for function in _generator_functions(model):
        env = assignments(function)
        nodes = walk(function)
        params = {a.arg for a in nodes if isinstance(a, ast.arg)} - {"self"}
        # torch.randint(0, 10, (1,)).item() draws a Python number; no tensor reaches a test
        to_python = {
            id(n.value)
            for n in nodes
            if isinstance(n, ast.Attribute) and n.attr in ("item", "tolist")
        }
        to_python |= _moved_to_device(nodes)
        # a draw whose result is dropped (`torch.randint(0, 16, (1,))` as a statement) only
        # advances the random stream: no tensor of it reaches a test
        to_python |= {id(n.value) for n in nodes if isinstance(n, ast.Expr)}
        for node in nodes:
            if not isinstance(node, ast.Call) or id(node) in to_python:
                continue
            name = call_name(node) or ""
            if name.startswith(".") and name[1:] in ("cuda",):
                line, col = pos(node)
                report.add("P016", where, line, col, "`.cuda()` hardcodes the device")
                continue
            if not name.startswith("torch.") or name.count(".") != 1:
                continue
            short = name.split(".", 1)[1]
            if short not in TENSOR_CONSTRUCTORS and not (
                short == "normal" and any(k.arg == "size" for k in node.keywords)
            ):
                continue
            device = next((k.value for k in node.keywords if k.arg == "device"), None)
            line, col = pos(node)
            if device is None:
                report.add(
                    "P016", where, line, col, f"`{name}(...)` in {function.name} has no device="
                )
            elif not _device_ok(device, env, params):
                report.add(
                    "P016",
                    where,
                    line,
                    col,
                    f"`{name}(...)` in {function.name} uses device={ast.unparse(device)}",
                )


def _case_count(model: ChallengePy, report: Report, where: str) -> None:
    count = functional_count(model)
    if count is None:
        return
    report_count(model, report, where, count)


def report_count(model: ChallengePy, report: Report, where: str, count: int) -> None:
    low, high = report.options.cases
    if low <= count <= high:
        return
    method = model.methods["generate_functional_test"]
    line, col = pos(method)
    report.add(
        "P017",
        where,
        line,
        col,
        f"generate_functional_test returns {count} cases; expected {low} to {high}",
    )


def _seeded_generator(call: ast.Call, env: Dict[str, ast.expr]) -> bool:
    """`generator=g` where `g = torch.Generator().manual_seed(S)` (S a literal)."""
    given = next((k.value for k in call.keywords if k.arg == "generator"), None)
    if isinstance(given, ast.Name):
        given = env.get(given.id)
    return (
        isinstance(given, ast.Call)
        and isinstance(given.func, ast.Attribute)
        and given.func.attr == "manual_seed"
        and ast.unparse(given.func.value) == "torch.Generator()"
        and len(given.args) == 1
        and isinstance(given.args[0], ast.Constant)
    )


def _draws(name: str) -> bool:
    short = name.split(".")[-1]
    return (name.startswith("torch.") and short in RANDOM_FUNCTIONS) or (
        (name.startswith(".") or "." in name) and short in RANDOM_METHODS
    )


def _random_example(model: ChallengePy, report: Report, where: str) -> None:
    method = model.methods.get("generate_example_test")
    if method is None:
        return
    env = assignments(method)
    for node in walk(method):
        name = call_name(node)
        if name is None:
            continue
        if _seeded_generator(node, env):
            continue  # drawn on a seeded generator of its own: the same values on every run
        line, col = pos(node)
        if _draws(name):
            report.add("P018", where, line, col, f"`{name.lstrip('.')}(...)` draws random data")
            continue
        helper = _own_method(name, model)
        drawn = helper and _draw_on_every_call(model, helper, {"generate_example_test"})
        if drawn:
            report.add(
                "P018",
                where,
                line,
                col,
                f"`{name}(...)` draws random data (`{drawn[1].lstrip('.')}(...)` in {drawn[0]})",
            )


def _own_method(name: str, model: ChallengePy) -> Optional[str]:
    """`helper` for a call `self.helper(...)` of a method the class defines."""
    if name.startswith("self.") and name[5:] in model.methods:
        return name[5:]
    return None


#: statements whose expressions run whenever the statements before them have run
_STRAIGHT = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Return)
#: expressions whose parts may not run (or run once per element, perhaps never)
_MAYBE = (ast.IfExp, ast.Lambda, ast.BoolOp, ast.ListComp, ast.SetComp, ast.DictComp,
          ast.GeneratorExp)  # fmt: skip


def _draw_on_every_call(model: ChallengePy, method: str, seen: Set[str]) -> Optional[tuple]:
    """(method, call) of the first random draw that calling `method` makes whatever its
    arguments: in its straight-line code (no if, loop, try or nested function), or in a method
    of the class it calls there. A draw that depends on the arguments (behind an if) is not
    counted: the example may pass literal values that skip it."""
    seen = seen | {method}
    function = model.methods[method]
    env = assignments(function)
    body = list(function.body)
    while body:
        statement = body.pop(0)
        if isinstance(statement, ast.With):
            body[:0] = statement.body
        if not isinstance(statement, _STRAIGHT):
            continue
        for node in _unconditional(statement):
            name = call_name(node)
            if name is None or _seeded_generator(node, env):
                continue
            if _draws(name):
                return method, name
            helper = _own_method(name, model)
            if helper and helper not in seen:
                found = _draw_on_every_call(model, helper, seen)
                if found:
                    return found
    return None


def _unconditional(node: ast.AST) -> Iterable[ast.AST]:
    """`node` and the parts of it that run whenever it runs."""
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, _MAYBE):
            yield from _unconditional(child)
