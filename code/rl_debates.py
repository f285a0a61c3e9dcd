"""What RL teaches the tiny reasoner: the 2025 debates' experiments as jobs of the graph.

Four questions, each a set of seeded runs from chapter 12's models (`r1_experiments.graph`):

1. sharpening or new ability (Yue et al. 2025): pass@k to k = 256 of a model before and after
   RL, from `DEEP_SAMPLES` samples of each of the 500 held-out problems (`deep_<model>`);
2. what RL can reach (Wu et al. 2025): the same counts, problem by problem;
3. spurious rewards (Shao et al. 2025): GRPO paid a random or a format-only reward, with its
   trust region acting (two gradient steps a batch, the second off-policy) or never acting
   (one step a batch: on-policy, every ratio exactly 1) (`spurious_<reward>_<arm>_s<seed>`);
4. one example (Wang et al. 2025): GRPO on one or four training problems (`few<n>_s<seed>`),
   chosen as the problems the cold start is least sure of (`informative_pool`).

    base4 ─► deep_base4           zero_s0 ─► deep_zero_s0          (`deep_models`)
    cold ─► deep_cold    rl_grpo_s<seed> ─► deep_rl_grpo_s<seed>
    cold ─► spurious_<random|format>_<clip|noclip>_s<seed>,  few<1|4>_s<seed>  (`EVERY_SEED`)

Each RL run has chapter 12's length and check-ups (`Settings.rl_steps`, `eval_every`) and ends
with `RUN_FINAL_SAMPLES` samples a problem. Every job runs on one thread and is seeded.
"""

from __future__ import annotations

import json
import random

from checks import require_choice, require_int, require_seed
from data_paths import RL_DEBATES_PATH
from job_graph import Job, Output
from r1_experiments import Settings, _held_out, _require_job, _round, model_of, rl_output

DEEP_SAMPLES = 256  # samples per held-out problem for pass@k up to k = 256
DEEP_KS = tuple(2**i for i in range(9))  # 1, 2, 4, ..., 256
RUN_FINAL_SAMPLES = 32  # samples per problem in each debate run's final evaluation
#: The spurious-reward arms: how many gradient steps each batch of samples gets. With two, the
#: second is off-policy and GRPO's clip acts; with one, every ratio is 1 and it never does.
ARMS = {"clip": 2, "noclip": 1}
SPURIOUS_REWARDS = ("random", "format")
FEW_PROBLEMS = (1, 4)
#: The experiments run with every seed of the settings: the random reward (both arms) and the
#: one-problem pool, the questions' main cases. The format reward and the four-problem pool, their
#: companions, run with the first seed only (two runs fewer each, about 20 minutes of compute).
EVERY_SEED = ("random", 1)
POOL_SAMPLES = 16  # samples per candidate problem when choosing a pool
POOL_CANDIDATES = 200  # the training problems a pool is chosen from


def job_deep_eval(name: str, s: Settings, model: Output) -> Output:
    """`DEEP_SAMPLES` seeded samples of each held-out problem from ``model``: counts, pass@k."""
    from r1_pipeline import evaluate

    _require_job(name, s, model=model)
    samples = min(DEEP_SAMPLES, 4 * s.final_eval_samples)  # the smoke graph's is small
    ks = [k for k in DEEP_KS if k <= samples]
    final = evaluate(model_of(model), _held_out(s), samples, seed=s.eval_seed, ks=ks)
    return Output(name, {"kind": "deep_eval", "model": model.name, "final": final})


def job_spurious(name: str, s: Settings, reward: str, arm: str, seed: int, cold: Output) -> Output:
    """GRPO from ``cold`` paid a ``reward`` that ignores the answer, in arm ``arm`` (`ARMS`)."""
    from rl_reasoner import RLConfig

    _require_job(name, s, cold=cold)
    require_choice("reward", reward, SPURIOUS_REWARDS)
    require_choice("arm", arm, tuple(ARMS))
    require_seed("seed", seed)
    cfg = RLConfig.preset("grpo", **{**s.rl_overrides, "reward": reward, "inner_steps": ARMS[arm]})
    return rl_output(name, s, cfg, seed, cold, RUN_FINAL_SAMPLES, arm=arm)


