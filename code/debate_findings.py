"""What RL taught the tiny reasoner: chapter 14's reading of data/rl_debates.json.

The runs are jobs of the graph (`rl_debates`); this module only reads their records back and
computes what the chapter prints, so it imports none of the jobs. Every comparison of
two models is *paired*: both were evaluated on the same held-out problems, so a difference is
taken problem by problem and its 95% interval comes from resampling problems
(`evaluation.bootstrap_interval`), which cancels the problems' own spread of difficulty.

    load_debates       the records, checked
    pass_at_k_rows     each deep-evaluated model's pass@k with its band, k = 1 ... 256
    paired_gap         after - before at one k, with its interval
    crossover          the gap at every k; the first k where the start model leads
    crossover_table    every pair's gap at every recorded k, as the chapter prints it
    reach              problems solved at least once in all samples: gained, lost, by kind
    spurious_table     GRPO paid a reward that ignores the answer, with and without the clip
    few_table          GRPO on one or four problems, against full training
    run_curves         each run's held-out check-ups and per-step reward paid and training
                       accuracy, as columns (what the runs chart draws)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from arithmetic_task import require_problems
from checks import require_choice, require_int
from data_paths import RL_DEBATES_PATH, read_json
from decimals import fixed, signed
from evaluation import bootstrap_interval, pass_at_k

#: The deep-evaluated models, as the chapter names them.
MODEL_LABELS = {
    "base4": "pre-trained base",
    "zero_s0": "R1-Zero (GRPO from the base)",
    "cold": "cold start",
    "rl_grpo_s0": "GRPO, seed 0",
    "rl_grpo_s1": "GRPO, seed 1",
}
#: The before/after pairs of question 1, by the name of the model after RL.
PAIRS = {"rl_grpo_s0": "cold", "rl_grpo_s1": "cold", "zero_s0": "base4"}
#: The spurious-reward runs' arms and rewards, in the words the tables and widgets print.
ARM_LABELS = {"clip": "clip acting", "noclip": "clip never acting"}
REWARD_LABELS = {"random": "random", "format": "format only", "verifiable": "the verifier's"}
#: The runs chart's series: each run's held-out check-ups, and its training groups' reward
#: paid and accuracy at every step (the spurious-reward paper's "reward beside accuracy").
RUN_SERIES = ("held-out pass@1", "reward paid", "training accuracy")
NUM_BOOTSTRAP = 1000
BOOTSTRAP_SEED = 0
_KEYS = ("settings", "held_out", "deep", "runs", "wall_seconds")


def load_debates(path: Path = RL_DEBATES_PATH) -> dict:
    """The debate records (`rl_debates.job_rl_debates` wrote them), checked for their parts."""
    doc = read_json(path, fix="python scripts/make_data.py --jobs rl_debates")
    check_debates(doc)
    return doc


def check_debates(doc: Mapping) -> None:
    """Refuse records without the parts, models or counts the chapter reads."""
    if not isinstance(doc, Mapping):
        raise TypeError(f"doc must be a mapping, got {type(doc).__name__}")
    missing = [k for k in _KEYS if k not in doc]
    if missing:
        raise ValueError(f"doc must hold {list(_KEYS)}; missing {missing}")
    absent = [m for m in MODEL_LABELS if m not in doc["deep"]]
    if absent:
        raise ValueError(f"doc['deep'] must hold every model of MODEL_LABELS; missing {absent}")
    n = len(doc["held_out"])
    for name in list(doc["deep"]) + list(doc["runs"]):
        counts, samples = _counts(doc, name)
        if len(counts) != n or not all(0 <= c <= samples for c in counts):
            raise ValueError(f"doc: {name}'s counts must be {n} integers in [0, {samples}]")


def _counts(doc: Mapping, name: str) -> tuple[list[int], int]:
    """A model's right chains per held-out problem and its samples per problem: a deep
    evaluation if it has one, else its run's final evaluation."""
    final = doc["deep"].get(name) or doc["runs"].get(name, {}).get("final")
    if final is None:
        raise ValueError(f"name {name!r} is neither a deep evaluation nor a run of the records")
    return final["counts"], final["samples_per_problem"]


