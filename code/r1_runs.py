"""The recorded R1 runs (`data/r1_runs.json`) as the tables and values chapters 12 and 13 print.

`scripts/run_r1.py` trains every stage of the R1 recipe on the tiny reasoner and writes one
record per job: the pre-trained bases, the cold start, five RL objectives with two seeds each,
R1-Zero, rejection sampling and the SFT on its output, RL again, distillation against RL on a
smaller base, and the budget-forcing sweep. ``r1_records`` loads and checks them; this module
turns them into tables and values. Nothing here trains or samples, so a chapter that calls it runs
in a moment, and every number it prints is a number some run recorded (or a mean, a share or a
difference of such numbers).

A chapter calls one function per section and prints what it returns: `settings` for the shared
setup, `stage0_and_1`, `stage2_objectives`, `r1_zero`, `unanimous_groups`, `sharpening`,
`output_length`, `stages3_and_4`, `distillation`, `stage_cards` and `budget_forcing`. Functions
ending in `_table` return a list of rows (dicts) for a table; the others return a dict of plain,
rounded numbers that the prose reads inline.

Every function takes the loaded document (`load_records()`, re-exported here from
``r1_records``) as `doc` and refuses anything else (``r1_records.check_records``).
"""

from __future__ import annotations

from collections.abc import Mapping

from checks import require_choice, require_float, require_int
from decimals import fixed
from evaluation import mean_pass_at_k
from objectives import OBJECTIVE_LABELS  # the five stage-2 objectives and their names

# The loaders live in r1_records; a chapter imports them from here beside the tables it reads.
from r1_records import (  # noqa: F401
    SEEDS,
    check_records,
    load_exercise3,
    load_records,
    other_machine,
)

EDGE_STEPS = 10  # "early" and "late" in training: the first and the last ten steps
HARD_MAX = 2  # a problem is "hard" for a model that got at most this many chains right
KNEE_SHARE = 0.95  # a budget's knee: the smallest budget keeping this share of the accuracy


def _pct(x: float) -> float:
    return round(100 * x, 1)


def _r3(x: float) -> float:
    return fixed(x, 3)  # prints 0.540, not 0.54, beside its three-decimal neighbours


def _mean(values) -> float:
    """Mean of the values that are recorded (a statistic with nothing to average is null)."""
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals)


# --------------------------------------------------------------------------- one run's numbers


def _final(doc: Mapping, name: str) -> Mapping:
    return doc["runs"][name]["final"]


def _p(doc: Mapping, name: str, k: int = 1) -> float:
    return _final(doc, name)["pass_at_k"][str(k)]


def _lo_hi(doc: Mapping, name: str, k: int = 1) -> tuple[float, float]:
    lo, hi = _final(doc, name)["pass_at_k_ci"][str(k)]
    return _r3(lo), _r3(hi)


def _ci_text(doc: Mapping, name: str, k: int = 1) -> str:
    lo, hi = _final(doc, name)["pass_at_k_ci"][str(k)]
    return f"[{lo:.3f}, {hi:.3f}]"


def _passk(doc: Mapping, name: str, k: int) -> float:
    """pass@k recomputed from the final evaluation's per-problem counts (any k up to n)."""
    f = _final(doc, name)
    return mean_pass_at_k([(f["samples_per_problem"], c) for c in f["counts"]], k)


def _n(doc: Mapping, name: str) -> int:
    return _final(doc, name)["samples_per_problem"]


def _require_run(doc: Mapping, name: object, kind: str | None = None) -> str:
    if not isinstance(name, str):
        raise TypeError(f"name must be a run's name (str), got {type(name).__name__}")
    run = doc["runs"].get(name)
    if not isinstance(run, Mapping) or "final" not in run:
        raise ValueError(f"name must be an evaluated run of the records, got {name!r}")
    if kind is not None and run.get("kind") != kind:
        raise ValueError(f"name must be a {kind!r} run, got {name!r} ({run.get('kind')!r})")
    return name


def pass_at(doc: Mapping, name: str, k: int = 1) -> float:
    """A run's recorded held-out pass@k, rounded to three places (k among the recorded ones)."""
    check_records(doc)
    _require_run(doc, name)
    k = require_int("k", k, low=1)
    if str(k) not in _final(doc, name)["pass_at_k"]:
        raise ValueError(f"k must be one of the recorded {list(_final(doc, name)['pass_at_k'])}")
    return _r3(_p(doc, name, k))


def pass_interval(doc: Mapping, name: str, k: int = 1) -> tuple[float, float]:
    """A run's 95% bootstrap interval (over problems) for its held-out pass@k, to three places.

    Two runs whose intervals do not overlap differ by more than the choice of problems explains.
    """
    check_records(doc)
    _require_run(doc, name)
    k = require_int("k", k, low=1)
    if str(k) not in _final(doc, name)["pass_at_k_ci"]:
        raise ValueError(f"k must be one of the recorded {list(_final(doc, name)['pass_at_k_ci'])}")
    return _lo_hi(doc, name, k)


def final_length(doc: Mapping, name: str) -> float:
    """A run's mean response length (tokens) in its final held-out evaluation, to one place."""
    check_records(doc)
    _require_run(doc, name)
    return round(_final(doc, name)["length"], 1)


def _rl_names(prefix: str) -> list[str]:
    return [f"{prefix}_s{s}" for s in SEEDS]


def _stage2_names() -> list[str]:
    return [f"rl_{o}_s{s}" for o in OBJECTIVE_LABELS for s in SEEDS]


# --------------------------------------------------------------------------- the shared setup


