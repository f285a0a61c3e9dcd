"""The contract of every public function of code/, tested on hostile arguments (hypothesis).

CONTRIBUTING.md promises: bad input raises ``ValueError``/``TypeError`` whose message names the
argument; nothing returns a silently wrong, NaN or infinite result; nothing hangs or allocates
gigabytes. This file enumerates every public function and class of every module listed in
``pyproject.toml`` and calls each with arguments drawn from its signature: the wrong type, NaN,
+-inf, negatives, zero, empty and huge sizes, mixed with the defaults. Each call must, within
``CALL_SECONDS``, either

- raise ``ValueError``/``TypeError`` (``OSError`` for a path) whose message contains the name
  of one of the function's parameters, or
- return a result whose every number is finite.

Each function runs in a child process forked from a clean server that has only imported the
modules (no torch thread pool to inherit), with an address-space cap, so a regression that
hangs inside C code or asks for gigabytes fails its own test instead of the machine.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import itertools
import math
import multiprocessing
import random
import re
import signal
import sys
import traceback
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
# The modules listed in pyproject.toml's py-modules (read with a regex: no tomllib on 3.10).
_PY_MODULES = re.search(r"py-modules = \[(.*?)\]", (ROOT / "pyproject.toml").read_text(), re.S)
MODULES = re.findall(r'"(\w+)"', _PY_MODULES.group(1))

CALL_SECONDS = 2.0  # per call: the "no hang" bound
EXAMPLES = 30  # hypothesis examples per function (the file runs in about 2.5 min)
MEMORY_HEADROOM = 1 << 30  # a call may grow the address space by 1 GiB at most

# Reviewed exceptions: (module, name) -> why the hostile-argument contract does not apply.
ALLOW: dict[tuple[str, str], str] = {
    ("job_graph", "StoreError"): "an OSError subclass the store raises; it takes any arguments",
    # Data producers with nothing to be hostile with: the simulation behind data/vote_sims.json
    # takes no argument and the job that writes it only its name; each runs for a minute by
    # design (tests/test_data_jobs.py runs the job and compares its file with data/).
    ("reasoning", "vote_sims"): "takes no argument; a minute of seeded simulation by design",
    ("data_jobs", "job_vote_sims"): "takes only its job name; runs reasoning.vote_sims",
    ("data_jobs", "job_recorded_calls"): "takes only its job name; runs every recorded call",
}
# The checks take (name, value) and put the caller's *name string* in the message, so "the
# message names a parameter" does not apply to them; tests/test_checks.py tests them directly.
ALLOW_MODULES = {"checks": "the argument checks themselves (tests/test_checks.py)"}
CONSTANTS_ONLY = {"objectives": "the objectives' keys and labels: no functions"}

# Results in which NaN is the documented "missing" marker (not a wrong answer): a step's
# statistic with nothing to average, which scripts/run_r1.py writes as JSON null.
NAN_MEANS_MISSING = {("rl_reasoner", "rl_step"), ("rl_reasoner", "train_rl")}

# --------------------------------------------------------------------------- hostile values


class Junk:
    """An object of no expected type."""

    def __repr__(self) -> str:
        return "Junk()"


def returns_nan(*args, **kwargs) -> float:
    return math.nan


def returns_str(*args, **kwargs) -> str:
    return "7+5=12;####12"


def returns_junk(*args, **kwargs) -> Junk:
    """A hook that returns the wrong thing: the caller must say which hook, not AttributeError."""
    return Junk()


def endless():
    """A generator that never ends, where a sequence is expected."""
    while True:
        yield 1


NAN, INF = math.nan, math.inf
HUGE = 10**400  # no float holds it; str() of it is past CPython's 4,300-digit limit
GENERIC = [None, True, Junk(), "x", b"x", {"a": 1}, -1, 0, 10**9, NAN, INF, -INF, [], [[]]]
POOLS = {
    "int": [-1, 0, 10**9, 2**70, True, 1.5, NAN, "3", None, -(10**9), HUGE, -HUGE],
    "float": [NAN, INF, -INF, -1.0, 0.0, 1e308, -1e-300, 10**9, True, "0.5", None, HUGE]
    + [1e20, -1e20],
    "str": ["", "ppo", "\x00", "7+5", "2", 3, None, ["a"], "a\x00b"],
    "bool": [0, 1, "yes", None, NAN],
    "seq": [
        [],
        [NAN],
        [[1]],
        "abc",
        [1, 2],
        [10**9],
        [-1],
        None,
        5,
        ["7+5", "2+2"],
        [[], []],
        [INF],
        ["a", None],
        [(1, 2)],
        [True],
        [0.5, -1.0],
        [1e20, -1e20],
        [1e308, 1e308],  # finite items whose sum overflows to inf
        [HUGE],
        itertools.count(),
        endless(),
    ],
    "tensor": [
        torch.tensor(NAN),
        torch.zeros(0),
        torch.ones(2, 3),
        torch.tensor([[INF, 0.0]]),
        torch.tensor([1, 2]),
        torch.tensor([True, False]),
        torch.tensor([-INF, 0.0]),
        torch.zeros(2, 3, 4),
        torch.tensor([0.5, NAN]),
        [0.1, 0.2],
        None,
        1.0,
    ],
    "array": [
        np.array([NAN]),
        np.zeros((0,)),
        np.ones((2, 3)),
        np.array([[1, -1]]),
        np.array([INF]),
        np.zeros((2, 0)),
        [1, 2],
        None,
        np.array(["a"]),
        3,
    ],
    "callable": [None, 3, returns_nan, returns_str, returns_junk, "f"],
    "mapping": [{}, {"a": NAN}, {"a": -1}, {"a": 10**9}, [], None, {1: 2}],
    "path": ["/nonexistent/x", "", None, 3, ROOT / "code" / "checks.py", "x\x00y"],
    "rng": [random.Random(0), np.random.default_rng(0), torch.Generator(), None, 0],
}


def _tiny_model():
    from tiny_gpt import TinyGPT, TinyGPTConfig

    return TinyGPT(TinyGPTConfig(n_layer=1, n_embd=16, n_head=2), seed=0)


def _rl_cfg():
    from rl_reasoner import RLConfig

    return RLConfig(prompts_per_step=1, group_size=2, inner_steps=1)


# Plausible valid values for parameters without a default, by name (then by name + hint), so
# that most examples corrupt one or two arguments of an otherwise sensible call. A wrong guess
# only means the call is refused, which the contract also covers.
def _baselines() -> dict:
    t = torch.tensor
    logp = t([[-0.5, -1.0, -0.2], [-0.3, -0.7, -1.2]])
    return {
        "p": 0.6,
        "n": 3,
        "k": 2,
        "c": 1,
        "G": 4,
        "seed": 0,
        "num_answers": 4,
        "correct": 1,
        "num_distractors": 2,
        "num_labels": 3,
        "num_bootstrap": 20,
        "window": 2,
        "length": 4,
        "problem": "7+5-3",
        "text": "7+5=12;####12",
        "completion": "7+5=12;12-3=9;####9",
        "chain": ["4+4=8", "8*3=24"],
        "step": "4+4=8",
        "key": "a",
        "expr": "4+4=8",
        "derivation": "4+4=8; 8*3=24",
        "numbers": [4, 4, 3, 1],
        "state": [8, 3],
        "logp_new": logp,
        "logp_old": logp - 0.1,
        "logp_policy": logp,
        "logp_ref": logp - 0.1,
        "advantages": t([1.0, -1.0]),
        "adv": t([1.0, -1.0]),
        "ratio": t([[1.1, 0.7, 1.0]] * 2),
        "rewards": t([[1.0, 0.0, 1.0, 0.0]]),
        "values": t([[1.0, 2.0]]),
        "s": t([1.01, 0.99]),
        "answers": ["1", "2", "1"],
        "scores": [0.5, 0.2, 0.9],
        "counts": {"1": 2, "2": 1},
        "clip_low": 0.2,
        "clip_high": 0.28,
        "eps_low": 0.2,
        "eps_high": 0.28,
        "grpo_eps": 0.2,
        "temperature": 0.5,
        "temperatures": [0.5, 1.0],
        "v": 0.04,
        "params": 1e6,
        "tokens": 1e3,
        "budget": 5,
        "budgets": [2, 8],
        "problems": ["7+5-3", "2+2+2"],
        "prompts": ["7+5-3=", "2+2="],
        "context": 64,
        "lengths": [4, 8],
        "seq_len": 4,
        "vocab_size": 5,
        "target": [1, 2, 3, 0],
        "rollouts": [True, False],
        "pool": [],
        "error_rate": 0.3,
        "beam_width": 2,
        "evaluator": returns_nan,
        "sample_fn": returns_str,
        "score_fn": returns_nan,
        "results": [(4, 1), (4, 2)],
        "benchmark": [(["1", "2"], "1")],
        "path": "/nonexistent",
        "steps": 2,
        "batch_size": 2,
        "slip_share": 0.2,
        "recheck_share": 0.2,
        "max_chars": 52,
        "ids": [1, 2, 3],
        "pairs": [("7+5", "7+5=12;####12")],
        "logits": np.array([[0.0, 1.0]]),
        "per_problem": np.array([0.5, 1.0]),
        "format_weight": 0.1,
        "objective": "grpo",
        "samples_per_problem": 2,
        "target_groups": 1,
        "window_size": 2,
        "left": 3,
        "right": 4,
        "op": "+",
        "completions": ["7+5=12;####12", "x"],
        "mask": None,
        "thinking_tokens": 3,
        "answer_tokens": 2,
        "price_per_million": 10.0,
        "separation": 1.0,
        "slip_prob": 0.2,
        "candidate": {},
        "puzzles": [[4, 4, 3, 1]],
    }


_FACTORIES = {
    "model": _tiny_model,
    "reference": _tiny_model,
    "cfg": _rl_cfg,
    "generator": lambda: torch.Generator().manual_seed(0),
}


def _baseline(name: str, hint: str):
    """A plausible valid value for a required parameter, or ``Junk`` when there is no guess."""
    if name in _FACTORIES:
        return _FACTORIES[name]()
    if name == "rng":
        return np.random.default_rng(0) if "numpy" in hint else random.Random(0)
    if name == "answers" and "ndarray" in hint:
        return np.array([[0, 1, 0], [1, 2, 2]])
    if name == "answers" and "Tensor" in hint:
        return torch.tensor([1, 0, 1])
    if name == "benchmark" and "Mapping" in hint:
        return {"logits": np.zeros((2, 3)), "answers": np.array([[0, 1, 2], [1, 1, 0]])}
    if name in ("logp_new", "logp_old") and "Sequence" in hint and "Tensor" in hint:
        return [torch.tensor([-0.5, -1.0]), torch.tensor([-0.2])]
    return _baselines().get(name, Junk())


def _pool(annotation: str) -> list:
    """The hostile pool for a parameter, chosen from its (string) type hint."""
    a = annotation
    for key, words in (
        ("callable", ("Callable",)),
        ("tensor", ("Tensor",)),
        ("array", ("ndarray",)),
        ("mapping", ("Mapping", "dict")),
        ("path", ("Path",)),
        ("rng", ("Random", "Generator")),
        ("seq", ("Sequence", "list", "tuple", "Iterable")),
        ("bool", ("bool",)),
        ("float", ("float",)),
        ("int", ("int",)),
        ("str", ("str",)),
    ):
        if any(w in a for w in words):
            return POOLS[key] + GENERIC
    return GENERIC


# --------------------------------------------------------------------------- what counts as public


def public_callables() -> list[tuple[str, str]]:
    out = []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module_name:
                continue
            if inspect.isfunction(obj) or inspect.isclass(obj):
                out.append((module_name, name))
    return out


def _parameters(obj) -> list[inspect.Parameter]:
    sig = inspect.signature(obj)
    return [
        p
        for p in sig.parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name != "self"
    ]


# --------------------------------------------------------------------------- one call, judged


class _Timeout(BaseException):
    """Raised by the alarm; a BaseException so no ``except Exception`` in code/ can swallow it."""


def _on_alarm(signum, frame):
    raise _Timeout


def _finite(value, depth: int = 0) -> str | None:
    """None if every number in ``value`` is finite, else where the first bad one is."""
    if depth > 6:
        return None
    if isinstance(value, bool) or value is None or isinstance(value, (str, bytes)):
        return None
    if isinstance(value, int):
        return None  # exact, so finite; float() of 10**400 would raise OverflowError here
    if isinstance(value, (float, np.number)):
        return None if math.isfinite(float(value)) else f"non-finite number {value}"
    if isinstance(value, torch.Tensor):
        ok = not value.is_floating_point() or bool(torch.isfinite(value.detach()).all())
        return None if ok else "non-finite tensor"
    if isinstance(value, np.ndarray):
        ok = value.dtype.kind not in "fc" or bool(np.isfinite(value).all())
        return None if ok else "non-finite array"
    if isinstance(value, dict):
        items = list(value.values())
    elif isinstance(value, (list, tuple)):
        items = list(value)
    elif dataclasses.is_dataclass(value):
        items = [getattr(value, f.name) for f in dataclasses.fields(value)]
    else:
        return None
    for item in items[:10_000]:
        bad = _finite(item, depth + 1)
        if bad:
            return bad
    return None


def judge(obj, params: list[str], kwargs: dict, nan_ok: bool = False) -> str | None:
    """Call ``obj(**kwargs)``; None if the contract holds, else a one-line complaint."""
    # Re-armed every 0.25 s: an alarm that lands in a gc callback is swallowed ("ignored").
    signal.setitimer(signal.ITIMER_REAL, CALL_SECONDS, 0.25)
    try:
        result = obj(**kwargs)
        if inspect.isgenerator(result) or type(result).__name__ == "generator":
            result = [x for _, x in zip(range(3), result, strict=False)]
        bad = None if nan_ok else _finite(result)
        plain_object = not inspect.isclass(obj) and inspect.isclass(type(result))
        if bad is None and not nan_ok and plain_object:
            bad = (
                _finite(getattr(result, "__dict__", None))
                if not isinstance(result, torch.nn.Module)
                else None
            )
        return f"returned a {bad}" if bad else None
    except _Timeout:
        return f"no answer within {CALL_SECONDS} s"
    except (ValueError, TypeError, OSError) as exc:
        message = str(exc)
        if isinstance(exc, OSError):
            # A missing or unreadable file is the right error for a path argument.
            return None if any("path" in p for p in params) else f"OSError: {message[:120]}"
        # A helper that takes the argument's name (``name="numbers"``) names it by that string.
        given = kwargs.get("name")
        names = [*params, given] if isinstance(given, str) and given else params
        if any(
            re.search(rf"(?<![A-Za-z0-9_]){re.escape(p)}(?![A-Za-z0-9_])", message) for p in names
        ):
            return None
        return f"{type(exc).__name__} naming no parameter: {message[:160]!r}"
    except MemoryError:
        return "MemoryError (a size went unchecked)"
    except RecursionError:
        return "RecursionError"
    except Exception as exc:  # noqa: BLE001 - any other exception breaks the contract
        return f"{type(exc).__name__}: {str(exc)[:160]!r}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def run_function(module_name: str, name: str, examples: int, conn) -> None:
    """Child process: hypothesis draws ``examples`` argument sets; send back the complaints."""
    import resource

    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    torch.set_num_threads(1)  # the machine is shared; these calls are tiny
    with open("/proc/self/statm") as f:
        vm = int(f.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (vm + MEMORY_HEADROOM, resource.RLIM_INFINITY))
    signal.signal(signal.SIGALRM, _on_alarm)

    obj = getattr(importlib.import_module(module_name), name)
    params = _parameters(obj)
    names = [p.name for p in params]
    fields, bases = {}, {}
    for p in params:
        hint = (
            p.annotation
            if isinstance(p.annotation, str)
            else getattr(p.annotation, "__name__", str(p.annotation))
        )
        hostile = st.sampled_from(_pool(str(hint)))
        base = _baseline(p.name, str(hint)) if p.default is p.empty else p.default
        bases[p.name] = base
        fields[p.name] = st.one_of(st.just(base), hostile)
    complaints: dict[str, dict] = {}

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(st.fixed_dictionaries(fields))
    def prop(kwargs):
        if params and all(kwargs[n] is bases[n] for n in names):
            return  # the plausible call itself: the chapters and unit tests cover those
        complaint = judge(obj, names, kwargs, (module_name, name) in NAN_MEANS_MISSING)
        if complaint is not None:
            key = complaint.split(":")[0]
            complaints.setdefault(key, {"complaint": complaint, "kwargs": repr(kwargs)[:300]})

    try:
        prop()
    except Exception:  # noqa: BLE001
        complaints["harness"] = {"complaint": traceback.format_exc()[-500:], "kwargs": ""}
    conn.send(complaints)
    conn.close()


_ctx = None


def _context():
    global _ctx
    if _ctx is None:
        _ctx = multiprocessing.get_context("forkserver")
        # sympy is imported lazily by torch on first use; preloading it means no call's alarm
        # can interrupt that import halfway (which would break every later call).
        _ctx.set_forkserver_preload(["test_public_contract", *MODULES, "sympy"])
    return _ctx


def check_function(module_name: str, name: str, examples: int = EXAMPLES) -> dict:
    """Run ``name``'s examples in a child; a child that never reports counts as a hang."""
    ctx = _context()
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=run_function, args=(module_name, name, examples, child))
    proc.start()
    child.close()
    budget = 20 + examples * CALL_SECONDS  # generous: most calls refuse in microseconds
    if parent.poll(budget):
        try:
            result = parent.recv()
        except EOFError:
            result = {"crash": {"complaint": f"child died (exit {proc.exitcode})", "kwargs": ""}}
    else:
        result = {
            "hang": {"complaint": f"no report in {budget:.0f} s (stuck in C code?)", "kwargs": ""}
        }
    proc.kill()
    proc.join()
    return result


