"""Scoring a stochastic model fairly: pass@k and cons@k from n samples per problem.

A model asked the same question twice may answer differently, so one attempt is a noisy
measurement. The standard remedy: draw n >= k samples per problem, count what happened, and
compute the *exact* probability that a random size-k subset of them would have succeeded.

- pass@k: at least one of the k attempts is correct (the answer can be checked: unit tests,
  a known number). Chen et al. (2021) give the unbiased estimator 1 - C(n-c, k) / C(n, k).
- cons@k: the majority vote of the k attempts is correct (self-consistency, see ``reasoning``).
"""

import math
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction

import numpy as np

from checks import require_float, require_int, require_seed, require_sequence, require_str
from reasoning import plurality_is_correct, vote_distribution

__all__ = [
    "pass_at_k",
    "naive_pass_at_k",
    "mean_pass_at_k",
    "cons_at_k_counts",
    "cons_at_k",
    "mean_cons_at_k",
    "temperature_probs",
    "derail_probability",
    "make_toy_benchmark",
    "sample_answers",
    "bootstrap_interval",
    "benchmark_curves",
]


# Size caps. pass@k is a product over c terms and cons@k a dynamic program whose exact integer
# arithmetic grows with the counts; past these a call would run for minutes.
MAX_SAMPLES = 10_000_000  # n of pass@k (a vector of c floats)
MAX_VOTES = 10_000  # samples behind one cons@k (exact big-integer binomials)
MAX_CELLS = 50_000_000  # elements of a simulated (problems, paths, n) array
MAX_CHAIN = 10**9  # chain_tokens of derail_probability (closed form; only a sanity bound)


def _check_samples(n: object, c: object) -> tuple[int, int]:
    """Validate a problem's sample count n >= 1 and correct count 0 <= c <= n."""
    n = require_int("n", n, low=1, high=MAX_SAMPLES)
    c = require_int("c", c)
    if not 0 <= c <= n:
        raise ValueError(f"c must be in [0, n] = [0, {n}], got {c}")
    return n, c


