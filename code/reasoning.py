"""Self-consistency, Condorcet's jury theorem and best-of-N, from scratch.

Parallel test-time compute in four moves:

1. read the final answer out of a chain of thought (``extract_answer``);
2. tally the answers of many sampled chains and take the plurality (``majority_vote``);
3. explain why the vote helps: Condorcet's jury theorem for the worst case where every wrong
   vote lands on the same wrong answer (``condorcet_majority_prob``), and the exact curve when
   wrong answers scatter over several values (``plurality_vote_prob``);
4. spend the samples on a verifier instead (``best_of_n``) or on both (``weighted_vote``).

Everything is model-agnostic: a "reasoner" is any zero-argument callable returning a chain of
thought as a string, so the functions are tested here with small seeded stand-ins
(``NoisyReasoner``, ``SlipChainReasoner``) and wrap a real sampled ``generate`` call unchanged.
"""

import math
import random
import re
from collections.abc import Callable, Iterable, Sequence
from numbers import Real
from pathlib import Path

import numpy as np

from checks import (
    require_callable,
    require_float,
    require_int,
    require_path,
    require_prob,
    require_rows,
    require_seed,
    require_sequence,
    require_str,
)
from data_paths import VOTE_SIMS_PATH, read_json

__all__ = [
    "extract_answer",
    "vote_distribution",
    "majority_vote",
    "self_consistency",
    "NoisyReasoner",
    "solve_chain",
    "SlipChainReasoner",
    "condorcet_majority_prob",
    "plurality_vote_prob",
    "demonstrate_self_consistency",
    "plurality_is_correct",
    "best_of_n",
    "weighted_vote",
    "best_of_n_accuracy",
    "simulate_vote_vs_verifier",
    "load_vote_sims",
    "vote_sims",
]


# ---------------------------------------------------------------------------------------------
# Size caps: past these a call would run for minutes or allocate gigabytes (each is checked at
# the entry point that would do the work, and named in its error).
# ---------------------------------------------------------------------------------------------

MAX_SAMPLES = 100_000  # calls of a sampler in self_consistency / best_of_n
MAX_VOTERS = 1_000_000  # n of condorcet_majority_prob (log-space pmf of n + 1 terms)
MAX_PLURALITY_WORK = 10**8  # num_distractors**2 * n**3 of plurality_vote_prob (~5 s)
MAX_BEST_OF_N = 100_000  # n of best_of_n_accuracy (one quadrature per k)
MAX_CELLS = 50_000_000  # trials * n * labels of a vectorised vote (its one-hot array)
MAX_SEPARATION = 20.0  # |separation| of the simulation: exp(separation * score) stays finite


def _require_answers(answers: Iterable[str | None], name: str = "answers") -> list[str | None]:
    """Materialise an iterable of answers, checking every entry is a ``str`` or ``None``.

    A bare string is refused: iterating it would vote once per character.
    """
    if isinstance(answers, str) or not isinstance(answers, Iterable):
        raise TypeError(f"{name} must be an iterable of str | None, got {type(answers).__name__}")
    answers = require_sequence(name, answers)  # read no further than a cap: never endlessly
    for answer in answers:
        if answer is not None and not isinstance(answer, str):
            raise TypeError(f"{name} must contain only str or None, got {type(answer).__name__}")
    return answers


# ---------------------------------------------------------------------------------------------
# 1. Reading the answer out of a chain of thought.
# ---------------------------------------------------------------------------------------------

# A number as a model writes it: an optional sign, an optional "$", either digits grouped in
# thousands ("1,024", "12,345,678") or a plain run of digits, then optional decimals. The sign is
# only taken when it cannot be a subtraction: in "9-6" the "-" follows a digit, so the number is
# "6". Every quantifier here is a single character class or a fixed-width group, so matching is
# linear in the length of the text (no nested quantifiers that could backtrack exponentially).
_NUMBER = (
    r"(?:(?<![0-9A-Za-z)\]])[-+])?"  # a sign, unless it is a binary operator
    r"\$?"  # a currency sign
    r"(?:[0-9]{1,3}(?:,[0-9]{3})+(?![0-9])|[0-9]+)"  # 1,024 or 1024
    r"(?:\.[0-9]+)?"  # decimals; a bare trailing "." is a full stop, not part of the number
)

# The same grammar read right to left, for "the last number": reverse the text up to its last
# digit and match this at the start. The token then ends at the last digit by construction, and
# the engine never has to walk through every earlier number (a 1 MB "1,1,1,..." would otherwise
# mean half a million matches).
_NUMBER_REVERSED = re.compile(
    r"(?:[0-9]+\.)?"  # decimals, reversed
    r"(?:(?:[0-9]{3},)+[0-9]{1,3}(?![0-9])|[0-9]+)"  # thousands groups or plain digits, reversed
    r"\$?"
    r"(?:[-+](?![0-9A-Za-z)\]]))?"  # the sign, with the same "not an operator" rule
)

