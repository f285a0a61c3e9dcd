"""The browser's RL step is PyTorch's: widgets/rl_trainer_math.js against rl_reasoner.

Both sides get the same batch: chains the JS sampler drew from chapter 12's cold start
(data/r1_cold_start.*, whose fp16 weights both widen to the same float32 values), graded on
both sides, with old and reference log-probs shifted by a fixed pattern, so that ratios fall on
both sides of every objective's clip walls and the KL term has a gradient. For each of the six
objectives the loss (1e-5 relative), every weight's gradient (1e-4 relative, in max norm) and
the weights after three AdamW steps with global-norm clipping (1e-4) must agree.
"""

from __future__ import annotations

import base64
import math

import numpy as np
import pytest
import torch

from arithmetic_task import VOCAB
from data_paths import R1_COLD_START_PATH
from gspo import sequence_importance_ratio
from objectives import TRAINER_OBJECTIVES
from rl_reasoner import (
    RLConfig,
    advantages_for,
    clip_fractions,
    policy_loss,
    policy_update,
    rewards_for,
)
from tiny_gpt import Samples, completion_logprobs, load_checkpoint, tensor_shapes

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("one_thread")]

CHECKPOINT = R1_COLD_START_PATH
PROBLEMS = ["7+5-3", "9-4+8-2"]  # the cold start is right on some of these chains, not all
GROUP = 4
SEED = 3
LR = 1e-4
GRAD_CLIP = 0.05  # below the batch's gradient norm, so the clip acts at every step
PAD = VOCAB.index("_")

# Runs in the page: load the checkpoint once, then the named action.
DRIVER = """async ([origin, action, args]) => {
  const F = await import(origin + "/widgets/tiny_gpt_forward.js");
  const R = await import(origin + "/widgets/rl_trainer_math.js");
  if (!window.__r1) {
    const meta = await (await fetch(origin + "/data/r1_cold_start.json")).json();
    const buffer = await (await fetch(origin + "/data/" + meta.bin)).arrayBuffer();
    window.__r1 = {meta, buffer};
  }
  const model = F.buildTinyGPT(window.__r1.meta, window.__r1.buffer);  // fresh weights
  const pack = (arrays) => {  // float32 bytes, base64, tensors in state_dict order
    const total = arrays.reduce((s, a) => s + a.length, 0);
    const out = new Float32Array(total);
    let o = 0;
    for (const a of arrays) { out.set(a, o); o += a.length; }
    const bytes = new Uint8Array(out.buffer);
    let text = "";
    for (let i = 0; i < bytes.length; i += 8192) {
      text += String.fromCharCode(...bytes.subarray(i, i + 8192));
    }
    return btoa(text);
  };
  const names = F.expectedTensors(model.config).map(([n]) => n);
  if (action === "sample") {
    const [problems, G, seed] = args;
    return R.sampleGroups(model, problems, G, 1.0, F.mulberry32(seed)).map((c) => ({
      ...c, reward: R.grade(c.problem, c.text) + 0.1 * R.formatReward(c.text)}));
  }
  const [cfgIn, batch] = args;
  const cfg = R.validateConfig(cfgIn);
  const rewards = [];
  const G = cfg.group_size;
  for (let i = 0; i < batch.rewards.length; i += G) rewards.push(batch.rewards.slice(i, i + G));
  batch.adv = R.advantagesFor(rewards, cfg.objective);
  if (action === "gradient") {
    const g = R.batchGradients(model, batch, cfg);
    const clip = R.clipFractions(cfg.objective, g.logp, batch.old, batch.adv, cfg);
    return {loss: g.loss, policyLoss: g.policyLoss, kl: g.kl, adv: batch.adv, clip,
            grads: pack(names.map((n) => g.grads[n]))};
  }
  const opt = R.createAdamW(model, {lr: cfg.lr});
  R.updateOnBatch(model, opt, batch, cfg);
  return {weights: pack(names.map((n) => model.weights[n]))};
}"""


def unpack(text: str) -> dict[str, torch.Tensor]:
    flat = np.frombuffer(base64.b64decode(text), dtype="<f4")
    out, offset = {}, 0
    for name, shape in tensor_shapes(load_checkpoint(CHECKPOINT)[0].config).items():
        size = math.prod(shape)
        out[name] = torch.from_numpy(flat[offset : offset + size].copy()).reshape(shape)
        offset += size
    assert offset == flat.size
    return out


def rel_max(a: torch.Tensor, b: torch.Tensor) -> float:
    """max |a - b| / max |b|: the error relative to the tensor's max norm."""
    return float((a.double() - b.double()).abs().max() / b.double().abs().max().clamp_min(1e-30))


def shift(i: int, t: int, kind: str) -> float:
    """Fixed offsets of old / reference log-probs (token t of chain i): small, middling and
    large ratios, and per-chain offsets that move GSPO's sequence ratio past its walls."""
    if kind == "old":
        return (0.002, 0.05, 0.3)[i % 3] * math.sin(1.7 * t + i) + (0.0, -0.005, 0.004, 0.001)[
            i % 4
        ]
    return 0.1 * math.cos(0.9 * t + 2 * i)