def informative_pool(model, n: int, seed: int, samples: int = POOL_SAMPLES) -> dict:
    """``n`` training problems whose groups disagree most: of `POOL_CANDIDATES` distinct
    train-split problems from a stream seeded ``seed``, the ``n`` whose share solved in
    ``samples`` seeded samples is nearest 1/2 (ties in stream order); every share is recorded.

    A problem the model always or never solves gives GRPO no signal (every advantage is 0), so,
    as Wang et al. chose their one example by how much its training accuracy varied, the pool
    holds problems on which the model is least sure."""
    from arithmetic_task import random_problem
    from r1_pipeline import evaluate
    from tiny_gpt import TinyGPT

    if not isinstance(model, TinyGPT):
        raise TypeError(f"model must be a TinyGPT, got {type(model).__name__}")
    n = require_int("n", n, low=1, high=POOL_CANDIDATES)
    seed = require_seed("seed", seed)
    samples = require_int("samples", samples, low=2, high=1024)
    rng = random.Random(seed)
    seen: dict[str, None] = {}
    while len(seen) < POOL_CANDIDATES:
        seen.setdefault(random_problem(rng, "train"))
    candidates = list(seen)
    counts = evaluate(model, candidates, samples, seed=seed, ks=(1,), num_bootstrap=1)["counts"]
    # Nearest 1/2 in exact integers (|2c - samples|), so no float decides the choice.
    order = sorted(range(len(candidates)), key=lambda i: (abs(2 * counts[i] - samples), i))
    return {
        "pool": [candidates[i] for i in order[:n]],
        "samples": samples,
        "shares": {p: c / samples for p, c in zip(candidates, counts, strict=True)},
    }


def job_few(name: str, s: Settings, n: int, seed: int, cold: Output) -> Output:
    """GRPO from ``cold`` on ``n`` training problems only (`informative_pool`), seed ``seed``."""
    from rl_reasoner import RLConfig

    _require_job(name, s, cold=cold)
    n = require_int("n", n, low=1, high=64)
    seed = require_seed("seed", seed)
    chosen = informative_pool(model_of(cold), n, seed)
    cfg = RLConfig.preset("grpo", **{**s.rl_overrides, "problem_pool": tuple(chosen["pool"])})
    return rl_output(name, s, cfg, seed, cold, RUN_FINAL_SAMPLES, pool_choice=chosen)


def deep_models(s: Settings) -> tuple[str, ...]:
    """The models whose pass@k is measured to k = 256: the pretrained base and its R1-Zero run
    (the first seed), the cold start and its GRPO runs (every seed)."""
    if not isinstance(s, Settings):
        raise TypeError(f"s must be a Settings, got {type(s).__name__}")
    grpo = tuple(f"rl_grpo_s{seed}" for seed in s.seeds)
    return ("base4", f"zero_s{s.seeds[0]}", "cold", *grpo)


def graph(s: Settings | None = None) -> dict[str, Job]:
    """The debate jobs by name; their dependencies are jobs of `r1_experiments.graph`."""
    s = Settings() if s is None else s
    if not isinstance(s, Settings):
        raise TypeError(f"s must be a Settings or None, got {type(s).__name__}")
    jobs = [Job(f"deep_{m}", job_deep_eval, (s,), (m,)) for m in deep_models(s)]
    for seed in s.seeds:
        for reward in SPURIOUS_REWARDS:
            if seed != s.seeds[0] and reward not in EVERY_SEED:
                continue
            for arm in ARMS:
                name = f"spurious_{reward}_{arm}_s{seed}"
                jobs.append(Job(name, job_spurious, (s, reward, arm, seed), ("cold",)))
        for n in FEW_PROBLEMS:
            if seed == s.seeds[0] or n in EVERY_SEED:
                jobs.append(Job(f"few{n}_s{seed}", job_few, (s, n, seed), ("cold",)))
    return {job.name: job for job in jobs}


# ---------------------------------------------------------------------------------------------
# data/rl_debates.json: what the chapter reads
# ---------------------------------------------------------------------------------------------

HISTORY_KEYS = ("step", "reward", "accuracy", "clip_fraction", "kl", "length_correct",
                "length_wrong", "zero_advantage_groups")  # the per-step statistics it reads