# Markers, in order of precedence. Each pattern starts with a greedy ``(?s:.*)``: the engine
# jumps to the end of the text and backs up, so the *last* marker followed by a number wins,
# found in one linear pass.
_GSM8K_MARKER = re.compile(r"(?s:.*)####\s*(" + _NUMBER + r")")
_ANSWER_IS = re.compile(r"(?s:.*)\banswer\s+is\b[\s:*]*(" + _NUMBER + r")", re.IGNORECASE)
_BOXED = re.compile(r"(?s:.*)\\boxed\{\s*(" + _NUMBER + r")\s*\}")


def _canonical_number(token: str) -> str:
    """Write a matched number so that equal values are equal strings.

    "$1,024.50" -> "1024.5", "+7" -> "7", "42.0" -> "42", "007" -> "7", "-0" -> "0".
    Plain string surgery rather than ``int``/``Decimal``: a 1 MB run of digits must stay cheap.
    """
    token = token.replace(",", "").replace("$", "")
    negative = token.startswith("-")
    token = token.lstrip("+-")
    whole, _, decimals = token.partition(".")
    whole = whole.lstrip("0") or "0"
    decimals = decimals.rstrip("0")
    body = f"{whole}.{decimals}" if decimals else whole
    return "-" + body if negative and body != "0" else body


def _last_number(text: str) -> str | None:
    """The number that ends at the last ASCII digit of ``text`` (read greedily leftwards)."""
    last_digit = max(text.rfind(digit) for digit in "0123456789")
    if last_digit < 0:
        return None
    reversed_prefix = text[last_digit::-1]
    match = _NUMBER_REVERSED.match(reversed_prefix)
    return match.group()[::-1]  # always matches: the prefix starts with a digit


def extract_answer(text: str) -> str | None:
    """Pull the final numeric answer out of a chain of thought.

    Precedence (the first rule that finds a number decides):

    1. the GSM8K marker ``#### N`` (the last marker followed by a number);
    2. "... answer is N" (case-insensitive, last occurrence; covers "The answer is" and
       "The final answer is", and tolerates ":" or markdown "**" before the number);
    3. ``\\boxed{N}`` (last occurrence);
    4. the last number anywhere in the text.

    The number is normalised so that votes for the same value do not split: thousands
    separators, a leading "$" or "+" and a trailing full stop are dropped, and decimals are
    canonical ("1,024." -> "1024", "42.50" -> "42.5", "42.0" -> "42", "-0" -> "0"). Only ASCII
    digits count; fractions and exponents are not parsed ("3/4" reads as "4").

    Returns None when the text contains no number. Runs in linear time (a few milliseconds per
    megabyte, adversarial inputs included).
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    for marker in (_GSM8K_MARKER, _ANSWER_IS, _BOXED):
        match = marker.match(text)
        if match is not None:
            return _canonical_number(match.group(1))
    token = _last_number(text)
    return None if token is None else _canonical_number(token)


# ---------------------------------------------------------------------------------------------
# 2. Voting.
# ---------------------------------------------------------------------------------------------


def vote_distribution(answers: Iterable[str | None]) -> dict[str, int]:
    """Tally the answers: ``{answer: count}`` in order of first appearance, ignoring None.

    None marks a chain whose answer could not be read; it abstains rather than voting.
    """
    tally: dict[str, int] = {}
    for answer in _require_answers(answers):
        if answer is not None:
            tally[answer] = tally.get(answer, 0) + 1
    return tally


def majority_vote(answers: Iterable[str | None]) -> str | None:
    """The plurality answer (the most common one), ignoring None.

    Tie rule: among answers tied at the top count, the one that appeared *first* in the sequence
    wins. The samples are exchangeable, so this is the same as breaking the tie uniformly at
    random, but reproducible. Returns None when no answer could be read.
    """
    tally = vote_distribution(answers)
    if not tally:
        return None
    # max() keeps the first maximal key, and the tally is in order of first appearance.
    return max(tally, key=tally.__getitem__)


def self_consistency(sample_fn: Callable[[], str], n: int) -> tuple[str | None, dict[str, int]]:
    """Sample ``n`` chains of thought, read each answer, and vote (Wang et al., 2022).

    Returns ``(majority_vote(answers), vote_distribution(answers))``; the reasoning paths are
    marginalised out and only the final answers are compared.
    """
    require_callable("sample_fn", sample_fn)
    n = require_int("n", n, low=1, high=MAX_SAMPLES)
    answers = [extract_answer(_sampled(sample_fn)) for _ in range(n)]
    return majority_vote(answers), vote_distribution(answers)


def _sampled(sample_fn: Callable[[], str]) -> str:
    """One chain from the caller's hook, checked here: junk is named as sample_fn's, not text's."""
    chain = sample_fn()
    if not isinstance(chain, str):
        raise TypeError(f"sample_fn must return a str, got {type(chain).__name__}")
    return chain