def settings(doc: Mapping) -> dict:
    """The setup every chapter-11 run shares, and the ranges its training batches spanned.

    ``chain_tokens`` is the mean length of a chain in GRPO's training batches (both seeds);
    ``train_acc_lo``/``train_acc_hi`` the lowest and highest batch accuracy of any stage-2 step.
    """
    check_records(doc)
    runs, s = doc["runs"], doc["settings"]
    cfg = runs["rl_grpo_s0"]["config"]
    acc = [h["accuracy"] for n in _stage2_names() for h in runs[n]["history"]]
    lengths = [x for n in _rl_names("rl_grpo") for h in runs[n]["history"]
               for x in (h["length_correct"], h["length_wrong"]) if x is not None]
    minutes = [runs[n]["timing"]["train_seconds"] / 60 for n in _stage2_names()]
    return {
        "base_layers": runs["base4"]["n_layer"],
        "small_layers": runs["base2"]["n_layer"],
        "rl_steps": s["rl_steps"],
        "eval_every": s["eval_every"],
        "n_eval": s["eval_problems"],
        "n_final": s["final_samples"]["0"],
        "n_final_second_seed": s["final_samples"]["1"],
        "n_curve": s["curve_samples"],
        "prompts_per_step": cfg["prompts_per_step"],
        "group_size": cfg["group_size"],
        "batch_chains": cfg["prompts_per_step"] * cfg["group_size"],
        "beta": cfg["beta"],
        "format_weight": cfg["format_weight"],
        "dr_grpo_max_len": cfg["dr_grpo_max_len"],
        "chain_tokens": round(sum(lengths) / len(lengths)),
        "train_acc_lo": fixed(min(acc), 2),
        "train_acc_hi": fixed(max(acc), 2),
        "rl_minutes_lo": round(min(minutes), 1),
        "rl_minutes_hi": round(max(minutes), 1),
    }


def recorded_minutes(doc: Mapping) -> float:
    """Wall-clock minutes of every recorded job, summed (each ran on one core), reruns aside.

    The reruns (``rerun_*``) repeat stage-2 jobs after the records were made to measure what the
    records lack; they are no part of what the recipe costs.
    """
    check_records(doc)
    seconds = [run["timing"]["wall_seconds"] for name, run in doc["runs"].items()
               if not name.startswith("rerun_")]
    return round(sum(seconds) / 60, 1)


# --------------------------------------------------------------------------- stages 0 and 1


def stage0_and_1(doc: Mapping) -> dict:
    """The base (stage 0) and the cold start (stage 1): accuracy, form of the output, cost."""
    check_records(doc)
    runs = doc["runs"]
    base, cold = runs["base4"], runs["cold"]
    base_lo, base_hi = _lo_hi(doc, "base4")
    return {
        "base_p1": _r3(_p(doc, "base4")),
        "base_lo": base_lo,
        "base_hi": base_hi,
        "base_steps": base["steps"],
        "base_minutes": round(base["timing"]["wall_seconds"] / 60, 1),
        "base_chain": _pct(base["final"]["mode_share"]["chain"]),
        "base_answer_only": _pct(base["final"]["mode_share"]["answer_only"]),
        "base_rechecks": fixed(base["final"]["rechecks"], 2),
        "cold_p1": _r3(_p(doc, "cold")),
        "cold_chain": _pct(cold["final"]["mode_share"]["chain"]),
        "cold_answer_only": _pct(cold["final"]["mode_share"]["answer_only"]),
        "cold_rechecks": fixed(cold["final"]["rechecks"], 2),
        "cold_examples": cold["examples"],
        "cold_steps": cold["steps"],
        "cold_batch": cold["batch_size"],
        "cold_seconds": round(cold["timing"]["wall_seconds"], 1),
    }


def _cast_row(doc: Mapping, name: str, label: str, what: str) -> dict:
    final = _final(doc, name)
    n = final["samples_per_problem"]
    return {"model": label, "what it is": what,
            "pass@1": round(final["pass_at_k"]["1"], 3),
            "95% interval": _ci_text(doc, name),
            f"pass@{n}": round(final["pass_at_k"][str(n)], 3),
            "chains": f"{100 * final['mode_share']['chain']:.0f}%",
            "length": round(final["length"], 1)}


def cast_table(doc: Mapping) -> list[dict]:
    """Every model chapter 12 trains, measured the same way (one row each, first seeds only)."""
    check_records(doc)
    runs = doc["runs"]
    steps = runs["rl_grpo_s0"]["steps"]
    return [
        _cast_row(doc, "base4", "stage 0: base",
                  f"pre-trained on the web-like mix ({runs['base4']['n_layer']} layers)"),
        _cast_row(doc, "cold", "stage 1: cold start",
                  f"base + SFT on {runs['cold']['examples']} curated chains"),
        _cast_row(doc, "rl_grpo_s0", "stage 2: reasoning RL", f"cold start + {steps} GRPO steps"),
        _cast_row(doc, "stage3", "stage 3: rejection-sampling SFT",
                  "base + SFT on stage 2's verified chains"),
        _cast_row(doc, "stage4_s0", "stage 4: RL again",
                  f"stage 3 + {runs['stage4_s0']['steps']} GRPO steps"),
        _cast_row(doc, "zero_s0", "R1-Zero",
                  f"base + {runs['zero_s0']['steps']} GRPO steps, no SFT"),
        _cast_row(doc, "base2", "small base", f"the same mix, {runs['base2']['n_layer']} layers"),
        _cast_row(doc, "distill", "distilled student",
                  "small base + SFT on stage 2's verified chains"),
        _cast_row(doc, "student_rl_s0", "RL'd student",
                  f"small base + {runs['student_rl_s0']['steps']} GRPO steps"),
    ]


# --------------------------------------------------------------------------- stage 2


def training_rows(doc: Mapping) -> list[dict]:
    """Every stage-2 training step of every objective and seed, for the browser (`r1_train`).

    ``zero_adv`` is the share of the step's *sampled* groups whose rewards were all equal. DAPO's
    dynamic sampling threw those away and drew more, so for DAPO it is the discarded share.
    Missing statistics (no right chain in a batch, say) are None, never NaN.
    """
    check_records(doc)
    rows = []
    for name in _stage2_names():
        r = doc["runs"][name]
        for h in r["history"]:
            drawn = h["groups"] + h["discarded_groups"]
            unanimous = (h["discarded_groups"] / drawn if r["config"]["dynamic_sampling"]
                         else h["zero_advantage_groups"])
            rows.append({
                "run": name, "objective": r["objective"], "seed": r["seed"], "step": h["step"],
                "reward": _clean(h["reward"]), "accuracy": _clean(h["accuracy"]),
                "zero_adv": unanimous, "drawn": drawn, "kl": _clean(h["kl"]),
                "length_right": _clean(h["length_correct"]),
                "length_wrong": _clean(h["length_wrong"]),
            })
    return rows