CASES = [c for c in public_callables() if c not in ALLOW and c[0] not in ALLOW_MODULES]


def test_every_public_function_is_covered():
    """The enumeration sees every module; the allow-list names only things that exist."""
    found = set(public_callables())
    # A module of constants only (the objectives' names) has nothing to call.
    assert {m for m, _ in found} == set(MODULES) - set(CONSTANTS_ONLY)
    assert set(ALLOW) <= found, set(ALLOW) - found
    assert set(ALLOW_MODULES) <= set(MODULES)
    assert len(CASES) > 150


@pytest.mark.parametrize(("module_name", "name"), CASES, ids=[f"{m}.{n}" for m, n in CASES])
def test_public_contract(module_name: str, name: str):
    complaints = check_function(module_name, name)
    assert not complaints, "\n".join(
        f"{module_name}.{name}: {c['complaint']}\n    with {c['kwargs']}"
        for c in complaints.values()
    )


# --------------------------------------------------------------------------- closed forms, exactly
# "Nothing returns a silently wrong result" at the edges, too: each closed-form helper at tiny
# and huge arguments against an exact reference (fractions.Fraction, or decimal at high
# precision where the answer holds an exp). A float formula can be right at p = 0.3 and return
# 0.0, 1.0 or p^n where the answer is 1e-24 or 1 - (1 - p)^n (each case below was seen failing).