@pytest.fixture(scope="module")
def batch(js):
    chains = js.page.evaluate(DRIVER, [js.origin, "sample", [PROBLEMS, GROUP, SEED]])
    problems = [c["problem"] for c in chains]
    completions = [c["text"] for c in chains]
    rewards = rewards_for(problems, completions, 0.1)
    # The JS grader is the Python one (accuracy + 0.1 x format).
    assert [c["reward"] for c in chains] == pytest.approx(rewards.tolist(), abs=1e-7)
    assert any(len(set(rewards[i : i + GROUP].tolist())) > 1 for i in range(0, len(chains), GROUP))
    width = max(len(c["tokens"]) for c in chains)
    tokens = torch.full((len(chains), width), PAD, dtype=torch.long)
    old = torch.zeros(len(chains), width)
    ref = torch.zeros(len(chains), width)
    js_old, js_ref = [], []
    for i, c in enumerate(chains):
        n = len(c["tokens"])
        tokens[i, :n] = torch.tensor(c["tokens"])
        o = [lp + shift(i, t, "old") for t, lp in enumerate(c["logp"])]
        r = [lp + shift(i, t, "ref") for t, lp in enumerate(c["logp"])]
        old[i, :n], ref[i, :n] = torch.tensor(o), torch.tensor(r)
        # what the page gets: the float32 values Python holds
        js_old.append(old[i, :n].tolist())
        js_ref.append(ref[i, :n].tolist())
    mask = tokens != PAD
    assert len(set(mask.sum(dim=1).tolist())) > 1  # ragged: padding is exercised
    samples = Samples(
        [f"{p}=" for p in problems],
        completions,
        tokens,
        old,
        mask,
        torch.tensor([c["finished"] for c in chains]),
    )
    page_batch = {
        "problems": problems,
        "tokens": [c["tokens"] for c in chains],
        "old": js_old,
        "ref": js_ref,
        "rewards": rewards.tolist(),
    }
    return samples, rewards.reshape(-1, GROUP), ref, page_batch


def config(objective: str, **extra) -> RLConfig:
    return RLConfig(
        objective=objective,
        prompts_per_step=len(PROBLEMS),
        group_size=GROUP,
        lr=LR,
        beta=0.05,
        **extra,
    )


def page_config(cfg: RLConfig) -> dict:
    keys = [
        "objective",
        "prompts_per_step",
        "group_size",
        "lr",
        "beta",
        "inner_steps",
        "eps_low",
        "eps_high",
        "grad_clip",
        "dr_grpo_max_len",
    ]
    return {k: getattr(cfg, k) for k in keys}


def fresh_model():
    model, _ = load_checkpoint(CHECKPOINT)
    return model


@pytest.mark.parametrize("objective", TRAINER_OBJECTIVES)
def test_loss_and_gradients_match_pytorch(js, batch, objective):
    samples, rewards, ref, page_batch = batch
    cfg = config(objective, inner_steps=1, grad_clip=1e30)  # one pass, the clip a no-op
    adv = advantages_for(rewards, objective)
    model = fresh_model()
    # No ratio may sit on a clip wall: the result must not hinge on a float's last bits.
    with torch.no_grad():
        rho = torch.exp(completion_logprobs(model, samples) - samples.logprobs)[samples.mask]
        seq = sequence_importance_ratio(
            completion_logprobs(model, samples), samples.logprobs, samples.mask
        )
    for ratios, walls in ((rho, (0.8, 1.2, 1.28)), (seq, (1 - 3e-3, 1 + 4e-3))):
        for wall in walls:
            assert float((ratios - wall).abs().min()) > 1e-5 * wall
    # PyTorch: rl_reasoner's own update, with an optimizer that does not move the weights.
    new, loss, kl = policy_update(
        model, torch.optim.SGD(model.parameters(), lr=0.0), samples, adv, ref, cfg
    )
    got = js.page.evaluate(DRIVER, [js.origin, "gradient", [page_config(cfg), page_batch]])
    assert got["adv"] == pytest.approx(adv.tolist(), rel=1e-6, abs=1e-7)
    # The policy loss sums terms of both signs (the advantages of a group cancel), so it is
    # held to 1e-5 of the size of its terms: the same loss with |A| for A. The KL's terms are
    # all positive: 1e-5 of itself.
    with torch.no_grad():
        size = float(policy_loss(objective, new, samples.logprobs, adv.abs(), samples.mask, cfg))
    loss, kl = float(loss), float(kl)
    assert abs(got["policyLoss"] - loss) <= 1e-5 * max(abs(size), abs(loss))
    assert got["kl"] == pytest.approx(kl, rel=1e-5)
    assert abs(got["loss"] - (loss + cfg.beta * kl)) <= 1e-5 * (abs(size) + cfg.beta * kl)
    want = clip_fractions(objective, new.detach(), samples.logprobs, adv, samples.mask, cfg)
    assert got["clip"] == pytest.approx(want, abs=1e-12)
    if objective not in ("reinforce",):  # the batch reaches past the trust region's walls
        assert 0 < want["clipped"] < 1, want
    grads = unpack(got["grads"])
    worst = {}
    for name, p in model.named_parameters():
        assert p.grad is not None and float(p.grad.abs().max()) > 0, name
        worst[name] = rel_max(grads[name], p.grad)
    bad = {k: v for k, v in worst.items() if v > 1e-4}
    assert not bad, bad
    assert max(worst.values()) > 0  # two computations, not one copied