def training_columns(doc: Mapping) -> dict[str, list]:
    """``training_rows`` as columns, each key once: what chapter 12 hands the page.

    The rows repeat eleven keys 800 times (163 KB of the page); as columns they take 67 KB,
    and OJS's ``transpose`` (Quarto's, for a DataFrame's columns) turns them back into rows.
    """
    rows = training_rows(doc)
    return {key: [row[key] for row in rows] for key in rows[0]}


def curve_rows(doc: Mapping) -> list[dict]:
    """Every stage-2 run's held-out check-ups: pass@1 with its 95% interval (`r1_curves`)."""
    check_records(doc)
    rows = []
    for name in _stage2_names():
        r = doc["runs"][name]
        for c in r["curve"]:
            lo, hi = c["pass_at_k_ci"]["1"]
            rows.append({"run": name, "objective": r["objective"], "seed": r["seed"],
                         "step": c["step"], "pass1": c["pass_at_k"]["1"], "lo": lo, "hi": hi})
    return rows


def _clean(x):
    """JSON for the browser: NaN becomes null."""
    return None if x is None or x != x else x


def stage2_table(doc: Mapping) -> list[dict]:
    """One row per objective: final pass@1 of both seeds, the gain, the end KL and the cost."""
    check_records(doc)
    rows = []
    for o, label in OBJECTIVE_LABELS.items():
        s0 = doc["runs"][f"rl_{o}_s0"]
        seed_mean = (_p(doc, f"rl_{o}_s0") + _p(doc, f"rl_{o}_s1")) / 2
        rows.append({
            "objective": label,
            "pass@1 seed 0": _r3(_p(doc, f"rl_{o}_s0")),
            "95% interval": _ci_text(doc, f"rl_{o}_s0"),
            "pass@1 seed 1": _r3(_p(doc, f"rl_{o}_s1")),
            "95% interval ": _ci_text(doc, f"rl_{o}_s1"),
            "gain over cold start": round(seed_mean - _p(doc, "cold"), 3),
            "KL at the end": round(
                sum(h["kl"] for h in s0["history"][-EDGE_STEPS:]) / EDGE_STEPS, 4),
            "minutes (seed 0)": round(s0["timing"]["train_seconds"] / 60, 1),
        })
    return rows


def stage2_objectives(doc: Mapping) -> dict:
    """Final pass@1 of each objective (mean of its two seeds) and the largest seed-to-seed gap."""
    check_records(doc)
    out = {o: _r3((_p(doc, f"rl_{o}_s0") + _p(doc, f"rl_{o}_s1")) / 2) for o in OBJECTIVE_LABELS}
    out["max_seed_gap"] = max(_r3(abs(_p(doc, f"rl_{o}_s0") - _p(doc, f"rl_{o}_s1")))
                              for o in OBJECTIVE_LABELS)
    return out


def clip_activity(doc: Mapping) -> dict:
    """How often each objective's trust region acted, over every step of both its seeds.

    Per objective: ``outside``, the percentage of units whose ratio left the objective's range,
    and ``clipped``, the percentage where the clip acted (a token for GRPO, Dr. GRPO, DAPO and
    CISPO, a chain for GSPO; for CISPO the share of truncated weights), both measured on each
    step's second, off-policy pass (`rl_reasoner.clip_fractions` records them as
    ``clip_outside`` and ``clip_fraction``). A step with nothing to measure is skipped; an
    objective whose runs recorded neither statistic gives None.
    """
    check_records(doc)
    out = {}
    for o in OBJECTIVE_LABELS:
        hist = [h for name in _rl_names(f"rl_{o}") for h in doc["runs"][name]["history"]]
        entry = {}
        for key, field in (("outside", "clip_outside"), ("clipped", "clip_fraction")):
            vals = [h.get(field) for h in hist]
            vals = [v for v in vals if v is not None and v == v]
            entry[key] = _pct(sum(vals) / len(vals)) if vals else None
        out[o] = entry
    return out


def rerun_agreement(doc: Mapping) -> dict:
    """How far each seed-0 rerun (``rerun_rl_<o>_s0``) agrees with the recorded run it repeats.

    Per objective: ``same_steps``, the number of leading steps whose statistics equal the
    record's to the file's four decimals, ``steps`` the run's length, ``same_final`` whether the
    final evaluations agree (everything the rerun's record keeps of it), and the final pass@1 of
    the record and of the rerun. On the machine that made the record a rerun agrees at every step;
    elsewhere the two agree until one sampled token lands differently, and from then on they are
    two runs of the same recipe (`other_machine` reads such a pair).
    """
    check_records(doc)
    out = {}
    for o in OBJECTIVE_LABELS:
        rerun = doc["runs"].get(f"rerun_rl_{o}_s0")
        if rerun is None:
            continue
        recorded = doc["runs"][f"rl_{o}_s0"]
        same = 0
        for a, b in zip(recorded["history"], rerun["history"], strict=True):
            # The first records had no clip statistics; a step is compared on what both hold.
            if {k: v for k, v in b.items() if k in a} != {k: v for k, v in a.items() if k in b}:
                break
            same += 1
        final = rerun["final"]
        out[o] = {
            "same_steps": same,
            "steps": len(recorded["history"]),
            "same_final": all(recorded["final"].get(k) == v for k, v in final.items()),
            "recorded_p1": _r3(recorded["final"]["pass_at_k"]["1"]),
            "rerun_p1": _r3(rerun["final"]["pass_at_k"]["1"]),
        }
    return out


def other_machine_record(doc: Mapping, rev: str) -> dict:
    """What data/r1_other_machine.json keeps of ``doc``: its reruns' agreement and its seed gap.

    ``doc`` is the first edition's records (made on another machine) together with reruns of
    their seed-0 jobs made on this book's machine from the same cold start, as git revision
    ``rev`` holds them; `scripts/record_other_machine.py` writes the result.
    """
    check_records(doc)
    return {
        "source": f"data/r1_runs.json at {rev}",
        "agreement": rerun_agreement(doc),
        "max_seed_gap": stage2_objectives(doc)["max_seed_gap"],
    }


# --------------------------------------------------------------------------- R1-Zero


def _curve(doc: Mapping, name: str) -> list:
    return doc["runs"][name]["curve"]