def _per_problem(doc: Mapping, name: str, k: int) -> np.ndarray:
    counts, n = _counts(doc, name)
    if k > n:
        raise ValueError(f"k must be at most {name}'s {n} samples per problem, got {k}")
    return np.array([pass_at_k(n, c, k) for c in counts])


def pass_at_k_rows(doc: Mapping) -> list[dict]:
    """pass@k of each deep-evaluated model at the recorded ks, with the 95% band over problems."""
    check_debates(doc)
    rows = []
    for model, label in MODEL_LABELS.items():
        ev = doc["deep"][model]
        for k in doc["settings"]["deep_ks"]:
            lo, hi = ev["pass_at_k_ci"][str(k)]
            rows.append({"model": model, "label": label, "k": k,
                         "value": ev["pass_at_k"][str(k)], "lo": lo, "hi": hi})
    return rows


def paired_gap(doc: Mapping, before: str, after: str, k: int = 1) -> dict:
    """Mean over problems of pass@k(after) - pass@k(before), with a paired 95% interval."""
    check_debates(doc)
    k = require_int("k", k, low=1)
    diff = _per_problem(doc, after, k) - _per_problem(doc, before, k)
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    lo, hi = bootstrap_interval(diff, rng, NUM_BOOTSTRAP)
    return {"k": k, "gap": float(diff.mean()), "lo": lo, "hi": hi}


def crossover(doc: Mapping, after: str) -> dict:
    """Question 1 for one pair (`PAIRS`): the gap after - before at every recorded k.

    ``k_meet`` is the first k at which RL's lead is no longer certain (the interval reaches 0),
    ``k_cross`` the first at which the start model's pass@k is higher (the gap is below 0: it
    may be noise), ``k_sure`` the first at which the start model's lead is certain (the whole
    interval is below 0); each None where there is none.
    """
    check_debates(doc)
    after = require_choice("after", after, tuple(PAIRS))
    rows = [paired_gap(doc, PAIRS[after], after, k) for k in doc["settings"]["deep_ks"]]
    return {
        "before": PAIRS[after], "after": after, "rows": rows,
        "k_meet": next((r["k"] for r in rows if r["lo"] <= 0), None),
        "k_cross": next((r["k"] for r in rows if r["gap"] < 0), None),
        "k_sure": next((r["k"] for r in rows if r["hi"] < 0), None),
    }


def _verdict(row: Mapping) -> str:
    return "RL ahead" if row["lo"] > 0 else "start ahead" if row["hi"] < 0 else "no difference"


def crossover_table(doc: Mapping, places: int = 4) -> list[dict]:
    """Every pair of `PAIRS` at every recorded k: the gap after - before and its 95% interval,
    signed with a true minus at ``places`` decimals (four: an interval that ends a hair above
    zero, +0.0001, is not one that ends at it, 0.0000), and who is ahead beyond the noise."""
    check_debates(doc)
    places = require_int("places", places, low=1, high=6)
    rows = []
    for after, before in PAIRS.items():
        for r in crossover(doc, after)["rows"]:
            rows.append({"before → after": f"{MODEL_LABELS[before]} → {MODEL_LABELS[after]}",
                         "k": r["k"], "gap (after − before)": signed(r["gap"], places),
                         "95% interval": f"{signed(r['lo'], places)} to {signed(r['hi'], places)}",
                         "beyond the noise": _verdict(r)})
    return rows


def operands(problem: str) -> int:
    """How many numbers a problem adds or subtracts ("3-7+8" has 3)."""
    require_problems("problem", [problem])
    return len(re.findall(r"\d+", problem))


def answer(problem: str) -> int:
    """A problem's value, read term by term (no `eval`)."""
    require_problems("problem", [problem])
    return sum(int(t) for t in re.findall(r"[+-]?\d+", problem))