# ---------------------------------------------------------------------------------------------
# Stand-in reasoners: no model needed to watch the vote work.
# ---------------------------------------------------------------------------------------------


class NoisyReasoner:
    """A reasoner that is right with probability ``p`` and otherwise picks a wrong answer.

    The wrong answers ("distractors") are the first ``num_distractors`` non-negative integers
    written as strings, skipping ``correct`` if it is one of them; a wrong sample is uniform over
    them. Each ``sample()`` makes one ``rng.random()`` draw, plus one ``rng.choice`` when wrong.
    """

    def __init__(self, correct: str, p: float, num_distractors: int, seed: int) -> None:
        self.correct = require_str("correct", correct)
        self.p = require_prob("p", p)
        num_distractors = require_int("num_distractors", num_distractors, low=1, high=MAX_SAMPLES)
        self.seed = require_seed("seed", seed)
        self.distractors: tuple[str, ...] = tuple(
            str(i) for i in range(num_distractors + 1) if str(i) != correct
        )[:num_distractors]
        self._rng = random.Random(self.seed)

    def sample(self) -> str:
        """One sampled answer: ``correct`` with probability ``p``, else a random distractor."""
        if self._rng.random() < self.p:
            return self.correct
        return self._rng.choice(self.distractors)


_CHAIN_PROBLEM = re.compile(r"[0-9](?:[+-][0-9])+")


def _parse_problem(problem: str) -> tuple[int, list[tuple[str, int]]]:
    """Split "7+5-3" into the first operand and the (operator, operand) steps."""
    if not isinstance(problem, str):
        raise TypeError(f"problem must be a str, got {type(problem).__name__}")
    if _CHAIN_PROBLEM.fullmatch(problem) is None:
        raise ValueError(
            f"problem must look like '7+5-3' (single digits joined by + or -), got {problem!r}"
        )
    steps = [(problem[i], int(problem[i + 1])) for i in range(1, len(problem), 2)]
    return int(problem[0]), steps


def _write_chain(
    problem: str, rng: random.Random | None = None, slip_prob: float = 0.0
) -> tuple[str, int]:
    """Work ``problem`` left to right, one step per line of reasoning; return (chain, result).

    With an ``rng``, each step slips with probability ``slip_prob``: its result is off by
    +-1 or +-2, and the wrong value is carried into the next step, as a person's would be.
    """
    value, steps = _parse_problem(problem)
    lines = []
    for op, operand in steps:
        result = value + operand if op == "+" else value - operand
        if rng is not None and rng.random() < slip_prob:
            result += rng.choice((-2, -1, 1, 2))
        lines.append(f"{value}{op}{operand}={result}")
        value = result
    lines.append(f"####{value}")
    return ";".join(lines), value


def solve_chain(problem: str) -> str:
    """The correct chain of thought for a left-to-right problem such as "7+5-3-6+7".

    ``solve_chain("7+5-3-6+7") == "7+5=12;12-3=9;9-6=3;3+7=10;####10"``.
    """
    return _write_chain(problem)[0]


class SlipChainReasoner:
    """A reasoner that writes a real chain of thought but sometimes slips on a step.

    Each step of the left-to-right arithmetic is wrong with probability ``slip_prob`` (off by
    +-1 or +-2), and the error propagates, so different wrong chains usually end on *different*
    wrong answers while every clean chain ends on the same right one: the scattering that
    makes self-consistency work.
    """

    def __init__(self, problem: str, slip_prob: float, seed: int) -> None:
        _, self._correct = _write_chain(problem)  # validates problem
        self.problem = problem
        self.slip_prob = require_prob("slip_prob", slip_prob)
        self.seed = require_seed("seed", seed)
        self._rng = random.Random(self.seed)

    @property
    def answer(self) -> str:
        """The correct final answer, as ``extract_answer`` would read it."""
        return str(self._correct)

    def sample(self) -> str:
        """One sampled chain, e.g. "7+5=12;12-3=9;9-6=4;4+7=11;####11" (a slip at step 3)."""
        return _write_chain(self.problem, self._rng, self.slip_prob)[0]


# ---------------------------------------------------------------------------------------------
# 3. Why voting works: Condorcet (wrong votes collude) and plurality (wrong votes scatter).
# ---------------------------------------------------------------------------------------------