def _final_part(final: dict) -> dict:
    keep = ("samples_per_problem", "counts", "pass_at_k", "pass_at_k_ci", "length_right",
            "length_wrong", "length", "mode_share")
    return {k: final[k] for k in keep}


def _run_part(record: dict) -> dict:
    """What the chapter needs of one RL record: its setup, curves and final evaluation."""
    out = {
        "start": record["start"],
        "seed": record["seed"],
        "reward": record["config"].get("reward", "verifiable"),
        "inner_steps": record["config"]["inner_steps"],
        "pool": list(record["config"]["problem_pool"]),
        "curve": [{"step": c["step"], "pass_at_1": c["pass_at_k"]["1"],
                   "ci": c["pass_at_k_ci"]["1"]} for c in record["curve"]],
        "history": [{k: h[k] for k in HISTORY_KEYS} for h in record["history"]],
        "final": _final_part(record["final"]),
        "wall_seconds": record["timing"]["wall_seconds"],
    }
    if "pool_choice" in record:  # the chosen problems' shares solved by the start, before RL
        shares = record["pool_choice"]["shares"]
        out["pool_shares"] = [shares[p] for p in out["pool"]]
    return out


def gathered(s: Settings) -> tuple[str, ...]:
    """The jobs whose records data/rl_debates.json gathers: the debate jobs, the full GRPO runs
    they are measured against, and the models they start from (for the wall time)."""
    if not isinstance(s, Settings):
        raise TypeError(f"s must be a Settings, got {type(s).__name__}")
    full = tuple(f"rl_grpo_s{seed}" for seed in s.seeds)
    return (*graph(s), *full, "base4", "cold", f"zero_s{s.seeds[0]}")


def job_rl_debates(name: str, s: Settings, *runs: Output) -> Output:
    """data/rl_debates.json: every record of `gathered`, cut to what the chapter reads.

    ``deep`` holds each deep evaluation (counts of right chains per held-out problem out of
    ``samples_per_problem``, pass@k with 95% intervals); ``runs`` each RL run (debate runs, the
    full GRPO runs and the R1-Zero run), floats rounded to four places; ``held_out`` the
    evaluation problems, in the order of every ``counts``; ``wall_seconds`` each timed job's.
    """
    _require_job(name, s, **{f"runs[{i}]": r for i, r in enumerate(runs)})
    by_name = {r.name: json.loads(json.dumps(r.record)) for r in runs}
    missing = sorted(set(gathered(s)) - set(by_name))
    if missing:
        raise ValueError(f"runs must hold every gathered job's Output; missing {missing[:6]}")
    deep, rl = {}, {}
    for run_name in sorted(by_name):
        record = by_name[run_name]
        if record["kind"] == "deep_eval":
            deep[record["model"]] = _final_part(record["final"])
        elif record["kind"] == "rl":
            rl[run_name] = _run_part(record)
    samples = {d["samples_per_problem"] for d in deep.values()}
    if len(samples) != 1:
        raise ValueError(f"runs: the deep evaluations must share one sample count, got {samples}")
    doc = {
        "settings": {  # the deep evaluations' samples and ks (the smoke graph's are fewer)
            "deep_samples": samples.pop(),
            "deep_ks": sorted(int(k) for k in next(iter(deep.values()))["pass_at_k"]),
            "run_final_samples": RUN_FINAL_SAMPLES, "arms": ARMS,
            "pool_candidates": POOL_CANDIDATES, "pool_samples": POOL_SAMPLES,
            "rl_steps": s.rl_steps, "eval_every": s.eval_every,
            "curve_samples": s.curve_samples, "eval_seed": s.eval_seed, "seeds": list(s.seeds),
        },
        "held_out": _held_out(s),
        "deep": _round(deep),
        "runs": _round(rl),
        # A deep evaluation records no timing; the closing note's wall time counts the rest.
        "wall_seconds": {n: r["timing"]["wall_seconds"] for n, r in sorted(by_name.items())
                         if "timing" in r},
    }
    content = (json.dumps(doc, separators=(",", ":")) + "\n").encode()
    return Output(name, {"kind": "data", "records": len(by_name)}, {RL_DEBATES_PATH.name: content})