def reach(doc: Mapping, after: str) -> dict:
    """Question 2 for one pair: the problems each model solved at least once in all its samples.

    ``gained`` were solved only after RL, ``lost`` only before; ``by_kind`` splits the problems
    by operand count and by the sign of the answer, with each group's pass@1 before and after.
    """
    check_debates(doc)
    after = require_choice("after", after, tuple(PAIRS))
    before = PAIRS[after]
    a, n_a = _counts(doc, before)
    b, n_b = _counts(doc, after)
    problems = doc["held_out"]
    gained = [p for p, x, y in zip(problems, a, b, strict=True) if x == 0 and y > 0]
    lost = [p for p, x, y in zip(problems, a, b, strict=True) if x > 0 and y == 0]
    kinds = {f"{m} numbers": (lambda p, m=m: operands(p) == m) for m in (3, 4, 5)}
    kinds |= {"answer < 0": lambda p: answer(p) < 0, "answer >= 0": lambda p: answer(p) >= 0}
    by_kind = []
    for kind, member in kinds.items():
        idx = [i for i, p in enumerate(problems) if member(p)]
        by_kind.append({
            "kind": kind, "problems": len(idx),
            "before_p1": sum(a[i] for i in idx) / (n_a * len(idx)),
            "after_p1": sum(b[i] for i in idx) / (n_b * len(idx)),
            "gained": sum(problems[i] in gained for i in idx),
            "lost": sum(problems[i] in lost for i in idx),
        })
    return {
        "before": before, "after": after, "samples": min(n_a, n_b),
        "solved_before": sum(x > 0 for x in a), "solved_after": sum(y > 0 for y in b),
        "gained": gained, "lost": lost, "by_kind": by_kind,
    }


#: The four kinds of problem in a reach map, as `widgets/rl_debates.js` colours them.
REACH = ("solved by both", "gained by RL", "lost to RL", "solved by neither")


def reach_cells(doc: Mapping) -> list[dict]:
    """One row per pair (`PAIRS`) and held-out problem: its right chains before and after RL
    and its `REACH` status (solved at least once in all samples, or not): the reach map's cells."""
    check_debates(doc)
    cells = []
    for after, before in PAIRS.items():
        a, _ = _counts(doc, before)
        b, _ = _counts(doc, after)
        for i, (p, x, y) in enumerate(zip(doc["held_out"], a, b, strict=True)):
            status = REACH[0 if x and y else 1 if y else 2 if x else 3]
            cells.append({"after": after, "i": i, "problem": p, "before": x, "after_right": y,
                          "status": status})
    return cells


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def _run_row(doc: Mapping, name: str) -> dict:
    run = doc["runs"][name]
    gap = paired_gap(doc, "cold", name, 1)
    history = run["history"]
    return {
        "run": name, "seed": run["seed"], "reward": run["reward"],
        "inner_steps": run["inner_steps"],
        "pass_at_1": run["final"]["pass_at_k"]["1"],
        "gap": gap["gap"], "lo": gap["lo"], "hi": gap["hi"],
        "paid": _mean([h["reward"] for h in history]),
        "accuracy": _mean([h["accuracy"] for h in history]),
        "train_accuracy_first": _mean([h["accuracy"] for h in history[:10]]),
        "train_accuracy_last": _mean([h["accuracy"] for h in history[-10:]]),
        "clip_fraction": _mean([h["clip_fraction"] for h in history]),
        "unanimous": _mean([h["zero_advantage_groups"] for h in history]),
        "length": run["final"]["length"],
        "malformed": run["final"]["mode_share"]["malformed"],
    }


def spurious_table(doc: Mapping) -> list[dict]:
    """Question 3: every spurious-reward run and the full GRPO runs (the verifier's reward, the
    clip acting), each with its pass@1 gain over the cold start and that gain's interval."""
    check_debates(doc)
    names = [n for n in sorted(doc["runs"]) if n.startswith("spurious_")]
    names += [n for n in sorted(doc["runs"]) if n.startswith("rl_grpo_s")]
    rows = []
    for name in names:
        row = _run_row(doc, name)
        row["arm"] = "clip" if row["inner_steps"] > 1 else "noclip"
        rows.append(row)
    return rows


def few_table(doc: Mapping) -> list[dict]:
    """Question 4: GRPO on one or four problems, and on the whole train split, from the cold
    start; ``share`` is each run's pass@1 gain over the same seed's full run's gain (None where
    that is not positive)."""
    check_debates(doc)
    full = {doc["runs"][n]["seed"]: _run_row(doc, n) for n in doc["runs"]
            if n.startswith("rl_grpo_s")}
    rows = []
    for name in sorted(n for n in doc["runs"] if n.startswith("few")):
        row = _run_row(doc, name)
        row["problems"] = len(doc["runs"][name]["pool"])
        row["pool"] = doc["runs"][name]["pool"]
        row["pool_shares"] = doc["runs"][name]["pool_shares"]
        whole = full[row["seed"]]["gap"]
        row["share"] = row["gap"] / whole if whole > 0 else None  # None: no gain to share
        rows.append(row)
    return rows