def _dec(x) -> Decimal:
    return Decimal(x) if not isinstance(x, Fraction) else Decimal(x.numerator) / x.denominator


def _plurality_exact(p: float, n: int, d: int) -> Fraction:
    """P(the right answer wins the plurality vote), by enumerating every ballot (ties split)."""
    right, wrong = Fraction(p), (1 - Fraction(p)) / d
    total = Fraction(0)
    for votes in itertools.product(range(d + 1), repeat=n):
        weight = math.prod(right if v == 0 else wrong for v in votes)
        counts = [votes.count(a) for a in range(d + 1)]
        if counts[0] == max(counts):
            total += weight / counts.count(max(counts))
    return total


def _exact_variance(pi, r, b) -> dict:
    pi, r, b = [Fraction(x) for x in pi], [Fraction(x) for x in r], Fraction(b)
    sq = sum(p * p for p in pi)
    w = [sq - 2 * p + 1 for p in pi]
    mean = sum(p * x for p, x in zip(pi, r, strict=True))
    g2 = sum((p * (x - mean)) ** 2 for p, x in zip(pi, r, strict=True))

    def var(c):
        return sum(p * (x - c) ** 2 * wa for p, x, wa in zip(pi, r, w, strict=True)) - g2

    best = sum(p * wa * x for p, wa, x in zip(pi, w, r, strict=True)) / sum(
        p * wa for p, wa in zip(pi, w, strict=True))
    return {"variance": var(b), "best_baseline": best, "best_variance": var(best),
            "mean_reward": mean}