def r1_zero_table(doc: Mapping) -> list[dict]:
    """R1-Zero against RL from the cold start, two seeds each: first and last check-up."""
    check_records(doc)
    rows = []
    for name in _rl_names("zero") + _rl_names("rl_grpo"):
        c = _curve(doc, name)
        first, last = c[0]["step"], c[-1]["step"]
        rows.append({
            "run": name, "start": "base (R1-Zero)" if name.startswith("zero") else "cold start",
            "seed": doc["runs"][name]["seed"],
            f"pass@1 step {first}": round(c[0]["pass_at_k"]["1"], 3),
            f"pass@1 step {last}": round(c[-1]["pass_at_k"]["1"], 3),
            f"chains step {first}": f"{100 * c[0]['mode_share']['chain']:.1f}%",
            f"chains step {last}": f"{100 * c[-1]['mode_share']['chain']:.1f}%",
            f"length step {first}": round(c[0]["length"], 1),
            f"length step {last}": round(c[-1]["length"], 1),
        })
    return rows


def r1_zero_curves(doc: Mapping) -> list[dict]:
    """R1-Zero's and the cold-started GRPO runs' held-out check-ups, for the browser (`r1_zero`).

    One row per run and check-up: held-out pass@1, the share of bare answers, the mean length.
    """
    check_records(doc)
    rows = []
    for prefix, start in (("zero", "R1-Zero (from the base)"), ("rl_grpo", "from the cold start")):
        for name in _rl_names(prefix):
            for c in _curve(doc, name):
                rows.append({"run": name, "start": start, "seed": doc["runs"][name]["seed"],
                             "step": c["step"], "pass1": c["pass_at_k"]["1"],
                             "bare": c["mode_share"]["answer_only"], "length": c["length"]})
    return rows


def widget_setup(doc: Mapping) -> dict:
    """The sizes the widgets' labels quote (`r1_setup`), read from the records, not typed in JS."""
    s = settings(doc)
    return {"problems": s["n_eval"], "curveSamples": s["n_curve"], "batchChains": s["batch_chains"]}


def r1_zero(doc: Mapping) -> dict:
    """What RL straight from the base did: bare answers, length, re-checks and accuracy.

    ``*_first`` is the check-up before any RL, ``*_second`` the next one (one `eval_every`
    later), ``*_last`` the last. ``gap_start``/``gap_end``: the cold-started runs' lead in
    held-out pass@1 at the first and the last check-up (mean over the seeds at the end).
    """
    check_records(doc)
    zero = _curve(doc, "zero_s0")
    zero_p1 = [_r3(_curve(doc, n)[-1]["pass_at_k"]["1"]) for n in _rl_names("zero")]
    cold_p1 = [_r3(_curve(doc, n)[-1]["pass_at_k"]["1"]) for n in _rl_names("rl_grpo")]
    zero_start = _r3(zero[0]["pass_at_k"]["1"])
    cold_start = _r3(_curve(doc, "rl_grpo_s0")[0]["pass_at_k"]["1"])
    zero_lo, zero_hi = _lo_hi(doc, "zero_s0")
    grpo_lo, grpo_hi = _lo_hi(doc, "rl_grpo_s0")
    return {
        "bare_first": _pct(zero[0]["mode_share"]["answer_only"]),
        "bare_second": _pct(zero[1]["mode_share"]["answer_only"]),
        "length_first": round(zero[0]["length"], 1),
        "length_second": round(zero[1]["length"], 1),
        "length_last": round(zero[-1]["length"], 1),
        "last_step": zero[-1]["step"],
        "rechecks_first": fixed(zero[0]["rechecks"], 2),
        "rechecks_last": fixed(zero[-1]["rechecks"], 2),
        "zero_start": zero_start,
        "zero_end_s0": zero_p1[0],
        "zero_end_s1": zero_p1[1],
        "cold_start": cold_start,
        "cold_end_s0": cold_p1[0],
        "cold_end_s1": cold_p1[1],
        "zero_final": _r3(_p(doc, "zero_s0")),
        "zero_final_lo": zero_lo,
        "zero_final_hi": zero_hi,
        "grpo_final": _r3(_p(doc, "rl_grpo_s0")),
        "grpo_final_lo": grpo_lo,
        "grpo_final_hi": grpo_hi,
        "gap_start": _r3(cold_start - zero_start),
        "gap_end": _r3((sum(cold_p1) - sum(zero_p1)) / 2),
    }


# --------------------------------------------------------------------------- unanimous groups


def unanimous_groups(doc: Mapping) -> dict:
    """The share of groups that teach nothing (all rewards equal), early and late in training.

    GRPO's and DAPO's shares are means over both seeds of the first and last `EDGE_STEPS`
    steps (DAPO's is the share it discarded); ``dapo_drawn`` is DAPO's mean number of groups
    drawn per step and ``dapo_extra`` the extra sampling that cost, in percent; ``stage4_*`` the
    same share for stage 4's RL, which starts from a much better model.
    """
    check_records(doc)
    rows = training_rows(doc)
    steps = doc["settings"]["rl_steps"]

    def share(objective: str, first: int, last: int, key: str = "zero_adv") -> float:
        return _mean(r[key] for r in rows
                     if r["objective"] == objective and first <= r["step"] <= last)

    s4 = doc["runs"]["stage4_s0"]["history"]
    per_step = doc["runs"]["rl_dapo_s0"]["config"]["prompts_per_step"]
    drawn = share("dapo", 1, steps, "drawn")
    return {
        "grpo_early": _pct(share("grpo", 1, EDGE_STEPS)),
        "grpo_late": _pct(share("grpo", steps - EDGE_STEPS + 1, steps)),
        "dapo_early": _pct(share("dapo", 1, EDGE_STEPS)),
        "dapo_late": _pct(share("dapo", steps - EDGE_STEPS + 1, steps)),
        "dapo_drawn": round(drawn, 1),
        "dapo_extra": _pct(drawn / per_step - 1),
        "stage4_early": _pct(sum(h["zero_advantage_groups"] for h in s4[:EDGE_STEPS]) / EDGE_STEPS),
        "stage4_late": _pct(sum(h["zero_advantage_groups"] for h in s4[-EDGE_STEPS:]) / EDGE_STEPS),
    }


# --------------------------------------------------------------------------- pass@k before/after

