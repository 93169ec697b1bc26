"""The judge: one job's modes (functional, perf, mutant, oracle, compile) against one challenge.

It runs in the worker's process (worker.py is the entry point and the report to the parent): it
generates the cases, runs the reference, and hands the solution's process (`solver.py`, sandboxed
where possible) only the guarded buffers, shared; it checks bands, inputs and outputs on those
buffers itself and never loads the solution. A multi-GPU challenge (num_gpus > 1) gets a
`distributed.Ranks` part, which spreads each case over its ranks: where the two differ (loading,
a case's buffers, the call, the check, timing) the Judge asks that part.
"""

from __future__ import annotations

import functools
import time
import traceback
from pathlib import Path
from typing import Any, Dict, List, Optional

from generator.judge import verdicts as V
from generator.judge.remote import Stop


def _describe(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    return first[:500]


def _traceback(exc: BaseException) -> str:
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def _gpu_error(exc: BaseException) -> bool:
    text = str(exc)
    return "CUDA error" in text or "illegal memory access" in text or "CUDA_ERROR" in text


class Judge:
    """Runs the job's modes; every non-pass outcome is raised as Stop."""

    def __init__(self, job: Dict[str, Any], result: Any):
        import torch

        from generator.judge.challenge import ChallengeError, load_challenge
        from generator.judge.signature import SignatureError, params_from_signature
        from generator.languages import BY_KEY

        self.torch = torch
        self.job = job
        self.result = result
        self.device = job["device"]
        self.seed = int(job.get("seed", 0))
        self.timeout = float(job.get("timeout", 60))
        self.band = int(job.get("band_bytes", 64 * 1024))
        self.language = BY_KEY[job["language"]]
        if self.device.startswith("cuda") and not torch.cuda.is_available():
            raise Stop(V.JUDGE_ERROR, "no CUDA device is visible to the worker")
        if self.device == "cpu":
            # Several workers share the cores; intra-op threads only add wake-up latency here.
            torch.set_num_threads(int(job.get("cpu_threads") or 1))
        try:
            self.challenge = load_challenge(Path(job["challenge_dir"]), self.device)
            self.params = params_from_signature(self.challenge.get_solve_signature())
        except (ChallengeError, SignatureError) as exc:
            raise Stop(V.JUDGE_ERROR, str(exc)) from None
        except Exception as exc:
            raise Stop(V.JUDGE_ERROR, f"challenge: {_describe(exc)}", _traceback(exc)) from None
        self.atol = float(getattr(self.challenge, "atol", 0.0))
        self.rtol = float(getattr(self.challenge, "rtol", 0.0))
        self.oracle = None
        if job.get("oracle"):
            from generator.judge.oracle import Oracle

            try:
                self.oracle = Oracle(job["oracle"], self.params, self.device)
            except Exception as exc:
                raise Stop(V.JUDGE_ERROR, f"oracle: {_describe(exc)}", _traceback(exc)) from None
        self.floor: Optional[Dict[str, Any]] = job.get("accuracy_floor")
        self.solution: Any = None
        self.arena: Any = None
        #: round trips of an empty timed call (by isolation), measured before the solution loads
        self.calibration: Dict[bool, float] = {}
        result.data["env"] = self._env()
        #: for num_gpus > 1, the part that spreads each case over its ranks (else None)
        self.ranks = self._ranks()

    def _ranks(self) -> Any:
        from generator.judge.distributed import RankLayout, Ranks

        layout = RankLayout.of(self.challenge)
        return Ranks(self, layout) if layout is not None else None

    def _env(self) -> Dict[str, Any]:
        torch = self.torch
        env = {"torch": torch.__version__, "device": self.device}
        if self.device.startswith("cuda"):
            env["device_name"] = torch.cuda.get_device_name()
            env["capability"] = "%d.%d" % torch.cuda.get_device_capability()
            env["cuda_runtime"] = torch.version.cuda
        return env

    def sync(self) -> None:
        if self.device.startswith("cuda"):
            self.torch.cuda.synchronize()

    # ---------------------------------------------------------------------------- loading
    def load(self) -> Any:
        """Start the solution's process and load the solution there (never here)."""
        from generator.isolation.probe import Mode
        from generator.judge.remote import SolutionProcess

        self._check_arch()
        if self.ranks is not None:
            self.solution = self.ranks.load()
            return self.solution
        mode = Mode(**self.job["sandbox"])
        self.result.data["env"]["sandbox"] = mode.describe()
        self.result.data["env"]["memory_limit"] = int(self.job["memory_limit"])
        try:
            self.solution = SolutionProcess(self.job, self.params, mode)
        except Stop as stop:
            if stop.verdict == V.TIMEOUT:
                raise
            if stop.verdict == V.CRASH:
                raise Stop(V.JUDGE_ERROR, f"the solution's process did not start: {stop.message}",
                           stop.detail) from None  # fmt: skip
            raise
        limit = float(self.job.get("startup_timeout", 300))
        if "perf" in self.job["modes"]:
            from generator.judge.rounds import calibrate
            from generator.judge.timing import Flush, PerfOptions

            # before the solution's code runs in that process, so that it cannot slow these;
            # each after the worker's own flush, as each timed call is
            flush = None
            if self.device.startswith("cuda"):
                options = PerfOptions.from_json(self.job.get("perf_options"))
                flush = Flush(self.device, options.flush_bytes)

            def before() -> None:
                flush()
                self.sync()

            self.calibration = calibrate(self.solution, limit, before if flush else None)
            if flush is not None:
                flush.release()
        self.solution.request({"op": "load"}, limit, "load")
        return self.solution

    def _check_arch(self) -> None:
        target = self.job.get("target")
        if not target or not self.language.native:
            return
        if not self.device.startswith("cuda"):
            return
        digits = "".join(ch for ch in target.split("_")[-1] if ch.isdigit())
        built = (int(digits[:-1]), int(digits[-1])) if len(digits) >= 2 else None
        have = self.torch.cuda.get_device_capability()
        if built and built > have:
            raise Stop(V.JUDGE_ERROR, f"built for {target}, but this GPU is sm_{have[0]}{have[1]}")

    # ---------------------------------------------------------------------------- one case
    def reference(self, values: Dict[str, Any]) -> Dict[str, Any]:
        torch = self.torch
        copies = {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in values.items()}
        try:
            self.challenge.reference_impl(**copies)
        except Exception as exc:
            raise Stop(V.JUDGE_ERROR, f"reference_impl: {_describe(exc)}", _traceback(exc))
        return {p.name: copies[p.name] for p in self.params if p.is_tensor and p.direction != "in"}

    def expected_in_place(self, values: Dict[str, Any]) -> Dict[str, Any]:
        """The reference run on `values` themselves (no copies: a set the judge made for one
        timed call); their outputs become the expected ones."""
        try:
            self.challenge.reference_impl(**values)
        except Exception as exc:
            raise Stop(V.JUDGE_ERROR, f"reference_impl: {_describe(exc)}", _traceback(exc))
        return {p.name: values[p.name] for p in self.params if p.is_tensor and p.direction != "in"}

    @staticmethod
    def _where(label: str) -> str:
        return f"case {label}"

    def guarded(self, values: Dict[str, Any], seed: int) -> Any:
        """The case's tensors in fresh shared buffers with canary bands; the previous case's
        buffers are released (by the solution's process first)."""
        from generator.judge.guard import GuardedArgs
        from generator.judge.shared import Arena

        self.release()
        self.arena = Arena(self.device)
        return GuardedArgs(self.params, values, seed, self.band, self.arena)

    def guarded_case(self, case: Any, seed: int) -> Any:
        """A case's guarded arguments (a multi-GPU judge spreads them over its ranks)."""
        if self.ranks is not None:
            return self.ranks.guarded_case(case, seed)
        return self.guarded(case.values, seed)

    def release(self) -> None:
        if self.ranks is not None:
            self.ranks.release()
            return
        arena = getattr(self, "arena", None)
        if arena is not None:
            if getattr(self, "solution", None) is not None:
                self.solution.request({"op": "release"}, self.timeout, "release")
            arena.close()
            self.arena = None

    def call(
        self, solution: Any, guarded: Any, where: str, extra: Optional[Dict[str, Any]] = None
    ) -> None:
        """One call in the solution's process; it only says done (or what went wrong)."""
        if self.ranks is not None:
            self.ranks.call(guarded, where, extra)
            return
        try:
            request = {"op": "case", **guarded.describe(), **(extra or {})}
        except TypeError as exc:
            raise Stop(V.JUDGE_ERROR, str(exc)) from None
        solution.request(request, self.timeout, where, self.arena.fds)

    def check(
        self,
        guarded: Any,
        pristine: Dict[str, Any],
        expected: Dict[str, Any],
        outputs: Optional[Dict[str, Any]] = None,
    ) -> Any:
        """Bands, then inputs, then outputs (the guarded ones, or copies of them taken earlier);
        returns the output report when all is well (on every rank its own share, for a
        multi-GPU judge)."""
        if self.ranks is not None:
            return self.ranks.check(guarded, expected)
        return self.check_one(guarded, pristine, expected, outputs)

    def check_one(
        self,
        guarded: Any,
        pristine: Dict[str, Any],
        expected: Dict[str, Any],
        outputs: Optional[Dict[str, Any]] = None,
    ) -> Any:
        """The check of one process's buffers (`guarded`: one GuardedArgs)."""
        from generator.judge.compare import OutputReport, compare_output, first_modified

        try:
            violation = guarded.first_violation()
            if violation is not None:
                raise Stop(V.OUT_OF_BOUNDS, violation.describe())
            for p in self.params:
                if p.is_tensor and p.direction == "in":
                    changed = first_modified(p.name, guarded.values[p.name], pristine[p.name])
                    if changed:
                        raise Stop(V.INPUT_MODIFIED, changed)
            report = OutputReport()
            for name, want in expected.items():
                got = (outputs or guarded.values)[name]
                report.comparisons.append(compare_output(name, got, want, self.atol, self.rtol))
        except Stop:
            raise
        except BaseException as exc:  # noqa: B036 - a GPU fault surfaces at the first read-back
            prefix = "GPU error: " if _gpu_error(exc) else ""
            raise Stop(V.RUNTIME_ERROR, prefix + _describe(exc), _traceback(exc)) from None
        failure = report.first_failure()
        if failure is not None:
            raise Stop(
                V.WRONG_ANSWER, failure.describe(), report_detail(report), errors=report.errors()
            )
        return report

    def run_case(
        self,
        solution: Any,
        case: Any,
        seed: Optional[int] = None,
        into: Optional[List[Dict[str, Any]]] = None,
    ) -> tuple:
        """Judge one call; returns (report entry, guarded arguments, expected outputs).

        The entry goes to the report's cases, or to `into` (the runs of other seeds)."""
        seed = self.seed if seed is None else seed
        label = case.name if seed == self.seed else f"{case.name} (seed {seed})"
        self.result.progress("case", self.timeout, label)
        started = time.perf_counter()
        entry: Dict[str, Any] = {"name": case.name, "elements": case.elements()}
        (self.result.data["cases"] if into is None else into).append(entry)
        try:
            expected = self.reference(case.values)
            guarded = self.guarded_case(case, seed)
            self.sync()
            self.call(solution, guarded, self._where(label))
            report = self.check(guarded, case.values, expected)
        except Stop as stop:
            entry.update({"verdict": stop.verdict, "message": stop.message, **stop.errors})
            entry["seconds"] = round(time.perf_counter() - started, 4)
            raise
        entry.update(
            {
                "verdict": V.PASS,
                **report.errors(),
                "seconds": round(time.perf_counter() - started, 4),
            }
        )
        return entry, guarded, expected

    # ------------------------------------------------------------------- spec-level proofs
    def oracle_deviation(
        self, entry: Dict[str, Any], case: Any, expected: Dict[str, Any]
    ) -> Optional[Dict[str, Any]]:
        """The float64 oracle of a case; the reference's error/tolerance against it goes into
        the entry (the reference must be far more accurate than the tolerance it sets)."""
        from generator.judge.oracle import encode, tolerance_ratio

        if self.oracle is None:
            return None
        try:
            truth = self.oracle.outputs(case.values)
        except Exception as exc:
            message = f"oracle on case {case.name}: {_describe(exc)}"
            raise Stop(V.JUDGE_ERROR, message, _traceback(exc)) from None
        unknown = sorted(set(truth) - set(expected))
        if unknown:
            raise Stop(V.JUDGE_ERROR, f"the oracle returned {unknown}, which are not outputs")
        deviations = {
            name: tolerance_ratio(expected[name], value, self.atol, self.rtol)
            for name, value in truth.items()
        }
        entry["oracle_dev"] = encode(max(deviations.values(), default=0.0))
        entry["oracle_devs"] = {name: encode(value) for name, value in deviations.items()}
        return truth

    def accuracy(
        self, entry: Dict[str, Any], case: Any, guarded: Any, expected: Dict[str, Any]
    ) -> None:
        """Oracle deviation, and the accuracy floor's three mean relative errors (reference,
        the spec's baseline expression on this device, this solution) against float64."""
        from generator.judge.oracle import encode, evaluate_expression, mean_relative_error

        truth = self.oracle_deviation(entry, case, expected)
        floor = self.floor
        if truth is None or not floor or floor["output"] not in truth:
            return
        name = floor["output"]
        exact = truth[name]
        try:
            baseline = evaluate_expression(floor["baseline"], case.values)
        except Exception as exc:
            message = f"accuracy floor baseline on case {case.name}: {_describe(exc)}"
            raise Stop(V.JUDGE_ERROR, message, _traceback(exc)) from None
        entry["floor"] = {
            "elements": exact.numel(),
            "reference": encode(mean_relative_error(expected[name], exact)),
            "baseline": encode(mean_relative_error(baseline, exact)),
            "solution": encode(mean_relative_error(guarded.values[name], exact)),
        }

    def reference_vs_oracle(self) -> str:
        """Every functional case: the reference's error/tolerance against the float64 oracle."""
        worst = 0.0
        for case in self.cases(self.seed)[1:]:
            self.result.progress("case", self.timeout, case.name)
            started = time.perf_counter()
            entry: Dict[str, Any] = {"name": case.name, "elements": case.elements()}
            self.result.data["cases"].append(entry)
            self.oracle_deviation(entry, case, self.reference(case.values))
            worst = max(worst, float(entry["oracle_dev"]))
            entry.update({"verdict": V.PASS, "seconds": round(time.perf_counter() - started, 4)})
        return f"largest deviation {worst:.3g} x the tolerance"

    def mutant(self, solution: Any) -> tuple:
        """A known mistake: every functional case runs (none ends the job), each recording its
        error/tolerance and whether it catches the mistake; returns (verdict, message)."""
        cases = self.cases(self.seed)[1:]  # the judge's leading example is not a functional case
        caught = [case.name for case in cases if self.mutant_case(solution, case)["caught"]]
        if caught:
            return (
                V.WRONG_ANSWER,
                f"caught by {len(caught)} of {len(cases)} functional case(s): {', '.join(caught)}",
            )
        if self.ranks is not None:
            return self.ranks.survived(f"survived all {len(cases)} functional case(s)")
        return V.PASS, f"survived all {len(cases)} functional case(s)"

    def mutant_case(
        self,
        solution: Any,
        case: Any,
        expected: Optional[Dict[str, Any]] = None,
        into: Optional[List[Dict[str, Any]]] = None,
    ) -> Dict[str, Any]:
        """A case catches a mutant when an output's error/tolerance exceeds 1, the call raises,
        an output is left at its pre-fill, or the guards or inputs were disturbed. `expected`:
        the reference's outputs when already computed; `into`: where the entry goes (default:
        the report's cases)."""
        from generator.judge.oracle import encode, left_prefill, tolerance_ratio

        self.result.progress("case", self.timeout, case.name)
        started = time.perf_counter()
        entry: Dict[str, Any] = {"name": case.name, "elements": case.elements()}
        (self.result.data["cases"] if into is None else into).append(entry)
        expected = self.reference(case.values) if expected is None else expected
        guarded = self.guarded_case(case, self.seed)
        self.sync()
        try:
            self.call(solution, guarded, self._where(case.name))
        except Stop as stop:
            if stop.verdict != V.RUNTIME_ERROR:
                raise
            entry.update({"verdict": stop.verdict, "message": stop.message, "caught": True})
            entry.update({"ratio": None, "reasons": ["raised"]})
            entry["seconds"] = round(time.perf_counter() - started, 4)
            if stop.message.startswith("GPU error"):
                raise  # the CUDA context is lost: no further case can run
            return entry
        try:
            self.check(guarded, case.values, expected)
            verdict, message = V.PASS, ""
        except Stop as stop:
            if stop.verdict == V.RUNTIME_ERROR:
                raise
            verdict, message = stop.verdict, stop.message
        ratios = {
            name: tolerance_ratio(guarded.values[name], want, self.atol, self.rtol)
            for name, want in expected.items()
        }
        left = sum(
            left_prefill(guarded.values[name], case.values[name], want)
            for name, want in expected.items()
        )
        ratio = max(ratios.values(), default=0.0)
        reasons = []
        if ratio > 1:
            reasons.append(f"error/tolerance {ratio:.3g}")
        if left:
            reasons.append(f"left the pre-fill in {left} element(s)")
        if verdict in (V.OUT_OF_BOUNDS, V.INPUT_MODIFIED):
            reasons.append(verdict)
        caught = bool(reasons) or verdict != V.PASS
        entry.update(
            {
                "verdict": V.WRONG_ANSWER if caught and verdict == V.PASS else verdict,
                "message": message,
                "caught": caught,
                "ratio": encode(ratio),
                "ratios": {name: encode(value) for name, value in ratios.items()},
                "left_prefill": left,
                "reasons": reasons,
                "seconds": round(time.perf_counter() - started, 4),
            }
        )
        return entry

    # ---------------------------------------------------------------------------- modes
    def cases(self, seed: int) -> List[Any]:
        from generator.judge.cases import example_and_functional

        try:
            return example_and_functional(
                self.challenge, self.params, seed, self.job.get("case_names"), self.written_names
            )
        except Exception as exc:
            raise Stop(V.JUDGE_ERROR, f"generating cases: {_describe(exc)}", _traceback(exc))

    @functools.cached_property
    def written_names(self) -> Optional[List[str]]:
        """The functional cases' names as challenge.py's comments give them (None: unknown)."""
        from generator.challenge.case_names import functional_names
        from generator.challenge.pyfile import read_challenge_py

        path = Path(self.job["challenge_dir"]) / "challenge.py"
        return functional_names(read_challenge_py(path.read_text(), str(path)))

    def seed_record(self, seed: int) -> Dict[str, Any]:
        record = {"seed": seed, "verdict": V.PASS, "passed": 0, "skipped": 0, "message": ""}
        self.result.data["seeds"].append(record)
        return record

    def functional(self, solution: Any) -> None:
        """The job's seed (with the oracle and the accuracy floor when the plan gives them),
        then every extra seed (correctness only); the first failing case ends the job."""
        limit = self.job.get("max_case_elements")
        for seed in [self.seed] + [int(s) for s in self.job.get("extra_seeds") or []]:
            record = self.seed_record(seed)
            scratch: List[Dict[str, Any]] = []
            try:
                for index, case in enumerate(self.cases(seed)):
                    tensor, count = case.largest_tensor()
                    if limit and count > limit:
                        record["skipped"] += 1
                        if seed == self.seed:
                            why = f"{tensor} has {count:,} elements, over {limit:,}"
                            self.result.data["skipped"].append({"name": case.name, "why": why})
                        continue
                    if seed != self.seed:
                        self.run_case(solution, case, seed, scratch)
                    else:
                        entry, guarded, expected = self.run_case(solution, case)
                        if index > 0:  # functional cases only: the first is the judge's example
                            self.accuracy(entry, case, guarded, expected)
                    record["passed"] += 1
            except Stop as stop:
                record.update({"verdict": stop.verdict, "message": stop.message})
                if seed != self.seed:
                    stop.message = f"seed {seed}: {stop.message}"
                raise

    def compile_only(self, solution: Any) -> None:
        """Without a GPU: compiled for the target on the example's (CPU) tensors, nothing is
        run (CuTe DSL, TileLang)."""
        from generator.judge.cases import example_and_functional

        if self.ranks is not None:
            raise Stop(V.JUDGE_ERROR, "a multi-GPU challenge is judged by running its ranks")
        self.result.progress("compile", self.timeout, "example")
        case = example_and_functional(self.challenge, self.params, self.seed)[0]
        guarded = self.guarded(case.values, self.seed)
        try:
            self.call(solution, guarded, "compile (example)", {"compile_only": True})
        except Stop as stop:
            if stop.verdict == V.RUNTIME_ERROR:  # cute.compile raising is the source's fault
                stop.verdict = V.BUILD_ERROR
            raise

    def perf(self, solution: Any) -> None:
        """The performance case, judged; then timed call by call (generator/judge/rounds.py):
        each call's inputs written and outputs reset by this process outside the clock, a
        secret share of the calls checked, the times the solution's process reports bounded by
        this process's clock (a multi-GPU judge times every rank at once)."""
        if self.ranks is not None:
            self.ranks.perf(solution)
            return
        from generator.judge.cases import performance
        from generator.judge.rounds import InputSets, TimedRounds
        from generator.judge.shared import Arena
        from generator.judge.timing import PerfOptions, PerfReport, copy_bandwidth, is_gpu

        options = PerfOptions.from_json(self.job.get("perf_options"))
        self.result.progress("performance setup", max(self.timeout, 300.0), "performance")
        try:
            case = performance(self.challenge, self.params, self.seed)
        except Exception as exc:
            raise Stop(V.JUDGE_ERROR, f"performance case: {_describe(exc)}", _traceback(exc))
        entry, guarded, expected = self.run_case(solution, case)
        min_bytes = self.job.get("min_bytes") or self.tensor_traffic(case.values)
        limit = 4 * options.budget_s + 2 * self.timeout + 120
        self.result.progress("timing", limit, "performance")
        pristine = Arena(self.device)
        restore = self.pristine_inouts(pristine, case.values)
        request = {"op": "time_setup", "options": options.__dict__}
        request.update({"restore": restore, "restore_buffers": pristine.buffers})
        setup = solution.request(request, limit, "timing", pristine.fds)
        pristine.close()  # the solution's process let go of it (the rounds write the inouts)
        isolate = bool(setup.get("isolated", self.language.own_streams))
        sets = InputSets(self, case.values, expected)
        del case, expected  # in `fresh` mode the sets hold no copy of the performance case
        rounds = TimedRounds(self, solution, guarded, sets, options, self.calibration)
        try:
            timing, note = rounds.run(isolate)
        except Stop as stop:
            entry.update({"verdict": stop.verdict, "message": stop.message})
            self.result.data["perf"] = {"rounds": rounds.record()}  # what the defences did
            raise
        finally:
            rounds.release()
        record = rounds.record()
        del sets, rounds  # the sets go before the copy bandwidth allocates its buffers
        copy = copy_bandwidth(self.device, options)
        report = PerfReport(timing, copy, min_bytes, note, on_gpu=is_gpu(self.device))
        report.isolated = isolate
        perf = report.to_json()
        perf["min_bytes_from"] = "spec" if self.job.get("min_bytes") else "tensor sizes"
        perf["rounds"] = record
        self.result.data["perf"] = perf

    def pristine_inouts(self, arena: Any, values: Dict[str, Any]) -> Dict[str, Any]:
        """inout tensors start every timed call from the case's data: copies, shared."""
        from generator.judge.shared import describe_tensor

        views = {}
        for p in self.params:
            if p.is_tensor and p.direction == "inout":
                source = values[p.name]
                nbytes = source.numel() * source.element_size()
                data = arena.allocate(nbytes)[:nbytes]
                data.view(source.dtype).view(source.shape).copy_(source)
                views[p.name] = describe_tensor(len(arena.buffers) - 1, 0, source)
        return views

    def tensor_traffic(self, values: Dict[str, Any]) -> float:
        """Bytes every solution must move at least: inputs read, outputs written, inout both."""
        total = 0
        for p in self.params:
            value = values[p.name]
            if isinstance(value, self.torch.Tensor):
                nbytes = value.numel() * value.element_size()
                total += 2 * nbytes if p.direction == "inout" else nbytes
        return float(total)


def report_detail(report: Any) -> str:
    return "\n".join(c.describe() for c in report.comparisons)