# ---------------------------------------------------------------------------------------------
# pass@k
# ---------------------------------------------------------------------------------------------


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n samples of which c are correct (Chen et al., 2021).

    Choose k of the n samples without replacement; pass@k is the chance that at least one is
    correct, i.e. one minus the chance that all k come from the n - c wrong ones:

        pass@k = 1 - C(n - c, k) / C(n, k) = 1 - prod_{i = n-c+1}^{n} (1 - k / i).

    The binomials overflow for large n, the product does not. It is evaluated as
    ``-expm1(sum(log1p(-k / i)))``, the same product in log space, which also keeps full
    relative precision when pass@k is tiny. If n - c < k every subset holds a correct sample,
    so the result is exactly 1.0. pass@1 = c / n, plain accuracy.
    """
    n, c = _check_samples(n, c)
    k = require_int("k", k)
    if not 1 <= k <= n:
        raise ValueError(f"k must be in [1, n] = [1, {n}], got {k}")
    if n - c < k:
        return 1.0
    if k == 1:
        return c / n  # the product telescopes to (n - c) / n; return the exact ratio
    i = np.arange(n - c + 1, n + 1, dtype=np.float64)
    log_all_wrong = float(np.log1p(-k / i).sum())
    return -math.expm1(log_all_wrong)


def naive_pass_at_k(n: int, c: int, k: int) -> float:
    """The biased plug-in estimate 1 - (1 - c/n)^k, for contrast with ``pass_at_k``.

    It treats the k attempts as drawn *with* replacement at the observed rate c/n, so k may
    exceed n. Because 1 - (1 - x)^k is concave in x, plugging in the noisy c/n underestimates
    the true pass@k on average; ``pass_at_k`` is unbiased.
    """
    n, c = _check_samples(n, c)
    k = require_int("k", k, low=1)  # closed form: any k is cheap
    if c == n:
        return 1.0
    return -math.expm1(k * math.log1p(-c / n))


def _per_item(name: str, i: int, fn, *args) -> float:
    """``fn(*args)`` for item ``i`` of a benchmark; an error names ``name[i]`` (or ``k``)."""
    try:
        return fn(*args)
    except (TypeError, ValueError) as err:
        if str(err).startswith("k "):
            raise
        raise type(err)(f"{name}[{i}]: {err}") from None


def mean_pass_at_k(results: Iterable[tuple[int, int]], k: int) -> float:
    """A benchmark's pass@k: the mean over problems of ``pass_at_k(n_i, c_i, k)``.

    ``results`` holds one ``(n, c)`` pair per problem (samples drawn, samples correct).
    """
    if isinstance(results, str) or not isinstance(results, Iterable):
        raise TypeError(f"results must be an iterable of (n, c) pairs, got {type(results)}")
    scores = []
    for i, pair in enumerate(results):
        if not isinstance(pair, Sequence) or len(pair) != 2:
            raise TypeError(f"results must contain (n, c) pairs, got {pair!r}")
        scores.append(_per_item("results", i, pass_at_k, pair[0], pair[1], k))
    if not scores:
        raise ValueError("results must contain at least one problem")
    return math.fsum(scores) / len(scores)


# ---------------------------------------------------------------------------------------------
# cons@k
# ---------------------------------------------------------------------------------------------


def cons_at_k_counts(counts: Mapping[str, int], correct: str, k: int, num_none: int = 0) -> float:
    """Exact cons@k from a tally: P(the vote of a random k-subset of the samples is correct).

    ``counts`` maps each distinct answer to how many of the n samples gave it, and ``num_none``
    samples had no readable answer: n = sum(counts) + num_none. Draw k of the n samples without
    replacement (multivariate hypergeometric) and take the plurality of their answers, None
    abstaining; the subset arrives in random order, so a tie among m answers at the top is won
    by each with probability 1/m (``majority_vote``'s first-appearance rule, averaged over
    orders). An all-None subset has no winner and counts as wrong.

    Exact and without enumerating subsets: condition on j, how many of the correct answer's
    samples are drawn, weight C(c, j). Wrong answers with fewer than j samples can never reach
    j, so they and the None samples form one free pool (C(pool, y) ways to draw y of them).
    The remaining "contender" answers are added one at a time in a dynamic program over
    (slots used s, contenders tied at j: t), drawing x <= j of each in C(size, x) ways. A state
    that fills the k - j remaining slots from the pool contributes ways / (t + 1). Dividing the
    integer total by C(n, k) gives the probability, exactly.
    """
    if not isinstance(counts, Mapping):
        raise TypeError(f"counts must be a mapping answer -> count, got {type(counts).__name__}")
    correct = require_str("correct", correct)
    sizes: dict[str, int] = {}
    for answer, count in counts.items():
        if not isinstance(answer, str):
            raise TypeError(f"counts keys must be str, got {type(answer).__name__}")
        count = require_int("counts", count)
        if count < 0:
            raise ValueError(f"counts must be >= 0, got {count} for {answer!r}")
        if count > 0:
            sizes[answer] = count
    num_none = require_int("num_none", num_none)
    if num_none < 0:
        raise ValueError(f"num_none must be >= 0, got {num_none}")
    n = sum(sizes.values()) + num_none
    if n < 1:
        raise ValueError("counts and num_none must describe at least one sample")
    if n > MAX_VOTES:
        raise ValueError(f"counts and num_none describe {n} samples, more than {MAX_VOTES}")
    k = require_int("k", k)
    if not 1 <= k <= n:
        raise ValueError(f"k must be in [1, n] = [1, {n}], got {k}")

    c = sizes.pop(correct, 0)  # what remains in sizes are the wrong answers
    favourable = Fraction(0)  # number of (subset, tie-share) outcomes where `correct` wins
    for j in range(1, min(c, k) + 1):
        pool = num_none + sum(size for size in sizes.values() if size < j)
        contenders = [size for size in sizes.values() if size >= j]
        # states[(s, t)] = ways to draw s samples from the contenders seen so far, each <= j,
        # with t of them drawn exactly j times.
        states: dict[tuple[int, int], int] = {(0, 0): 1}
        for size in contenders:
            grown: dict[tuple[int, int], int] = {}
            for (s, t), ways in states.items():
                for x in range(min(size, j, k - j - s) + 1):
                    key = (s + x, t + (x == j))
                    grown[key] = grown.get(key, 0) + ways * math.comb(size, x)
            states = grown
        wins = sum(
            Fraction(ways * math.comb(pool, k - j - s), t + 1) for (s, t), ways in states.items()
        )
        favourable += math.comb(c, j) * wins
    return float(favourable / math.comb(n, k))


def cons_at_k(answers: Sequence[str | None], correct: str, k: int) -> float:
    """Exact cons@k for one problem from its n sampled answers (None = unreadable).

    The probability that the plurality vote of a uniformly random size-k subset equals
    ``correct``; see ``cons_at_k_counts``. With k = n and no tie at the top this is
    ``float(majority_vote(answers) == correct)``; with a tie, the average of that over orders.
    """
    answers = require_sequence("answers", answers, max_len=MAX_VOTES)
    counts = vote_distribution(answers)  # also checks every entry is a str or None
    num_none = sum(answer is None for answer in answers)
    if not answers:
        raise ValueError("answers must contain at least one sample")
    correct = require_str("correct", correct)
    return cons_at_k_counts(counts, correct, k, num_none=num_none)


def mean_cons_at_k(benchmark: Iterable[tuple[Sequence[str | None], str]], k: int) -> float:
    """A benchmark's cons@k: the mean of ``cons_at_k`` over ``(answers, correct)`` pairs."""
    if isinstance(benchmark, str) or not isinstance(benchmark, Iterable):
        raise TypeError(
            f"benchmark must be an iterable of (answers, correct) pairs, got {type(benchmark)}"
        )
    scores = []
    for i, pair in enumerate(benchmark):
        if not isinstance(pair, Sequence) or len(pair) != 2:
            raise TypeError(f"benchmark must contain (answers, correct) pairs, got {pair!r}")
        scores.append(_per_item("benchmark", i, cons_at_k, pair[0], pair[1], k))
    if not scores:
        raise ValueError("benchmark must contain at least one problem")
    return math.fsum(scores) / len(scores)