def _derail_exact(t: float, n: int, j: int, gap: float) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = 700  # 1 - (1 + 1e-259)^-20 keeps its digits
        x = j * (-_dec(gap) / _dec(t)).exp()
        return 1 - (1 + x) ** -n


def _difficulty_weight_exact(p: float, eps: float) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = 60
        return 1 / ((_dec(p) * (1 - _dec(p))).sqrt() + _dec(eps))


def _prm_exact(scores: list[float], agg: str) -> Fraction:
    exact = [Fraction(x) for x in scores]
    return math.prod(exact) if agg == "product" else sum(exact) / len(exact)


def _closed_form_cases():
    """(id, call, exact) for every public closed-form helper of code/ at its edges.

    ``exact`` is a thunk: some references are numbers of millions of digits (the naive pass@k at
    k = 10**6), and a module-level value would cost every process that imports this file (each
    contract child does) about ten seconds."""
    import cispo
    import dr_grpo
    import evaluation
    import gspo
    import policy_gradient
    import prm
    import reasoning
    import thinking

    cases = []
    for n, c, k in [(10**6, 1, 1), (10**6, 1, 10**6 - 1), (100, 99, 2), (5, 0, 3), (7, 7, 7)]:
        cases.append((f"pass_at_k{(n, c, k)}", lambda n=n, c=c, k=k: evaluation.pass_at_k(n, c, k),
                      lambda n=n, c=c, k=k: 1 - Fraction(math.comb(n - c, k), math.comb(n, k))))
    for n, c, k in [(10**6, 1, 1), (10**7, 3, 10**6)]:
        cases.append((f"naive_pass_at_k{(n, c, k)}",
                      lambda n=n, c=c, k=k: evaluation.naive_pass_at_k(n, c, k),
                      lambda n=n, c=c, k=k: 1 - (1 - Fraction(c, n)) ** k))
    for p, n in [(1e-300, 1), (1e-300, 3), (0.5, 2), (1 - 2**-52, 3), (1e-10, 2), (0.3, 5)]:
        for d in (1, 2, 3):
            cases.append((f"plurality_vote_prob{(p, n, d)}",
                          lambda p=p, n=n, d=d: reasoning.plurality_vote_prob(p, n, d),
                          lambda p=p, n=n, d=d: _plurality_exact(p, n, d)))
        cases.append((f"condorcet_majority_prob{(p, n)}",
                      lambda p=p, n=n: reasoning.condorcet_majority_prob(p, n),
                      lambda p=p, n=n: _plurality_exact(p, n, 1)))
    for d in (1e17, 1e300, -1e17, -1e300):  # the verifier always (never) prefers a right sample
        for p, n in [(0.5, 4), (0.3, 64)]:
            cases.append((f"best_of_n_accuracy{(p, n, d)}",
                          lambda p=p, n=n, d=d: reasoning.best_of_n_accuracy(p, n, d),
                          lambda p=p, n=n, d=d: 1 - (1 - Fraction(p)) ** n if d > 0
                          else Fraction(p) ** n))
    for t, n, j, gap in [(0.1, 20, 5, 6.0), (0.01, 20, 5, 6.0), (0.4, 20, 5, 6.0),
                         (0.1, 10**9, 5, 6.0), (1e300, 20, 5, 6.0), (1.0, 1, 10**12, 0.0)]:
        cases.append((f"derail_probability{(t, n, j, gap)}",
                      lambda t=t, n=n, j=j, gap=gap: evaluation.derail_probability(t, n, j, gap),
                      lambda t=t, n=n, j=j, gap=gap: _derail_exact(t, n, j, gap)))
    cases.append(("temperature_probs(T=1e-310)",
                  lambda: evaluation.temperature_probs(np.array([0.0, 1.0, 1.0]), 1e-310)[1],
                  lambda: Fraction(1, 2)))
    for big, small in [(1e-300, 1e-300), (1e30, 1e30), (5e-324, 1.0)]:
        cases.append((f"training_flops{(big, small)}",
                      lambda a=big, b=small: thinking.training_flops(a, b),
                      lambda a=big, b=small: 6 * Fraction(a) * Fraction(b)))
        cases.append((f"generation_flops{(big, small)}",
                      lambda a=big, b=small: thinking.generation_flops(a, b),
                      lambda a=big, b=small: 2 * Fraction(a) * Fraction(b)))
    for p, eps in [(1e-300, 1e-2), (1 - 1e-16, 1e-2), (0.0, 1e-300), (1e-20, 1e-300)]:
        cases.append((f"difficulty_weight{(p, eps)}",
                      lambda p=p, eps=eps: dr_grpo.difficulty_weight(p, eps),
                      lambda p=p, eps=eps: _difficulty_weight_exact(p, eps)))
    for v, length in [(1e-320, 3), (1e-300, 10**6), (1e300, 1)]:
        cases.append((f"log_ratio_variances{(v, length)}.seq",
                      lambda v=v, n=length: gspo.log_ratio_variances(v, n)["seq"],
                      lambda v=v, n=length: Fraction(v) / n))
    for r, a in [(1e-300, 1.0), (1e300, 1e300), (1.1, -1e-300)]:
        cases.append((f"cispo_gradient_coefficient{(r, a)}",
                      lambda r=r, a=a: cispo.cispo_gradient_coefficient(r, a, 0.2, 0.2),
                      lambda r=r, a=a: Fraction(a)
                      * max(min(Fraction(r), 1 + Fraction(0.2)), 1 - Fraction(0.2))))
    for scores, agg in [([1e-200] * 2, "product"), ([1e-300] * 3, "mean"), ([0.1] * 10, "mean")]:
        cases.append((f"prm_score({scores[:2]}, {agg})",
                      lambda s=scores, g=agg: prm.prm_score(s, g),
                      lambda s=scores, g=agg: _prm_exact(s, g)))
    chain = policy_gradient.bernoulli_chain_values
    for n, p, k in [(64, 0.5, 32), (64, 1e-300, 1), (64, 1 - 2**-52, 64), (64, 1e-5, 64)]:
        cases.append((f"bernoulli_chain_values{(n, p, k)}.V00",
                      lambda n=n, p=p, k=k: chain(n, p, k)[0][0][0],
                      lambda n=n, q=Fraction(p), k=k: sum(
                          math.comb(n, j) * q**j * (1 - q) ** (n - j) for j in range(k, n + 1))))
        cases.append((f"bernoulli_chain_values{(n, p, k)}.dJ",
                      lambda n=n, p=p, k=k: chain(n, p, k)[1],
                      lambda n=n, q=Fraction(p), k=k:
                      n * math.comb(n - 1, k - 1) * q ** k * (1 - q) ** (n - k + 1)))
    for pi, r, b in [([0.5, 0.5], [1e8, 1e8 + 1], 0.0), ([0.25, 0.75], [1e-200, 3e-200], 0.0),
                     ([0.2, 0.3, 0.5], [1.0, 0.0, 0.5], 0.3),
                     ([1e-300, 1 - 1e-300], [1.0, 0.0], 0.0),
                     ([0.5, 0.5], [1e99, -1e99], 1e99)]:
        for key in ("variance", "best_baseline", "best_variance", "mean_reward"):
            cases.append((f"exact_gradient_variance{(pi, r, b)}.{key}",
                          lambda pi=pi, r=r, b=b, key=key:
                          policy_gradient.exact_gradient_variance(pi, r, b)[key],
                          lambda pi=pi, r=r, b=b, key=key: _exact_variance(pi, r, b)[key]))
    return cases