def run_curves(doc: Mapping, names: list[str] | None = None) -> dict[str, dict[str, list]]:
    """Each run in ``names`` (default: every run) as columns: its held-out check-ups
    (``check`` steps, ``pass_at_1`` and its band ``lo``/``hi``) and, at every training
    ``step``, the reward paid (``paid``) and the training groups' accuracy (``accuracy``).

    One dict of lists per run, each key once: the runs chart's three `RUN_SERIES` in 14 KB
    of the page, where one record per point repeated its six keys 1,320 times (151 KB).
    """
    check_debates(doc)
    names = sorted(doc["runs"]) if names is None else list(names)
    out = {}
    for name in names:
        if name not in doc["runs"]:
            raise ValueError(f"names must be runs of the records, got {name!r}")
        run = doc["runs"][name]
        out[name] = {"check": [c["step"] for c in run["curve"]],
                     "pass_at_1": [c["pass_at_1"] for c in run["curve"]],
                     "lo": [c["ci"][0] for c in run["curve"]],
                     "hi": [c["ci"][1] for c in run["curve"]],
                     "step": [h["step"] for h in run["history"]],
                     "paid": [h["reward"] for h in run["history"]],
                     "accuracy": [h["accuracy"] for h in run["history"]]}
    return out


def reach_columns(doc: Mapping) -> dict[str, list]:
    """`reach_cells` as columns, each key once (83 KB of the page where the rows took 176 KB);
    the page turns them back into rows with OJS's ``transpose``."""
    cells = reach_cells(doc)
    return {key: [c[key] for c in cells] for key in cells[0]}


def length_rows(doc: Mapping) -> list[dict]:
    """Question 5 on the deep evaluations: each model's pass@1 and mean length of right and of
    wrong chains (tokens)."""
    check_debates(doc)
    return [{"model": m, "label": label, "pass_at_1": doc["deep"][m]["pass_at_k"]["1"],
             "length_right": doc["deep"][m]["length_right"],
             "length_wrong": doc["deep"][m]["length_wrong"]}
            for m, label in MODEL_LABELS.items()]


def wall_minutes(doc: Mapping, prefix: str = "") -> float:
    """Total wall time in minutes of the timed gathered jobs whose name starts with ``prefix``."""
    check_debates(doc)
    if not isinstance(prefix, str):
        raise TypeError(f"prefix must be a str, got {type(prefix).__name__}")
    return round(sum(v for n, v in doc["wall_seconds"].items() if n.startswith(prefix)) / 60, 1)



def _r3(x: float) -> float:
    return fixed(x, 3)  # prints its three places (0.250, not 0.25)