def _binomial_pmf(n: int, p: float) -> np.ndarray:
    """P(K = k) for K ~ Binomial(n, p), k = 0..n, computed in log space.

    log P(k) = log C(n, k) + k log p + (n - k) log(1 - p), with log C(n, k) from ``lgamma``.
    The terms are shifted by their maximum before ``exp`` (no overflow or underflow near the
    mode) and divided by their sum, which also cancels the rounding of the large ``lgamma``
    values shared by every term. Valid for n in the hundreds of thousands.
    """
    if p == 0.0 or p == 1.0:
        pmf = np.zeros(n + 1)
        pmf[n if p == 1.0 else 0] = 1.0
        return pmf
    log_factorial = np.array(list(map(math.lgamma, range(1, n + 2))))  # log k! for k = 0..n
    k = np.arange(n + 1)
    log_terms = (
        log_factorial[n]
        - (log_factorial[k] + log_factorial[n - k])  # grouped so that k and n - k round alike
        + k * math.log(p)
        + (n - k) * math.log1p(-p)
    )
    weights = np.exp(log_terms - log_terms.max())
    return weights / weights.sum()


def condorcet_majority_prob(p: float, n: int) -> float:
    """Condorcet's jury theorem: P(the majority of n independent voters is right).

    Each voter is right with probability p, and all wrong voters agree (the worst case):

        P(n) = sum_{k > n/2} C(n, k) p^k (1 - p)^(n - k).

    For even n, a tie (k = n/2) is settled by a fair coin and so adds half its probability;
    this keeps P(n) = 1/2 at p = 1/2 for every n. P(n) -> 1 for p > 1/2 and -> 0 for p < 1/2.
    """
    p = require_prob("p", p)
    n = require_int("n", n, low=1, high=MAX_VOTERS)
    pmf = _binomial_pmf(n, p)
    majority = float(np.sum(pmf[n // 2 + 1 :]))
    tie = 0.5 * float(pmf[n // 2]) if n % 2 == 0 else 0.0
    return min(1.0, majority + tie)


def plurality_vote_prob(p: float, n: int, num_distractors: int) -> float:
    """Exact P(the plurality vote of n samples is right) when wrong answers scatter.

    Each sample is right with probability p; otherwise it is one of ``num_distractors`` = D
    wrong answers, each with probability (1 - p) / D. The right answer wins when no wrong answer
    gets more votes; if it ties with t wrong answers at the top it wins with probability
    1 / (t + 1) (by exchangeability, the first-appearance rule of ``majority_vote`` favours each
    tied answer equally). D = 1 is Condorcet's theorem with the fair-coin tie.

    The algorithm, step by step:

    1. Condition on j, the number of votes for the right answer: Binomial(n, p).
    2. The other r = n - j votes are spread uniformly over the D wrong answers. Hand them out
       one wrong answer at a time: when u votes are left for m wrong answers, the next one
       takes c ~ Binomial(u, 1/m) of them (the last one takes all that remain). This is the
       multinomial, written as a chain of binomials so every number stays a probability.
    3. Keep only hand-outs with c <= j (no wrong answer beats the right one), and track
       t = how many wrong answers got exactly j (tied with the right one).
    4. After the last wrong answer, the surviving mass with t ties wins with weight 1 / (t + 1).

    Cost O(D^2 n^3) multiply-adds with tiny constants: fine for the n <= a few hundred a plot
    needs.
    """
    p = require_prob("p", p)
    n = require_int("n", n, low=1, high=MAX_VOTERS)
    num_distractors = require_int("num_distractors", num_distractors, low=1, high=MAX_VOTERS)
    if num_distractors**2 * n**3 > MAX_PLURALITY_WORK:
        raise ValueError(
            f"n and num_distractors ask for num_distractors**2 * n**3 = "
            f"{num_distractors**2 * n**3:.3g} steps, more than {MAX_PLURALITY_WORK:.0e}; "
            "simulate instead (demonstrate_self_consistency)"
        )

    # split[m][u][c] = P(Binomial(u, 1/m) = c): the next of m wrong answers takes c of u votes.
    split = {
        m: [_binomial_pmf(u, 1.0 / m).tolist() for u in range(n + 1)]
        for m in range(1, num_distractors + 1)
    }
    right_votes = _binomial_pmf(n, p)

    total = 0.0
    for j in range(1, n + 1):  # j = 0 never wins: some wrong answer has a vote
        if right_votes[j] == 0.0:
            continue
        r = n - j
        # state[u][t]: probability that u votes are still to hand out, t wrong answers so far
        # are tied with the right one, and none has exceeded it.
        state = [[0.0] * (num_distractors + 1) for _ in range(r + 1)]
        state[r][0] = 1.0
        for d in range(num_distractors):
            m = num_distractors - d  # wrong answers still to be served, this one included
            new = [[0.0] * (num_distractors + 1) for _ in range(r + 1)]
            for u in range(r + 1):
                for t in range(d + 1):
                    mass = state[u][t]
                    if mass == 0.0:
                        continue
                    for c in range(min(u, j) + 1):  # c > j would beat the right answer
                        new[u - c][t + (c == j)] += mass * split[m][u][c]
            state = new
        # Every vote must have been handed out (u = 0); t ties share the win.
        win = sum(state[0][t] / (t + 1) for t in range(num_distractors + 1))
        total += float(right_votes[j]) * win
    return min(1.0, total)


# ---------------------------------------------------------------------------------------------
# The compute-accuracy curve, measured.
# ---------------------------------------------------------------------------------------------


def plurality_is_correct(
    answers: np.ndarray, num_labels: int, weights: np.ndarray | None = None
) -> np.ndarray:
    """Row-wise ``majority_vote(row) == 0`` (or ``weighted_vote``) for integer answers.

    ``answers`` is a (trials, n) array of labels in [0, num_labels), label 0 being the right
    answer; a negative label is a sample with no answer (it casts no vote, like None). With
    ``weights`` (same shape, >= 0) each sample votes with its weight, as in
    ``weighted_vote``. Same rule as the scalar functions: the largest total wins and ties go to
    the answer seen first. This is the vectorised vote every simulation in the book uses.
    """
    answers, num_labels, weights = _check_votes(answers, num_labels, weights)
    return _plurality_is_correct(answers, num_labels, weights)


def _check_votes(answers: object, num_labels: object, weights: object):
    """(trials, n) integer labels, a label count, optional same-shape finite weights >= 0."""
    if not isinstance(answers, np.ndarray):
        raise TypeError(f"answers must be a numpy array, got {type(answers).__name__}")
    if answers.ndim != 2:
        raise ValueError(f"answers must be 2-D (trials, n), got shape {answers.shape}")
    if answers.dtype.kind not in "iu":
        raise TypeError(f"answers must hold integer labels, got dtype {answers.dtype}")
    num_labels = require_int("num_labels", num_labels, low=1)
    if answers.size * num_labels > MAX_CELLS:
        raise ValueError(
            f"answers x num_labels = {answers.size * num_labels} cells, more than {MAX_CELLS}"
        )
    if weights is not None:
        if not isinstance(weights, np.ndarray):
            raise TypeError(f"weights must be a numpy array or None, got {type(weights).__name__}")
        if weights.shape != answers.shape:
            raise ValueError(
                f"weights must have the shape of answers {answers.shape}, got {weights.shape}"
            )
        if weights.dtype.kind not in "iuf" or weights.dtype == bool:
            raise TypeError(f"weights must be real numbers, got dtype {weights.dtype}")
        if not (np.isfinite(weights).all() and (weights >= 0).all()):
            raise ValueError("weights must be finite and >= 0")
    return answers, num_labels, weights


def _plurality_is_correct(
    answers: np.ndarray, num_labels: int, weights: np.ndarray | None = None
) -> np.ndarray:
    num_samples = answers.shape[1]
    one_hot = answers[:, :, None] == np.arange(num_labels)  # (trials, n, labels)
    if weights is None:
        totals = one_hot.sum(axis=1)  # (trials, labels)
    else:
        totals = (one_hot * weights[:, :, None]).sum(axis=1)
    first_seen = np.where(one_hot.any(axis=1), one_hot.argmax(axis=1), num_samples)
    tied_at_top = totals == totals.max(axis=1, keepdims=True)
    # Among the labels tied at the top total, the earliest one wins.
    winner = np.where(tied_at_top, first_seen, num_samples + 1).argmin(axis=1)
    return (winner == 0) & one_hot.any(axis=(1, 2))  # nobody answered: no vote, not right


def _closing_lines(p: float, num_distractors: int) -> list[str]:
    """Two honest sentences on what the table shows for this p and number of distractors."""
    if p > 0.5:
        trend = [
            "  Since p > 1/2, accuracy grows with n: more samples (more test-time",
            "  compute) buy a more reliable answer.",
        ]
    elif p > (1.0 - p) / num_distractors:
        trend = [
            "  With p <= 1/2 the binary Condorcet bound cannot rise, but the right",
            "  answer is still the most likely single answer, so the plurality",
            "  vote still tends to 1 as n grows.",
        ]
    else:
        trend = [
            "  The right answer is not the most likely single answer here, so extra",
            "  samples cannot rescue the vote: they make it confidently wrong.",
        ]
    if num_distractors > 1:
        scatter = [
            "  The measured column sits on or above Condorcet's because wrong votes",
            f"  split over {num_distractors} answers instead of ganging up on one.",
        ]
    else:
        scatter = ["  With a single wrong answer both columns estimate the same quantity."]
    return trend + scatter


def demonstrate_self_consistency(
    p: float = 0.55,
    num_distractors: int = 4,
    trials: int = 3000,
    seed: int = 0,
    ns: Sequence[int] = (1, 3, 5, 11, 21, 41),
    verbose: bool = True,
) -> dict[int, float]:
    """Measure self-consistency accuracy against the number of samples n (Monte Carlo).

    For each n, ``trials`` independent problems each get n sampled answers (0 = right, with
    probability p; otherwise uniform over the wrong answers 1..num_distractors), and the
    plurality vote (ties to the first appearance) is scored. Returns ``{n: accuracy}``; the
    exact value is ``plurality_vote_prob(p, n, num_distractors)``. ``verbose`` prints the
    table beside the Condorcet bound.
    """
    p = require_prob("p", p)
    num_distractors = require_int("num_distractors", num_distractors, low=1)
    trials = require_int("trials", trials, low=1, high=MAX_CELLS)
    seed = require_seed("seed", seed)
    ns = [
        require_int("ns", n, low=1, high=MAX_CELLS) for n in require_sequence("ns", ns, min_len=1)
    ]
    if len(set(ns)) != len(ns):
        raise ValueError(f"ns must not repeat a sample count, got {ns}")
    if trials * max(ns) * (num_distractors + 1) > MAX_CELLS:
        raise ValueError(f"trials x max(ns) x (num_distractors + 1) must be <= {MAX_CELLS}")

    rng = np.random.default_rng(seed)
    accuracy: dict[int, float] = {}
    for n in ns:
        is_right = rng.random((trials, n)) < p
        wrong = rng.integers(1, num_distractors + 1, size=(trials, n))
        answers = np.where(is_right, 0, wrong)
        accuracy[n] = float(_plurality_is_correct(answers, num_distractors + 1).mean())

    if verbose:
        rule = "=" * 60
        print(rule)
        print("SELF-CONSISTENCY: accuracy vs. samples (test-time compute)")
        print(rule)
        print(
            f"  per-sample accuracy p = {p:g}, distractors = {num_distractors}, trials = {trials}"
        )
        print()
        print(f"{'n':>6}{'empirical':>12}{'Condorcet':>12}")
        for n, acc in accuracy.items():
            print(f"{n:>6}{acc:>12.3f}{condorcet_majority_prob(p, n):>12.3f}")
        print()
        print("\n".join(_closing_lines(p, num_distractors)))
    return accuracy


# ---------------------------------------------------------------------------------------------
# 4. Verifiers: best-of-N and weighted voting.
# ---------------------------------------------------------------------------------------------


def best_of_n(sample_fn: Callable[[], str], score_fn: Callable[[str], float], n: int) -> str:
    """Sample ``n`` candidates and return the one ``score_fn`` (a verifier) rates highest.

    Ties go to the earliest sample. Unlike voting, a single good sample can win even when it is
    outnumbered, so best-of-N is only as good as its verifier.
    """
    require_callable("sample_fn", sample_fn)
    require_callable("score_fn", score_fn)
    n = require_int("n", n, low=1, high=MAX_SAMPLES)
    best, best_score = None, -math.inf
    for _ in range(n):
        candidate = _sampled(sample_fn)
        # +-inf is a verdict (certainly right / wrong); NaN, a str or 10**400 is named
        score = require_float("score_fn's score", score_fn(candidate), finite=False)
        # Strictly greater: an equal score never displaces an earlier sample.
        if best is None or score > best_score:
            best, best_score = candidate, float(score)
    return best


def weighted_vote(answers: Sequence[str | None], scores: Sequence[float]) -> str | None:
    """Voting and verification combined: each answer votes with weight = its verifier score.

    Returns the answer with the largest total weight, ties (including all-zero weights) to the
    answer that appeared first; None answers are ignored, and None is returned if every answer
    is None. Scores must be finite and >= 0, one per answer. With all scores equal this is
    ``majority_vote``.
    """
    answers = _require_answers(answers)
    if isinstance(scores, str) or not isinstance(scores, Iterable):
        raise TypeError(f"scores must be a sequence of numbers, got {type(scores).__name__}")
    scores = list(scores)
    if len(scores) != len(answers):
        raise ValueError(
            f"scores must have one entry per answer: {len(scores)} scores, {len(answers)} answers"
        )
    weights: dict[str, list[float]] = {}  # insertion order = first appearance
    for answer, score in zip(answers, scores, strict=True):
        if isinstance(score, bool) or not isinstance(score, Real):
            raise TypeError(f"scores must contain real numbers, got {type(score).__name__}")
        if not math.isfinite(score) or score < 0:
            raise ValueError(f"scores must be finite and >= 0, got {score}")
        if answer is not None:
            weights.setdefault(answer, []).append(float(score))
    if not weights:
        return None
    # fsum makes each total independent of the order its weights arrived in.
    totals = {answer: math.fsum(ws) for answer, ws in weights.items()}
    return max(totals, key=totals.__getitem__)


# ---------------------------------------------------------------------------------------------
# 5. Voting or a verifier? An exact model and its simulation.
# ---------------------------------------------------------------------------------------------
#
# A sample is right with probability p. A verifier scores it: N(separation, 1) if it is right,
# N(0, 1) if it is wrong. `separation` is the verifier's quality in standard deviations
# (0 = useless, 3 = very good). Best-of-N is right when the best right sample outscores the
# best wrong one.

SEPARATION_LIMIT = 64.0  # |separation| of best_of_n_accuracy beyond which the answer is its limit
_GRID_HALF_WIDTH, _GRID_STEPS = 9.0, 1800  # the integration grid (widgets/voting.js uses the same)


def _grid(d: float) -> np.ndarray:
    """Where the integrand lives, sampled finely enough for the trapezoid rule.

    The integrand carries the factor pdf(x - d), below 1e-17 more than 9 standard deviations
    from d, so [d - 9, d + 9] holds all of it. The book's original grid spans [min(0, d) - 9,
    max(0, d) + 9] in 1800 steps, which contains that window; it is kept while its step is
    at most 0.02 (|d| <= 18) so the numbers the book prints (and widgets/voting.js) do not move.
    Beyond that its step would outgrow the width-1 peak, and the window is sampled instead.
    """
    lo, hi = min(0.0, d) - _GRID_HALF_WIDTH, max(0.0, d) + _GRID_HALF_WIDTH
    if (hi - lo) / _GRID_STEPS > 0.02:
        lo, hi = d - _GRID_HALF_WIDTH, d + _GRID_HALF_WIDTH
    return np.linspace(lo, hi, _GRID_STEPS + 1)


def _normal_cdf(x: np.ndarray) -> np.ndarray:
    return 0.5 * np.array([math.erfc(-v / math.sqrt(2.0)) for v in x])


def best_of_n_accuracy(p: float, n: int, separation: float) -> float:
    """Exact P(the verifier's favourite of n samples is right) under the Gaussian-score model.

    With k right samples (probability Binomial(n, p)), the top score belongs to a right sample
    with probability  integral k * pdf(x - d) * cdf(x - d)^(k-1) * cdf(x)^(n-k) dx : the density
    that the best right sample scores x, times the chance every wrong one scores below x.
    """
    p = require_prob("p", p)
    n = require_int("n", n, low=1, high=MAX_BEST_OF_N)
    # Past |d| = 64 the answer is its limit to far below float precision (a wrong sample beats
    # a right one with probability Phi(-64 / sqrt 2) < 1e-400), while x - d loses its digits
    # once |d| nears 1e16 (1e17 gave 1.0, 1e300 gave p^n, for 1 - (1 - p)^n): clamp d there.
    d = min(max(require_float("separation", separation), -SEPARATION_LIMIT), SEPARATION_LIMIT)
    xs = _grid(d)
    pdf_right = np.exp(-0.5 * (xs - d) ** 2) / math.sqrt(2.0 * math.pi)
    cdf_right, cdf_wrong = _normal_cdf(xs - d), _normal_cdf(xs)
    pmf = _binomial_pmf(n, p)
    total = float(pmf[n])  # every sample right: so is the favourite
    for k in range(1, n):
        if pmf[k] < 1e-15:
            continue
        integrand = k * pdf_right * cdf_right ** (k - 1) * cdf_wrong ** (n - k)
        total += float(pmf[k]) * float(np.trapezoid(integrand, xs))
    return min(1.0, total)


def simulate_vote_vs_verifier(
    p: float,
    num_distractors: int,
    separation: float,
    ns: Sequence[int] = (1, 2, 4, 8, 16, 32, 64),
    trials: int = 2000,
    seed: int = 0,
) -> list[dict[str, float]]:
    """Monte-Carlo accuracy of majority vote, best-of-N and the verifier-weighted vote.

    Wrong samples land uniformly on ``num_distractors`` wrong answers. The weighted vote gives
    each sample the weight exp(separation * score), the verifier's likelihood ratio of "right"
    to "wrong" (up to a constant), so a useless verifier (separation 0) reduces it to the plain
    vote. Returns one record per n: {"n", "vote", "best_of_n", "weighted"}.
    """
    p = require_prob("p", p)
    num_distractors = require_int("num_distractors", num_distractors, low=1)
    trials = require_int("trials", trials, low=1, high=MAX_CELLS)
    separation = require_float("separation", separation, low=-MAX_SEPARATION, high=MAX_SEPARATION)
    ns = [require_int("ns", n, low=1, high=MAX_CELLS) for n in require_sequence("ns", ns)]
    if ns and trials * max(ns) * (num_distractors + 1) > MAX_CELLS:
        raise ValueError(f"trials x max(ns) x (num_distractors + 1) must be <= {MAX_CELLS}")
    rng = np.random.default_rng(require_seed("seed", seed))
    rows = []
    for n in ns:
        right = rng.random((trials, n)) < p
        answers = np.where(right, 0, rng.integers(1, num_distractors + 1, size=(trials, n)))
        scores = rng.standard_normal((trials, n)) + separation * right
        favourite = scores.argmax(axis=1)
        rows.append(
            {
                "n": n,
                "vote": float(_plurality_is_correct(answers, num_distractors + 1).mean()),
                "best_of_n": float(right[np.arange(trials), favourite].mean()),
                "weighted": float(
                    _plurality_is_correct(
                        answers, num_distractors + 1, weights=np.exp(separation * scores)
                    ).mean()
                ),
            }
        )
    return rows


def load_vote_sims(path: Path = VOTE_SIMS_PATH) -> dict:
    """``data/vote_sims.json``: the Monte-Carlo dots of chapter 2's two voting widgets.

    ``{"condorcet": {"trials", "rows": [{p, D, n, acc}]}, "vote_vs_verifier": {"trials", "rows":
    [{p, separation, n, vote, best_of_n, weighted}]}}``, every field checked and a bad one named
    by file and place (``path ...: condorcet.rows[3]['acc'] ...``).
    """
    path = require_path("path", path)
    doc = read_json(path)
    tables = {"condorcet": ("p", "D", "n", "acc"),
              "vote_vs_verifier": ("p", "separation", "n", "vote", "best_of_n", "weighted")}
    if not isinstance(doc, dict) or not set(tables) <= set(doc):
        raise ValueError(f"path {path} holds no {sorted(tables)}: not a vote_sims record")
    for key, numbers in tables.items():
        where = f"path {path}: {key}"
        if not isinstance(doc[key], dict) or not {"trials", "rows"} <= set(doc[key]):
            raise ValueError(f"{where} must be an object with 'trials' and 'rows'")
        require_int(f"{where}.trials", doc[key]["trials"], low=1)
        require_rows(f"{where}.rows", doc[key]["rows"], numbers)
    return doc


# The Monte-Carlo dots of chapter 2's two voting widgets (data/vote_sims.json): the widgets draw
# the exact curves live, these seeded simulations beside them.
CONDORCET_TRIALS, CONDORCET_NS = 2000, (1, 3, 5, 9, 15, 21, 31, 41)
VV_TRIALS, VV_NS = 1500, (1, 2, 4, 8, 16, 32, 64)


def vote_sims() -> dict:
    """What ``data/vote_sims.json`` holds: both widgets' simulated points, each seeded.

    * ``condorcet``: :func:`demonstrate_self_consistency` at p = 0.05, 0.10, ..., 0.95 and
      D = 1, 2, 4, 8 wrong answers, 2000 questions a point, for the voter counts CONDORCET_NS;
    * ``vote_vs_verifier``: :func:`simulate_vote_vs_verifier` at p = 0.1 ... 0.6 and verifier
      separation 0, 1, 2, 3, 1500 questions a point, for N = 1 ... 64 samples.

    Every point has its own seed, so the result is the same on every machine.
    """
    condorcet = []
    for i, p in enumerate(np.round(np.arange(0.05, 0.951, 0.05), 2)):
        for d in (1, 2, 4, 8):
            acc = demonstrate_self_consistency(
                p=float(p), num_distractors=d, trials=CONDORCET_TRIALS, seed=1000 + 10 * i + d,
                ns=CONDORCET_NS, verbose=False,
            )  # fmt: skip
            condorcet += [{"p": float(p), "D": d, "n": n, "acc": a} for n, a in acc.items()]
    vote_vs_verifier = []
    for p in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6):
        for sep in (0.0, 1.0, 2.0, 3.0):
            sim = simulate_vote_vs_verifier(
                p=p, num_distractors=4, separation=sep, ns=VV_NS, trials=VV_TRIALS,
                seed=int(100 * p + 10 * sep),
            )  # fmt: skip
            vote_vs_verifier += [{"p": p, "separation": sep, **row} for row in sim]
    return {
        "condorcet": {"trials": CONDORCET_TRIALS, "rows": condorcet},
        "vote_vs_verifier": {"trials": VV_TRIALS, "rows": vote_vs_verifier},
    }