CLOSED_FORMS = _closed_form_cases()


def _rl_closed_form_cases():
    """Three the contract found in the RL modules (0.0 for 1.6e-16, 0.0 for -1, 0 for +-1)."""
    import dapo
    import grpo

    return [
        ("kept_fraction(1e-17, 16)", lambda: dapo.kept_fraction(1e-17, 16),
         lambda: 1 - Fraction(1e-17) ** 16 - (1 - Fraction(1e-17)) ** 16),
        ("overlong_penalty(10**30, 10**30, 1)", lambda: dapo.overlong_penalty(10**30, 10**30, 1),
         lambda: Fraction(-1)),
        ("group_relative_advantages(float32 [1e-25, -1e-25], eps=0)",
         lambda: float(grpo.group_relative_advantages(torch.tensor([1e-25, -1e-25]), eps=0.0)[0]),
         lambda: Fraction(1)),
    ]


@pytest.mark.parametrize(
    ("call", "exact"),
    [pytest.param(call, exact, id=name)
     for name, call, exact in [*CLOSED_FORMS, *_rl_closed_form_cases()]],
)
def test_closed_form_is_exact_at_tiny_and_huge_arguments(call, exact):
    got = call()
    want = float(exact())
    assert math.isclose(float(got), want, rel_tol=1e-12, abs_tol=0.0), (got, want)