@pytest.mark.parametrize("objective", TRAINER_OBJECTIVES)
def test_weights_after_three_adamw_steps_match_pytorch(js, batch, objective):
    samples, rewards, ref, page_batch = batch
    cfg = config(objective, inner_steps=3, grad_clip=GRAD_CLIP)
    adv = advantages_for(rewards, objective)
    model = fresh_model()
    start = {k: v.clone() for k, v in model.state_dict().items()}
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.0)  # train_rl's
    policy_update(model, optimizer, samples, adv, ref, cfg)
    norm = torch.sqrt(sum((p.grad.double() ** 2).sum() for p in model.parameters()))
    # The last step's gradient, as the clip left it, has the clip's norm: the clip acted.
    assert float(norm) == pytest.approx(GRAD_CLIP, rel=1e-4)
    got = js.page.evaluate(DRIVER, [js.origin, "update", [page_config(cfg), page_batch]])
    got = unpack(got["weights"])
    worst = {}
    for name, p in model.named_parameters():
        assert not torch.equal(p.detach(), start[name]), name  # the weights moved
        worst[name] = rel_max(got[name], p.detach())
    bad = {k: v for k, v in worst.items() if v > 1e-4}
    assert not bad, bad


def test_the_task_is_pythons(js):
    """The JS trainer's split, answers and grades are arithmetic_task's (problems drawn in JS
    from the train split are never held out)."""
    import random

    from arithmetic_task import answer_of, format_reward, grade, is_held_out, random_problem

    rng = random.Random(5)
    problems = [random_problem(rng, s) for s in ("train", "held_out") for _ in range(150)]
    assert js.call_many("rl_trainer_math.js", "isHeldOut", [[p] for p in problems]) == [
        is_held_out(p) for p in problems
    ]
    assert js.call_many("rl_trainer_math.js", "answerOf", [[p] for p in problems]) == [
        answer_of(p) for p in problems
    ]
    texts = ["7+5=12;12-3=9;####9", "7+5=12;12-3=8;####8", "####9", "9", "7+5=12;####9;", ""]
    args = [["7+5-3", t] for t in texts]
    assert js.call_many("rl_trainer_math.js", "grade", args) == [grade(*a) for a in args]
    assert js.call_many("rl_trainer_math.js", "formatReward", [[t] for t in texts]) == [
        format_reward(t) for t in texts
    ]
    drawn = js.page.evaluate(
        """async (url) => {
             const R = await import(url);
             const F = await import(url.replace("rl_trainer_math", "tiny_gpt_forward"));
             const rand = F.mulberry32(7);
             return Array.from({length: 300}, () => R.randomProblem(rand, "train"));
           }""",
        f"{js.origin}/widgets/rl_trainer_math.js",
    )
    assert not any(is_held_out(p) for p in drawn)
    assert {len(p) for p in drawn} == {5, 7, 9}  # 3, 4 and 5 operands


@pytest.mark.parametrize(
    ("cfg", "field"),
    [
        ({"lr": float("nan")}, "lr"),
        ({"lr": 0}, "lr"),
        ({"group_size": 1}, "group_size"),
        ({"problem_pool": ["7*5"]}, "problem_pool[0]"),
        ({"objective": "ppo"}, "objective"),
        ({"eps_low": 1.5}, "eps_low"),
        ({"objective": "reinforce", "eps_high": 0.2}, "eps_low and eps_high"),
    ],
)
def test_a_bad_config_is_refused_naming_the_field(js, cfg, field):
    got = js.call("rl_trainer_math.js", "validateConfig", cfg)
    assert isinstance(got, dict) and "error" in got, got
    assert got["error"].startswith(field), got


@pytest.mark.parametrize("objective", TRAINER_OBJECTIVES)
def test_the_trust_region_defaults_are_rlconfigs(js, objective):
    """validateConfig fills eps_low / eps_high as RLConfig does (objectives.TRAINER_EPS)."""
    got = js.call("rl_trainer_math.js", "validateConfig", {"objective": objective})
    want = RLConfig(objective=objective)
    assert (got["eps_low"], got["eps_high"]) == (want.eps_low, want.eps_high), got