#: The models whose final per-problem counts the pass@k widget recomputes, with their labels.
FINAL_MODELS = {
    "base4": "stage 0: base", "cold": "stage 1: cold start",
    **{f"rl_{o}_s0": f"after {label}" for o, label in OBJECTIVE_LABELS.items()},
    "zero_s0": "R1-Zero", "stage3": "stage 3", "stage4_s0": "stage 4",
}


def finals_payload(doc: Mapping) -> dict:
    """Each model's label, samples per problem and per-problem right counts (`r1_finals`)."""
    check_records(doc)
    return {m: {"label": label, "n": _n(doc, m), "counts": _final(doc, m)["counts"]}
            for m, label in FINAL_MODELS.items()}


def pass_at_k_ks(doc: Mapping) -> list[int]:
    """The k of the pass@k table: powers of four below the samples per problem, then that."""
    check_records(doc)
    n = _n(doc, "cold")
    ks = [1]
    while ks[-1] * 4 < n:
        ks.append(ks[-1] * 4)
    return [*ks, n]


def pass_at_k_table(doc: Mapping) -> list[dict]:
    """pass@k of the cold start and of each objective's seed-0 model, recomputed from counts."""
    check_records(doc)
    ks = pass_at_k_ks(doc)
    return [{"model": FINAL_MODELS[name], **{f"pass@{k}": _r3(_passk(doc, name, k)) for k in ks}}
            for name in ["cold", *(f"rl_{o}_s0" for o in OBJECTIVE_LABELS)]]


def sharpening(doc: Mapping, before: str = "cold", after: str = "rl_grpo_s0") -> dict:
    """Did RL teach new skill or sharpen old? pass@k at small and large k, problem by problem.

    ``k_half`` and ``k_full`` are half of and all the final samples per problem;
    ``n_up``/``n_down`` count the problems whose right chains rose or fell; the *hard* problems
    are those `before` got at most `HARD_MAX` right; ``newly_solved``/``newly_lost`` count the
    problems one model never solved and the other did; ``after_max``/``after_min`` range over the
    five objectives' seed-0 models at ``k_full``, ``n_below`` how many of them are below `before`;
    ``gain_min``/``gain_max`` are the smallest and largest factor by which an objective's seed-0
    model multiplied `before`'s pass@1 (``gain_min_by``/``gain_max_by`` name the objectives).
    """
    check_records(doc)
    _require_run(doc, before)
    _require_run(doc, after)
    n = _n(doc, before)
    if _n(doc, after) != n:
        raise ValueError(f"after must have {n} final samples per problem, as before does")
    pairs = list(zip(_final(doc, before)["counts"], _final(doc, after)["counts"], strict=True))
    hard = [(a, b) for a, b in pairs if a <= HARD_MAX]
    k_half = n // 2
    before_full = _r3(_passk(doc, before, n))
    after_full = {o: _r3(_passk(doc, f"rl_{o}_s0", n)) for o in OBJECTIVE_LABELS}
    # How many times pass@1 each objective's seed-0 model reached, over `before`'s.
    gain = {o: _passk(doc, f"rl_{o}_s0", 1) / _passk(doc, before, 1) for o in OBJECTIVE_LABELS}
    least, most = min(gain, key=gain.get), max(gain, key=gain.get)
    return {
        "gain_min": round(gain[least], 2),
        "gain_min_by": OBJECTIVE_LABELS[least],
        "gain_max": round(gain[most], 2),
        "gain_max_by": OBJECTIVE_LABELS[most],
        "k_half": k_half,
        "k_full": n,
        "before_p1": _r3(_passk(doc, before, 1)),
        "after_p1": _r3(_passk(doc, after, 1)),
        "before_half": _r3(_passk(doc, before, k_half)),
        "after_half": _r3(_passk(doc, after, k_half)),
        "before_full": before_full,
        "after_full": _r3(_passk(doc, after, n)),
        "after_min": min(after_full.values()),
        "after_max": max(after_full.values()),
        "n_below": sum(v < before_full for v in after_full.values()),
        "n_up": sum(b > a for a, b in pairs),
        "n_down": sum(b < a for a, b in pairs),
        "hard_max": HARD_MAX,
        "n_hard": len(hard),
        "hard_before": round(sum(a for a, _ in hard) / len(hard), 1),
        "hard_after": round(sum(b for _, b in hard) / len(hard), 1),
        "newly_solved": sum(a == 0 and b > 0 for a, b in pairs),
        "newly_lost": sum(a > 0 and b == 0 for a, b in pairs),
        "unsolved_before": sum(a == 0 for a, _ in pairs),
        "unsolved_after": sum(b == 0 for _, b in pairs),
    }


# --------------------------------------------------------------------------- output length


def _length_change(rows: list[dict], objective: str, key: str) -> tuple[float, float]:
    """Mean over seeds of the first and last steps' mean length of right or wrong chains."""
    firsts, lasts = [], []
    for s in SEEDS:
        own = [r for r in rows if r["objective"] == objective and r["seed"] == s]
        firsts.append(_mean(r[key] for r in own[:EDGE_STEPS]))
        lasts.append(_mean(r[key] for r in own[-EDGE_STEPS:]))
    return round(sum(firsts) / len(SEEDS), 1), round(sum(lasts) / len(SEEDS), 1)


def seed_lengths(doc: Mapping, objective: str) -> dict[int, dict[str, float]]:
    """Per seed, the mean length of right and wrong training chains over the first and last steps.

    Keys ``right_first``, ``right_last``, ``wrong_first``, ``wrong_last`` (tokens, two places);
    `output_length` prints their mean over the seeds. How far the two seeds of one objective lie
    apart is the noise against which two objectives' lengths can be told apart.
    """
    check_records(doc)
    objective = require_choice("objective", objective, tuple(OBJECTIVE_LABELS))
    rows = training_rows(doc)
    out = {}
    for s in SEEDS:
        own = [r for r in rows if r["objective"] == objective and r["seed"] == s]
        out[s] = {f"{key}_{edge}": round(_mean(r[f"length_{key}"] for r in part), 2)
                  for key in ("right", "wrong")
                  for edge, part in (("first", own[:EDGE_STEPS]), ("last", own[-EDGE_STEPS:]))}
    return out