# ---------------------------------------------------------------------------------------------
# Temperature and diversity on a toy benchmark.
# ---------------------------------------------------------------------------------------------
#
# A toy "model" for each problem: a handful of reasoning paths, each ending in a final answer
# (label 0 is the right one), and a logit per path. Sampling at temperature T picks a path from
# softmax(logits / T); greedy decoding (T = 0) always takes the top path. Many paths can reach
# the same answer, so the most likely *answer* need not be the answer of the most likely *path*:
# the gap self-consistency exploits. Hotter sampling also derails chains (a junk token somewhere
# in the chain) and a derailed chain ends with no answer.


def _real_array(name: str, logits: object) -> np.ndarray:
    """A non-empty finite real array (at least 1-D: softmax needs an axis)."""
    if isinstance(logits, (str, bytes)) or logits is None:
        raise TypeError(f"{name} must be an array of numbers, got {type(logits).__name__}")
    try:
        out = np.asarray(logits, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            f"{name} must be an array of numbers, got {type(logits).__name__}"
        ) from None
    if out.ndim == 0 or out.size == 0:
        raise ValueError(f"{name} must be a non-empty array, got shape {out.shape}")
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{name} must be finite")
    return out


def temperature_probs(logits: np.ndarray, temperature: float) -> np.ndarray:
    """softmax(logits / T) over the last axis; T = 0 is greedy decoding (all mass on the argmax)."""
    logits = _real_array("logits", logits)
    temperature = require_float("temperature", temperature, low=0.0)
    if temperature == 0:
        greedy = np.zeros_like(logits)
        np.put_along_axis(greedy, logits.argmax(axis=-1)[..., None], 1.0, axis=-1)
        return greedy
    with np.errstate(over="ignore"):  # a logit gap over T may pass 1e308: its exp is 0 anyway
        z = logits / temperature
        if not np.all(np.isfinite(z)):  # T below ~1e-308 overflows logits / T: shift first
            z = (logits - logits.max(axis=-1, keepdims=True)) / temperature
    z = np.exp(z - z.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def derail_probability(
    temperature: float, chain_tokens: int = 20, junk_tokens: int = 5, junk_gap: float = 6.0
) -> float:
    """P(a chain of `chain_tokens` tokens samples at least one junk token) at temperature T.

    At every step `junk_tokens` junk tokens sit `junk_gap` logits below the intended one, so
    each step goes wrong with probability J e^(-gap/T) / (1 + J e^(-gap/T)): negligible when cool,
    nearly certain over a long chain when hot. Greedy decoding never derails.

    With x = J e^(-gap/T) the answer is 1 - (1 + x)^(-n) = -expm1(-n log1p(x)): when cool, x is
    far below float epsilon (5e-26 at T = 0.1), and 1 - (1 + x)^(-n) would round to 0.0 where
    the answer is n x. log1p(x) = softplus(log x) is taken from log x, so a huge J cannot overflow.
    """
    temperature = require_float("temperature", temperature, low=0.0)
    chain_tokens = require_int("chain_tokens", chain_tokens, low=0, high=MAX_CHAIN)
    junk_tokens = require_int("junk_tokens", junk_tokens, low=0)
    junk_gap = require_float("junk_gap", junk_gap, low=0.0)
    if temperature == 0 or junk_tokens == 0 or chain_tokens == 0:
        return 0.0
    log_junk = math.log(junk_tokens) - junk_gap / temperature  # log x
    if log_junk > 0:  # log1p(x) = log x + log1p(1/x)
        log1p_junk = log_junk + math.log1p(math.exp(-log_junk))
    else:
        log1p_junk = math.log1p(math.exp(log_junk))
    return -math.expm1(-chain_tokens * log1p_junk)


def make_toy_benchmark(
    num_problems: int = 300, num_paths: int = 12, num_answers: int = 10, seed: int = 0
) -> dict[str, np.ndarray]:
    """A seeded toy benchmark: per problem, `num_paths` reasoning paths with logits and answers.

    Each problem gets a share q ~ Beta(2, 2) of paths that reach the right answer (label 0); the
    others land on one of the num_answers - 1 wrong answers. Path logits are N(0, 1), plus 0.3
    for right paths. Returns {"logits": (problems, paths), "answers": (problems, paths)}.
    """
    num_problems = require_int("num_problems", num_problems)
    num_paths = require_int("num_paths", num_paths)
    num_answers = require_int("num_answers", num_answers)
    if num_problems < 1 or num_paths < 1 or num_answers < 2:
        raise ValueError("need num_problems >= 1, num_paths >= 1 and num_answers >= 2")
    if num_problems * num_paths > MAX_CELLS:
        raise ValueError(f"num_problems x num_paths must be <= {MAX_CELLS}")
    rng = np.random.default_rng(require_seed("seed", seed))
    share = rng.beta(2.0, 2.0, size=num_problems)
    right = rng.random((num_problems, num_paths)) < share[:, None]
    answers = np.where(right, 0, rng.integers(1, num_answers, size=(num_problems, num_paths)))
    logits = rng.standard_normal((num_problems, num_paths)) + 0.3 * right
    return {"logits": logits, "answers": answers}


def sample_answers(
    benchmark: Mapping[str, np.ndarray], temperature: float, n: int, rng: np.random.Generator
) -> np.ndarray:
    """n sampled final answers per problem at temperature T; -1 marks a derailed chain."""
    logits, labels = _check_benchmark(benchmark)
    n = require_int("n", n, low=1)
    if logits.size * n > MAX_CELLS:
        raise ValueError(f"n x the benchmark's paths must be <= {MAX_CELLS}, got n={n}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    return _sample_answers(
        logits, labels, require_float("temperature", temperature, low=0.0), n, rng
    )


def _check_benchmark(benchmark: object) -> tuple[np.ndarray, np.ndarray]:
    """``{"logits": (problems, paths) finite, "answers": same-shape int labels >= 0}``."""
    if not isinstance(benchmark, Mapping) or not {"logits", "answers"} <= set(benchmark):
        raise TypeError("benchmark must be a mapping with 'logits' and 'answers' arrays")
    logits = _real_array("benchmark['logits']", benchmark["logits"])
    labels = benchmark["answers"]
    if not isinstance(labels, np.ndarray) or labels.dtype.kind not in "iu":
        raise TypeError("benchmark['answers'] must be an integer numpy array")
    if logits.ndim != 2 or labels.shape != logits.shape:
        raise ValueError("benchmark's logits and answers must share one (problems, paths) shape")
    if labels.min() < 0:
        raise ValueError("benchmark['answers'] must be labels >= 0")
    return logits, labels


def _sample_answers(logits, labels, temperature, n, rng) -> np.ndarray:
    probs = temperature_probs(logits, temperature)
    cdf = np.cumsum(probs, axis=1)
    cdf[:, -1] = 1.0
    paths = (rng.random((probs.shape[0], n))[:, :, None] > cdf[:, None, :]).sum(axis=2)
    answers = np.take_along_axis(labels, paths, axis=1)
    derailed = rng.random(answers.shape) < derail_probability(temperature)
    return np.where(derailed, -1, answers)


def _cons_at_k_per_problem(answers: np.ndarray, k: int, num_labels: int, rng) -> np.ndarray:
    """cons@k per problem: the vote of disjoint k-subsets of random permutations, averaged.

    Each k-subset of a random permutation is a uniformly random k-subset, so the average is an
    unbiased estimate of `cons_at_k`; permutations repeat until >= 32 subsets are scored.
    """
    problems, n = answers.shape
    per_perm = n // k
    repeats = max(1, -(-32 // per_perm))
    scores = np.zeros(problems)
    for _ in range(repeats):
        order = rng.permuted(np.tile(np.arange(n), (problems, 1)), axis=1)
        shuffled = np.take_along_axis(answers, order, axis=1)[:, : per_perm * k]
        groups = shuffled.reshape(problems * per_perm, k)
        scores += plurality_is_correct(groups, num_labels).reshape(problems, per_perm).mean(axis=1)
    return scores / repeats


def bootstrap_interval(
    per_problem: np.ndarray, rng: np.random.Generator, num_bootstrap: int
) -> tuple[float, float]:
    """95% percentile interval of the benchmark mean, resampling problems with replacement."""
    per_problem = np.asarray(_real_array("per_problem", per_problem))
    if per_problem.ndim != 1:
        raise ValueError(f"per_problem must be 1-D, got shape {per_problem.shape}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    num_bootstrap = require_int("num_bootstrap", num_bootstrap, low=1)
    if num_bootstrap * len(per_problem) > MAX_CELLS:
        raise ValueError(f"num_bootstrap x len(per_problem) must be <= {MAX_CELLS}")
    return _bootstrap(per_problem, rng, num_bootstrap)


def _bootstrap(per_problem: np.ndarray, rng: np.random.Generator, num_bootstrap: int):
    idx = rng.integers(0, len(per_problem), size=(num_bootstrap, len(per_problem)))
    lo, hi = np.percentile(per_problem[idx].mean(axis=1), [2.5, 97.5])
    return float(lo), float(hi)


def benchmark_curves(
    benchmark: Mapping[str, np.ndarray],
    temperatures: Sequence[float],
    ks: Sequence[int] = (1, 2, 4, 8, 16, 32, 64),
    n: int = 128,
    seed: int = 0,
    num_bootstrap: int = 400,
) -> list[dict[str, float]]:
    """pass@k and cons@k of a toy model at several temperatures, with 95% bootstrap intervals.

    For each temperature, draw n answers per problem, then score every k: pass@k with the
    unbiased estimator (`pass_at_k`) and cons@k by voting over random k-subsets. Returns records
    {"temperature", "metric" ("pass@k" | "cons@k"), "k", "value", "lo", "hi"}.
    """
    logits, labels = _check_benchmark(benchmark)
    n = require_int("n", n, low=1)
    if logits.size * n > MAX_CELLS:
        raise ValueError(f"n x the benchmark's paths must be <= {MAX_CELLS}, got n={n}")
    ks = require_sequence("ks", ks)
    if any(require_int("ks", k) < 1 or k > n for k in ks):
        raise ValueError(f"every k in ks must be in [1, n={n}], got {list(ks)}")
    temperatures = [
        require_float("temperatures", t, low=0.0)
        for t in require_sequence("temperatures", temperatures)
    ]
    num_bootstrap = require_int("num_bootstrap", num_bootstrap, low=1)
    if num_bootstrap * len(logits) > MAX_CELLS:
        raise ValueError(f"num_bootstrap x problems must be <= {MAX_CELLS}")
    num_labels = int(labels.max()) + 1
    rng = np.random.default_rng(require_seed("seed", seed))
    rows = []
    for temperature in temperatures:
        answers = _sample_answers(logits, labels, temperature, n, rng)
        correct = (answers == 0).sum(axis=1)
        for k in ks:
            per_problem = {
                "pass@k": np.array([pass_at_k(n, int(c), k) for c in correct]),
                "cons@k": _cons_at_k_per_problem(answers, k, num_labels, rng),
            }
            for metric, values in per_problem.items():
                lo, hi = _bootstrap(values, rng, num_bootstrap)
                rows.append(
                    {
                        "temperature": float(temperature),
                        "metric": metric,
                        "k": int(k),
                        "value": float(values.mean()),
                        "lo": lo,
                        "hi": hi,
                    }
                )
    return rows