def findings(doc: Mapping) -> dict:
    """Every number chapter 14's prose quotes, rounded as it prints them.

    Per pair of `PAIRS` (keys prefixed with the model after RL): ``p1_before``/``p1_after`` and
    ``top_before``/``top_after`` (pass@1 and pass@k at the largest k), ``gap1``/``gap_top`` with
    ``_lo``/``_hi`` (paired intervals), ``k_meet``/``k_cross``/``k_sure`` (`crossover`),
    ``solved_before``/``solved_after``/``gained``/``lost`` (`reach`). Per reward and arm of the
    spurious runs (``<reward>_<arm>``): the gains of each seed and their mean. Per pool size of
    the one-example runs (``few<n>``): the mean gain, its share of full training's, and the
    training groups' accuracy over the first and last ten steps.
    """
    check_debates(doc)
    ks = doc["settings"]["deep_ks"]
    out: dict = {"k_top": ks[-1], "problems": len(doc["held_out"]),
                 "deep_samples": doc["settings"]["deep_samples"],
                 "run_samples": doc["settings"]["run_final_samples"],
                 "rl_steps": doc["settings"]["rl_steps"]}
    for after, before in PAIRS.items():
        cross, rch = crossover(doc, after), reach(doc, after)
        first, top = cross["rows"][0], cross["rows"][-1]
        deep = doc["deep"]
        out |= {
            f"{after}_p1_before": _r3(deep[before]["pass_at_k"]["1"]),
            f"{after}_p1_after": _r3(deep[after]["pass_at_k"]["1"]),
            f"{after}_top_before": _r3(deep[before]["pass_at_k"][str(ks[-1])]),
            f"{after}_top_after": _r3(deep[after]["pass_at_k"][str(ks[-1])]),
            f"{after}_k_meet": cross["k_meet"], f"{after}_k_cross": cross["k_cross"],
            f"{after}_k_sure": cross["k_sure"],
            f"{after}_solved_before": rch["solved_before"],
            f"{after}_solved_after": rch["solved_after"],
            f"{after}_gained": len(rch["gained"]), f"{after}_lost": len(rch["lost"]),
        }
        for key, row in (("gap1", first), ("gap_top", top)):
            out |= {f"{after}_{key}": _r3(row["gap"]), f"{after}_{key}_lo": _r3(row["lo"]),
                    f"{after}_{key}_hi": _r3(row["hi"])}
    rows = spurious_table(doc)
    for reward in ("random", "format", "verifiable"):
        for arm in ("clip", "noclip"):
            own = [r for r in rows if r["reward"] == reward and r["arm"] == arm]
            if not own:
                continue
            key = f"{reward}_{arm}"
            for r in own:
                out[f"{key}_s{r['seed']}"] = _r3(r["gap"])
                out[f"{key}_s{r['seed']}_neg"] = _r3(-r["gap"])  # a fall, as "fell by" prints it
                out[f"{key}_s{r['seed']}_lo"] = _r3(r["lo"])
                out[f"{key}_s{r['seed']}_hi"] = _r3(r["hi"])
            out[key] = _r3(_mean([r["gap"] for r in own]))
            out[f"{key}_clip_fraction"] = _r3(_mean([r["clip_fraction"] for r in own]))
            out[f"{key}_paid"] = _r3(_mean([r["paid"] for r in own]))
            out[f"{key}_malformed"] = _r3(_mean([r["malformed"] for r in own]))
            out[f"{key}_unanimous"] = _r3(_mean([r["unanimous"] for r in own]))
    few = few_table(doc)
    for n in sorted({r["problems"] for r in few}):
        own = [r for r in few if r["problems"] == n]
        out |= {
            f"few{n}": _r3(_mean([r["gap"] for r in own])),
            f"few{n}_share": (None if any(r["share"] is None for r in own)
                              else fixed(_mean([r["share"] for r in own]), 2)),
            f"few{n}_train_first": _r3(_mean([r["train_accuracy_first"] for r in own])),
            f"few{n}_train_last": _r3(_mean([r["train_accuracy_last"] for r in own])),
        }
        for r in own:
            out |= {f"few{n}_s{r['seed']}": _r3(r["gap"]), f"few{n}_s{r['seed']}_lo": _r3(r["lo"]),
                    f"few{n}_s{r['seed']}_hi": _r3(r["hi"]),
                    f"few{n}_s{r['seed']}_neg": _r3(-r["gap"])}  # a fall, as "lowered by"
    lengths = length_rows(doc)
    both = [r for r in lengths if None not in (r["length_right"], r["length_wrong"])]
    out["longer_wrong"] = sum(r["length_wrong"] > r["length_right"] for r in both)
    out["models"] = len(lengths)
    length = {r["model"]: r["length_right"] for r in lengths}
    out["cold_length_right"] = fixed(length["cold"], 1)
    out["grpo_length_right"] = fixed((length["rl_grpo_s0"] + length["rl_grpo_s1"]) / 2, 1)
    out["cold_malformed"] = fixed(doc["deep"]["cold"]["mode_share"]["malformed"], 3)
    out["cold_chain_share"] = fixed(doc["deep"]["cold"]["mode_share"]["chain"], 3)
    out["minutes"] = wall_minutes(doc)
    out["debate_runs"] = sum(n.startswith(("spurious_", "few")) for n in doc["runs"])
    return out