def length_changes(doc: Mapping) -> dict[str, dict[int, dict[str, float]]]:
    """Per objective and seed, how far right and wrong training chains moved, last steps - first.

    ``{objective: {seed: {"right": tokens, "wrong": tokens}}}``, to one place: the seed-level
    view of `output_length_table`'s "change" column, so a change can be told from seed noise.
    """
    check_records(doc)
    out = {}
    for o in OBJECTIVE_LABELS:
        per_seed = seed_lengths(doc, o)
        out[o] = {s: {key: round(v[f"{key}_last"] - v[f"{key}_first"], 1)
                      for key in ("right", "wrong")} for s, v in per_seed.items()}
    return out


def output_length_table(doc: Mapping) -> list[dict]:
    """Mean length of right and of wrong training chains, first against last steps."""
    check_records(doc)
    rows = training_rows(doc)
    steps = doc["settings"]["rl_steps"]
    early, late = f"steps 1-{EDGE_STEPS}", f"steps {steps - EDGE_STEPS + 1}-{steps}"
    out = []
    for o, label in OBJECTIVE_LABELS.items():
        for key in ("length_right", "length_wrong"):
            first, last = _length_change(rows, o, key)
            out.append({"objective": label, "chains": key.removeprefix("length_"),
                        early: first, late: last, "change": round(last - first, 1)})
    return out


def output_length(doc: Mapping) -> dict:
    """The length figures chapter 12's length section quotes.

    ``{objective}_{right|wrong}_{first|last}``: mean length (tokens) of right or wrong training
    chains over the first and the last steps; ``rechecks_{objective}``: re-checks per chain in
    the final evaluation (mean of the seeds); ``kl_{objective}``: the KL to the start over the
    last steps; ``cold_right``/``cold_wrong``: the cold start's chain lengths before RL.
    """
    check_records(doc)
    rows = training_rows(doc)
    runs = doc["runs"]
    out: dict = {}
    for o in OBJECTIVE_LABELS:
        for key in ("right", "wrong"):
            first, last = _length_change(rows, o, f"length_{key}")
            out[f"{o}_{key}_first"], out[f"{o}_{key}_last"] = first, last
        out[f"rechecks_{o}"] = fixed(
            sum(runs[n]["final"]["rechecks"] for n in _rl_names(f"rl_{o}")) / len(SEEDS), 2)
        kl = [h["kl"] for n in _rl_names(f"rl_{o}") for h in runs[n]["history"][-EDGE_STEPS:]]
        out[f"kl_{o}"] = round(sum(kl) / len(kl), 3)
    out["cold_right"] = round(runs["cold"]["final"]["length_right"], 1)
    out["cold_wrong"] = round(runs["cold"]["final"]["length_wrong"], 1)
    return out


# --------------------------------------------------------------------------- stages 3 and 4


def stages3_and_4(doc: Mapping) -> dict:
    """Rejection sampling from stage 2, SFT of the base on what it kept, and RL again."""
    check_records(doc)
    runs = doc["runs"]
    rs, s3 = runs["rs"], runs["stage3"]
    s3_lo, s3_hi = _lo_hi(doc, "stage3")
    s4_lo, s4_hi = _lo_hi(doc, "stage4_s0")
    return {
        "rs_problems": rs["problems"],
        "rs_per": rs["samples_per_problem"],
        "rs_samples": int(rs["stats"]["samples"]),
        "rs_right": _pct(rs["stats"]["right_share"]),
        "rs_kept": int(rs["stats"]["kept"]),
        "rs_covered": int(rs["stats"]["problems_covered"]),
        "rs_covered_pct": _pct(rs["stats"]["problems_covered"] / rs["problems"]),
        "rs_seconds": round(rs["timing"]["wall_seconds"], 1),
        "s3_steps": s3["steps"],
        "s3_batch": s3["batch_size"],
        "s3_lr": s3["lr"],
        "s3_seconds": round(s3["timing"]["wall_seconds"]),
        "s3_p1": _r3(_p(doc, "stage3")),
        "s3_lo": s3_lo,
        "s3_hi": s3_hi,
        "s3_malformed": _pct(s3["final"]["mode_share"]["malformed"]),
        "s2_p1": _r3(_p(doc, "rl_grpo_s0")),
        "s2_malformed": _pct(runs["rl_grpo_s0"]["final"]["mode_share"]["malformed"]),
        "s4_p1": _r3(_p(doc, "stage4_s0")),
        "s4_lo": s4_lo,
        "s4_hi": s4_hi,
        "s3_full": _r3(_p(doc, "stage3", _n(doc, "stage3"))),
        "s4_full": _r3(_p(doc, "stage4_s0", _n(doc, "stage4_s0"))),
        "cold_full": _r3(_p(doc, "cold", _n(doc, "cold"))),
    }


# --------------------------------------------------------------------------- distillation


def distillation(doc: Mapping) -> dict:
    """The small model's two routes: SFT on the stage-2 teacher's verified chains, or RL itself."""
    check_records(doc)
    runs = doc["runs"]
    distill, student = runs["distill"], runs["student_rl_s0"]
    d_lo, d_hi = _lo_hi(doc, "distill")
    s_lo, s_hi = _lo_hi(doc, "student_rl_s0")
    return {
        "small_layers": runs["base2"]["n_layer"],
        "big_layers": runs["base4"]["n_layer"],
        "small_p1": _r3(_p(doc, "base2")),
        "teacher_p1": _r3(_p(doc, "rl_grpo_s0")),
        "teacher_full": _r3(_p(doc, "rl_grpo_s0", _n(doc, "rl_grpo_s0"))),
        "distill_p1": _r3(_p(doc, "distill")),
        "distill_lo": d_lo,
        "distill_hi": d_hi,
        "distill_full": _r3(_p(doc, "distill", _n(doc, "distill"))),
        "distill_examples": distill["examples"],
        "distill_minutes": round(distill["timing"]["wall_seconds"] / 60, 1),
        "distill_chain": _pct(distill["final"]["mode_share"]["chain"]),
        "student_p1_s0": _r3(_p(doc, "student_rl_s0")),
        "student_p1_s1": _r3(_p(doc, "student_rl_s1")),
        "student_lo": s_lo,
        "student_hi": s_hi,
        "student_full": _r3(_p(doc, "student_rl_s0", _n(doc, "student_rl_s0"))),
        "student_minutes": round(student["timing"]["train_seconds"] / 60, 1),
        "student_chain": _pct(student["final"]["mode_share"]["chain"]),
        "rl_steps": student["steps"],
        "full_k": _n(doc, "distill"),
    }


