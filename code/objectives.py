"""The five RL objectives of the book, by key and by the name a reader sees.

One table, read by the code that trains (``rl_reasoner``'s objective switch), the code that
reads the recorded runs (``r1_runs``) and the chapters, and below it the trust region's widths
every loss takes its defaults from. It imports nothing, so reading a label never loads the
training code.
"""

from __future__ import annotations

#: Key -> display name, in the order the chapters introduce the objectives (chapters 5 to 9).
OBJECTIVE_LABELS: dict[str, str] = {
    "grpo": "GRPO",
    "dr_grpo": "Dr. GRPO",
    "dapo": "DAPO",
    "gspo": "GSPO",
    "cispo": "CISPO",
}

#: The keys alone, in the same order: what a config's ``objective`` field may hold.
OBJECTIVES: tuple[str, ...] = tuple(OBJECTIVE_LABELS)

#: What a trainer accepts (``rl_reasoner.RLConfig``, the browser trainer
#: ``widgets/rl_trainer_math.js``): the five and REINFORCE with a group-mean baseline
#: (``policy_gradient.py``). REINFORCE has no recorded run, so it stays out of ``OBJECTIVES``,
#: which ``r1_runs``, ``r1_experiments``, the chapters and their tests iterate expecting one.
TRAINER_OBJECTIVE_LABELS: dict[str, str] = {**OBJECTIVE_LABELS, "reinforce": "REINFORCE"}
TRAINER_OBJECTIVES: tuple[str, ...] = tuple(TRAINER_OBJECTIVE_LABELS)

# --------------------------------------------------------------------------------------------
# The trust region's widths, by one pair of names everywhere: ``eps_low`` (the floor is
# ``1 - eps_low``) and ``eps_high`` (the ceiling is ``1 + eps_high``). They are the papers'
# epsilon_low / epsilon_high (DAPO, CISPO), TRL's ``epsilon`` / ``epsilon_high`` and verl's
# ``clip_ratio_low`` / ``clip_ratio_high``. ``None`` means no wall on that side.
# --------------------------------------------------------------------------------------------

#: PPO's clip width (Schulman et al., 2017), which GRPO keeps on both sides (TRL's default).
EPS = 0.2

#: DAPO's Clip-Higher ceiling (Yu et al., 2025); the floor stays at ``EPS``.
DAPO_EPS_HIGH = 0.28

#: GSPO's widths on the sequence ratio (Zheng et al., 2025): ``s_i`` is a geometric mean, so it
#: moves ~1000x less than a token ratio and GRPO's 0.2 would almost never bind.
GSPO_EPS_LOW = 3e-4
GSPO_EPS_HIGH = 4e-4

#: The trainer's trust region per objective, ``(eps_low, eps_high)``: ``rl_reasoner.RLConfig``'s
#: defaults and the browser trainer's (``widgets/rl_trainer_math.js``). GSPO's are ten times the
#: paper's, on the scale the tiny reasoner's ~20-token sequence ratio moves; CISPO truncates its
#: importance weight from above only (MiniMax-M1 drops the floor); REINFORCE has no ratio.
TRAINER_EPS: dict[str, tuple[float | None, float | None]] = {
    "grpo": (EPS, EPS),
    "dr_grpo": (EPS, EPS),
    "dapo": (EPS, DAPO_EPS_HIGH),
    "gspo": (3e-3, 4e-3),
    "cispo": (None, DAPO_EPS_HIGH),
    "reinforce": (None, None),
}