def test_the_exact_references_wait_for_their_test():
    """Each contract case runs in a child that imports this file: a reference computed at import
    time (some are numbers of millions of digits) is paid by every child, ~10 s each, which
    once pushed the suite past CI's 90 minutes."""
    lazy = [name for name, _, exact in [*CLOSED_FORMS, *_rl_closed_form_cases()]
            if not callable(exact)]
    assert not lazy, f"exact references computed at import: {lazy[:5]}"


def test_plurality_vote_matches_enumeration():
    """Hypothesis (derandomized): the plurality vote's closed form equals counting ballots."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    import reasoning

    probs = st.sampled_from([1e-300, 1e-12, 1e-3, 0.5, 1 - 1e-9, 1 - 2**-52]) | st.floats(0, 1)

    @settings(max_examples=60, derandomize=True, deadline=None, database=None)
    @given(probs, st.integers(1, 5), st.integers(1, 3))
    def prop(p, n, d):
        want = float(_plurality_exact(p, n, d))
        got = reasoning.plurality_vote_prob(p, n, d)
        assert math.isclose(got, want, rel_tol=1e-11, abs_tol=1e-300), (p, n, d, got, want)

    prop()


def test_exact_gradient_variance_refuses_a_reward_whose_square_overflows():
    """(1e200 - 0) ** 2 raises OverflowError in Python: the rewards' cap says so first."""
    import policy_gradient

    cases = [({"rewards": [1e200, -1e2]}, "rewards"), ({"baseline": 1e200}, "baseline")]
    for kwargs, name in cases:
        call = {"probs": [0.5, 0.5], "rewards": [1.0, 0.0], **kwargs}
        with pytest.raises(ValueError, match=name):
            policy_gradient.exact_gradient_variance(**call)


if __name__ == "__main__":  # python3 tests/test_public_contract.py: a tally of every function
    sys.path.insert(0, str(ROOT / "code"))
    failing = 0
    for m, n in CASES:
        c = check_function(m, n)
        if c:
            failing += 1
            print(f"FAIL {m}.{n}")
            for v in c.values():
                print(f"     {v['complaint'][:200]}\n       with {v['kwargs'][:200]}")
    print(f"{failing} of {len(CASES)} public functions/classes break the contract")