# --------------------------------------------------------------------------- the pipeline diagram


def _card_numbers(doc: Mapping, name: str, extra: list | None = None) -> list:
    f = _final(doc, name)
    n = f["samples_per_problem"]
    return [["held-out pass@1", round(f["pass_at_k"]["1"], 4), "pass1"],
            [f"pass@{n}", round(f["pass_at_k"][str(n)], 4), "passn"],
            ["share of well-formed chains", round(f["mode_share"]["chain"], 4), "chains"],
            ["bare answers", round(f["mode_share"]["answer_only"], 4), "bare"],
            ["mean length (tokens)", round(f["length"], 2), "length"],
            ["wall-clock minutes (one core)",
             round(doc["runs"][name]["timing"]["wall_seconds"] / 60, 2), "minutes"],
            *(extra or [])]


def stage_cards(doc: Mapping) -> list[dict]:
    """The pipeline diagram's boxes (`r1_stages`): position, parents, a sentence and numbers."""
    check_records(doc)
    runs = doc["runs"]
    rs = stages3_and_4(doc)
    big, small = runs["base4"]["n_layer"], runs["base2"]["n_layer"]
    cfg = runs["rl_grpo_s0"]["config"]
    steps = {n: runs[n]["steps"] for n in ("base4", "cold", "rl_grpo_s0", "stage4_s0", "zero_s0",
                                           "student_rl_s0")}
    return [
        {"id": "base4", "title": "Stage 0: base", "subtitle": "pre-training on the web-like mix",
         "row": 0, "col": 0, "from": [],
         "what": f"a {big}-layer TinyGPT trained from scratch for {steps['base4']} steps on "
                 "slipping, re-checked chains and bare answers.",
         "numbers": _card_numbers(doc, "base4")},
        {"id": "cold", "title": "Stage 1: cold start",
         "subtitle": f"SFT on {runs['cold']['examples']} curated chains",
         "row": 0, "col": 1, "from": ["base4"],
         "what": f"{steps['cold']} steps of supervised fine-tuning on right chains in house "
                 "style: format, not skill.", "numbers": _card_numbers(doc, "cold")},
        {"id": "rl_grpo_s0", "title": "Stage 2: reasoning RL",
         "subtitle": f"{steps['rl_grpo_s0']} GRPO steps", "row": 0, "col": 2, "from": ["cold"],
         "what": f"GRPO with the accuracy and format rewards, {cfg['prompts_per_step']} problems "
                 f"x {cfg['group_size']} chains a step, a k3 KL leash to the cold-start model.",
         "numbers": _card_numbers(doc, "rl_grpo_s0")},
        {"id": "stage3", "title": "Stage 3: rejection-sampling SFT",
         "subtitle": "the base fine-tuned on stage 2's verified chains", "row": 0, "col": 3,
         "from": ["rl_grpo_s0", "base4"],
         "what": f"{rs['rs_samples']} chains sampled from stage 2, {rs['rs_kept']} distinct "
                 f"verified ones kept, then {rs['s3_steps']} SFT steps from the base.",
         "numbers": _card_numbers(doc, "stage3",
                                  [["verified chains kept", rs["rs_kept"], "kept"]])},
        {"id": "stage4_s0", "title": "Stage 4: RL again",
         "subtitle": f"{steps['stage4_s0']} GRPO steps from stage 3",
         "row": 1, "col": 3, "from": ["stage3"],
         "what": "the same RL as stage 2, starting from the stage 3 model.",
         "numbers": _card_numbers(doc, "stage4_s0")},
        {"id": "zero_s0", "title": "R1-Zero",
         "subtitle": f"{steps['zero_s0']} GRPO steps straight from the base",
         "row": 1, "col": 1, "from": ["base4"],
         "what": "no supervised data at all: RL with the accuracy and format rewards only.",
         "numbers": _card_numbers(doc, "zero_s0")},
        {"id": "distill", "title": "Distilled student",
         "subtitle": f"{small} layers, SFT on the teacher",
         "row": 2, "col": 3, "from": ["base2", "rl_grpo_s0"],
         "what": f"the {small}-layer base fine-tuned on the same verified chains of the stage 2 "
                 "teacher.", "numbers": _card_numbers(doc, "distill")},
        {"id": "student_rl_s0", "title": "RL'd student",
         "subtitle": f"{small} layers, {steps['student_rl_s0']} GRPO steps",
         "row": 2, "col": 1, "from": ["base2"],
         "what": f"the {small}-layer base trained by RL directly, as R1-Zero was.",
         "numbers": _card_numbers(doc, "student_rl_s0")},
        {"id": "base2", "title": "Small base", "subtitle": f"{small} layers, same mix",
         "row": 2, "col": 0, "from": [],
         "what": f"the same pre-training as stage 0 with {small} layers instead of {big}.",
         "numbers": _card_numbers(doc, "base2")},
    ]


# --------------------------------------------------------------------------- budget forcing


def budget_rows(doc: Mapping) -> list[dict]:
    """The budget sweep (`r1_budget`): greedy accuracy and token ledger per model, mode, budget."""
    check_records(doc)
    keys = ("model", "mode", "budget", "accuracy", "thinking_tokens", "answer_tokens")
    return [{k: r[k] for k in keys} for r in doc["runs"]["budget"]["rows"]]


def budget_models(doc: Mapping) -> list[str]:
    """The models the budget sweep measured, in its order."""
    check_records(doc)
    return list(doc["runs"]["budget"]["models"])


def _brow(rows: list[dict], model: str, mode: str, budget: int) -> dict:
    return next(r for r in rows if (r["model"], r["mode"], r["budget"]) == (model, mode, budget))


def budget_row(doc: Mapping, model: str, mode: str, budget: int) -> dict:
    """One recorded point of the sweep: a model's accuracy and ledger at one budget and mode."""
    check_records(doc)
    model = require_choice("model", model, budget_models(doc))
    mode = require_choice("mode", mode, ("cut", "extend"))
    budgets = doc["settings"]["budgets"]
    budget = require_int("budget", budget, low=0)
    if budget not in budgets:
        raise ValueError(f"budget must be one of the recorded budgets {budgets}, got {budget}")
    return dict(_brow(budget_rows(doc), model, mode, budget))


def budget_knee(doc: Mapping, model: str, share: float = KNEE_SHARE) -> int:
    """The smallest budget at which cutting keeps `share` of the model's natural accuracy.

    The natural accuracy is the one at the largest budget, where no chain is cut.
    """
    check_records(doc)
    model = require_choice("model", model, budget_models(doc))
    share = require_float("share", share, low=0.0, high=1.0)
    rows = budget_rows(doc)
    best = round(_brow(rows, model, "cut", max(doc["settings"]["budgets"]))["accuracy"], 3)
    return min(r["budget"] for r in rows if r["model"] == model and r["mode"] == "cut"
               and r["accuracy"] >= share * best)


def budget_forcing(doc: Mapping) -> dict:
    """What cutting and extending the thinking did to each model of the sweep.

    Per model m: ``{m}_acc``/``{m}_think`` the greedy accuracy and thinking tokens left alone
    (the largest budget, which never binds), ``{m}_knee`` its knee, ``{m}_ext_peak`` and
    ``{m}_ext_peak_at`` the best accuracy when extended and its budget, ``{m}_ext_big`` the
    accuracy extended to the largest budget, ``{m}_zero`` the accuracy with no thinking at all.
    ``short`` is a short budget the prose quotes (the fourth recorded one) and ``{m}_short`` the
    accuracy cut there; ``big`` the largest budget, ``knee_pct`` the knee's share in percent.
    """
    check_records(doc)
    rows = budget_rows(doc)
    budgets = doc["settings"]["budgets"]
    big, short = max(budgets), sorted(budgets)[min(3, len(budgets) - 1)]
    out: dict = {"big": big, "short": short, "knee_pct": round(100 * KNEE_SHARE)}
    for m in budget_models(doc):
        natural = _brow(rows, m, "cut", big)
        ext = [r for r in rows if r["model"] == m and r["mode"] == "extend"]
        top = max(ext, key=lambda r: r["accuracy"])
        out[f"{m}_acc"] = _r3(natural["accuracy"])
        out[f"{m}_think"] = round(natural["thinking_tokens"], 1)
        out[f"{m}_knee"] = budget_knee(doc, m)
        out[f"{m}_zero"] = _r3(_brow(rows, m, "cut", min(budgets))["accuracy"])
        out[f"{m}_short"] = _r3(_brow(rows, m, "cut", short)["accuracy"])
        out[f"{m}_ext_peak"] = _r3(top["accuracy"])
        out[f"{m}_ext_peak_at"] = top["budget"]
        out[f"{m}_ext_big"] = _r3(_brow(rows, m, "extend", big)["accuracy"])
    return out


def budget_table(doc: Mapping, models: tuple[str, ...] = ("ch2", "rl_grpo_s0")) -> list[dict]:
    """Cut and extended accuracy, and the thinking tokens paid, at every third recorded budget."""
    check_records(doc)
    if isinstance(models, str) or not isinstance(models, (tuple, list)) or not models:
        raise TypeError(f"models must be a non-empty tuple of model names, got {models!r}")
    models = tuple(require_choice("models", m, budget_models(doc)) for m in models)
    rows = budget_rows(doc)
    return [
        {"model": m, "budget": b, "cut": round(_brow(rows, m, "cut", b)["accuracy"], 3),
         "extended": round(_brow(rows, m, "extend", b)["accuracy"], 3),
         "thinking tokens (cut)": round(_brow(rows, m, "cut", b)["thinking_tokens"], 1)}
        for m in models for b in sorted(doc["settings"]["budgets"])[::3]
    ]


# --------------------------------------------------------------------------- the page's trainer

#: Held-out problems the browser's trainer evaluates on (the first of the records' evaluation
#: set, chosen by the same seed): enough for a readable curve, few enough to sample in a second.
TRAINER_EVAL_PROBLEMS = 64
TRAINER_EVAL_SAMPLES = 2  # chains per held-out problem at each check-up
TRAINER_EVAL_EVERY = 5  # RL steps between check-ups


def trainer_setup(doc: Mapping, n_eval: int = TRAINER_EVAL_PROBLEMS) -> dict:
    """What chapters 5 to 9 hand the in-browser trainer (`rl_trainer.js`): the recorded stage-2
    run of every objective (its first seed) to draw beside the reader's, and a fixed held-out set.

    ``records[objective]`` holds the run's settings, its per-step statistics as columns (NaN as
    None) and its held-out pass@1 check-ups; ``eval`` is ``n_eval`` held-out problems, the first
    of the records' own evaluation problems (``settings.eval_seed``), which the page samples
    ``eval_samples`` chains of every ``eval_every`` steps.
    """
    check_records(doc)
    n_eval = require_int("n_eval", n_eval, low=1, high=doc["settings"]["eval_problems"])
    from arithmetic_task import held_out_problems  # only the page's trainer needs it

    records = {}
    for objective, label in OBJECTIVE_LABELS.items():
        run = doc["runs"][f"rl_{objective}_s0"]
        cfg, hist = run["config"], run["history"]
        records[objective] = {
            "label": label,
            "prompts": cfg["prompts_per_step"], "group": cfg["group_size"], "lr": cfg["lr"],
            "beta": cfg["beta"],
            "steps": {
                "step": [h["step"] for h in hist],
                "reward": [_clean(h["reward"]) for h in hist],
                "accuracy": [_clean(h["accuracy"]) for h in hist],
                "clip": [_clean(h["clip_fraction"]) for h in hist],
                "length_right": [_clean(h["length_correct"]) for h in hist],
                "length_wrong": [_clean(h["length_wrong"]) for h in hist],
                "kl": [_clean(h["kl"]) for h in hist],
            },
            "curve": [{"step": c["step"], "pass1": c["pass_at_k"]["1"]} for c in run["curve"]],
        }
    return {"records": records,
            "eval": held_out_problems(n_eval, seed=doc["settings"]["eval_seed"]),
            "eval_samples": TRAINER_EVAL_SAMPLES, "eval_every": TRAINER_EVAL_EVERY}
