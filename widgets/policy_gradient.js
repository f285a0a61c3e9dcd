// The policy-gradient chapter's widgets.
//
//   baselineVarianceChart  the exact variance of one REINFORCE sample against the baseline b
//   clipChart              PPO's clipped surrogate against the ratio: drag eps, flip A's sign
//   gaeChart               GAE's lambda: one chain's advantages, and the measured bias / variance
//
// The maths lives in policy_gradient_math.js and ppo_math.js, tested against Python.
import {exactGradientVariance} from "./policy_gradient_math.js";
import {clippedSurrogate, gae} from "./ppo_math.js";
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";
import {ink} from "./ink.js";

const ORANGE = "#e07b00";
const BLUE = "#3867d6";

/** Var(b) over a range of baselines, with the chosen b, the mean reward and the best b marked. */
export function baselineVarianceChart({Plot, html, width}, {probs, rewards, baseline}) {
  const lo = Math.min(...rewards) - 1;
  const hi = Math.max(...rewards) + 1;
  const curve = [];
  for (let k = 0; k <= 200; k++) {
    const b = lo + ((hi - lo) * k) / 200;
    curve.push({b, variance: exactGradientVariance(probs, rewards, b).variance});
  }
  const here = exactGradientVariance(probs, rewards, baseline);
  const none = exactGradientVariance(probs, rewards, 0).variance;
  const marks = [
    {b: 0, variance: none, label: "no baseline"},
    {b: here.mean_reward, variance: exactGradientVariance(probs, rewards, here.mean_reward).variance, label: "mean reward"},
    {b: here.best_baseline, variance: here.best_variance, label: "best b"}
  ];
  const chart = markGroups(Plot.plot({
    ariaLabel: "Variance of one REINFORCE sample against the baseline subtracted from its reward",
    ariaDescription: `A parabola: the exact variance of the gradient estimate as the baseline b goes from ${lo.toFixed(1)} to ${hi.toFixed(1)}, least near the mean reward; the chosen b = ${baseline.toFixed(2)} is the large dot.`,
    width: chartWidth(width),
    height: 300,
    marginLeft: 56,
    x: {label: "baseline b subtracted from the reward", domain: [lo, hi]},
    y: {label: "variance of the estimate", grid: true, zero: true},
    marks: [
      Plot.line(curve, {x: "b", y: "variance", stroke: BLUE, strokeWidth: 2}),
      Plot.dot(marks, {x: "b", y: "variance", symbol: "label", stroke: "currentColor", r: 5}),
      // The three marked baselines sit close together near the parabola's floor (b = 0, the
      // best b and the mean reward), so each label takes its own side of its dot.
      Plot.text(marks.slice(0, 1), {x: "b", y: "variance", text: "label", textAnchor: "end", dx: -9, fontSize: 11, fill: ink.muted}),
      Plot.text(marks.slice(1, 2), {x: "b", y: "variance", text: "label", textAnchor: "start", dx: 9, fontSize: 11, fill: ink.muted}),
      Plot.text(marks.slice(2, 3), {x: "b", y: "variance", text: "label", textAnchor: "middle", dy: -12, fontSize: 11, fill: ink.muted}),
      Plot.ruleX([baseline], {stroke: ORANGE, strokeDasharray: "4,3"}),
      Plot.dot([{b: baseline, variance: here.variance}], {x: "b", y: "variance", fill: ORANGE, r: 7, stroke: "var(--bs-body-bg, white)"})
    ]
  }));
  const ratio = here.variance / none;
  // Values of b (the slider's, the best, the mean reward) print as the slider steps, 0.01.
  return html`<div data-widget="baseline-variance">${chart}
    <p aria-live="polite">With b = ${baseline.toFixed(2)} one sample's gradient estimate has variance
      <b data-readout="variance" data-value="${here.variance}">${here.variance.toFixed(4)}</b>, against
      <b data-readout="none" data-value="${none}">${none.toFixed(4)}</b> with no baseline
      (<b data-readout="ratio" data-value="${ratio}">${ratio.toFixed(3)}</b>×). Its mean is the true gradient
      whatever b is. The least variance, <b data-readout="best_variance" data-value="${here.best_variance}">${here.best_variance.toFixed(4)}</b>,
      is at b = <b data-readout="best_baseline" data-value="${here.best_baseline}">${here.best_baseline.toFixed(2)}</b>;
      the mean reward is ${here.mean_reward.toFixed(2)}.</p>
  </div>`;
}

/** The objective min(rho A, clip(rho) A) against rho, its two branches, and the flat (no-gradient) part. */
export function clipChart({Plot, html, width}, {eps, advantage, ratio}) {
  const rows = [];
  for (let k = 0; k <= 200; k++) {
    const r = 0.01 * k;
    const clipped = Math.min(Math.max(r, 1 - eps), 1 + eps) * advantage;
    rows.push({ratio: r, value: clippedSurrogate(r, advantage, eps, eps), branch: "objective (the min)"});
    rows.push({ratio: r, value: r * advantage, branch: "ρ·A (unclipped)"});
    rows.push({ratio: r, value: clipped, branch: "clip(ρ)·A"});
  }
  const flat = advantage > 0 ? [1 + eps, 2] : [0, 1 - eps];
  const value = clippedSurrogate(ratio, advantage, eps, eps);
  // The gradient in rho is A where the unclipped branch is the min, 0 where the clipped one is.
  const clippedHere = ratio * advantage > Math.min(Math.max(ratio, 1 - eps), 1 + eps) * advantage;
  const slope = clippedHere ? 0 : advantage;
  const chart = markGroups(Plot.plot({
    ariaLabel: "PPO's clipped surrogate against the importance ratio",
    ariaDescription: `For an advantage of ${advantage}, the objective is the smaller of the unclipped term and the clipped one; it goes flat (no gradient) for ratios ${advantage > 0 ? `above ${(1 + eps).toFixed(2)}` : `below ${(1 - eps).toFixed(2)}`}, the shaded band.`,
    width: chartWidth(width),
    height: 300,
    marginLeft: 50,
    x: {label: "importance ratio ρ = π_θ / π_old", domain: [0, 2]},
    y: {label: "objective for this token", grid: true, domain: advantage > 0 ? [0, 2] : [-2, 0]},
    color: {legend: true, domain: ["objective (the min)", "ρ·A (unclipped)", "clip(ρ)·A"], range: [ORANGE, BLUE, "currentColor"]},
    marks: [
      Plot.rectX([{x1: flat[0], x2: flat[1]}], {x1: "x1", x2: "x2", fill: "currentColor", fillOpacity: 0.08}),
      Plot.line(rows.filter((d) => d.branch !== "objective (the min)"), {x: "ratio", y: "value", stroke: "branch", strokeDasharray: (d) => (d.branch === "clip(ρ)·A" ? "2,3" : "6,4"), z: "branch", strokeWidth: 1.5}),
      Plot.line(rows.filter((d) => d.branch === "objective (the min)"), {x: "ratio", y: "value", stroke: "branch", strokeWidth: 3.5, strokeOpacity: 0.8}),
      Plot.ruleX([1 - eps, 1 + eps], {stroke: "currentColor", strokeOpacity: 0.4}),
      Plot.dot([{ratio, value}], {x: "ratio", y: "value", fill: ORANGE, r: 7, stroke: "var(--bs-body-bg, white)"})
    ]
  }));
  return html`<div data-widget="clip">${chart}
    <p aria-live="polite">At ρ = ${ratio.toFixed(2)} with A = ${advantage} the objective is
      <b data-readout="objective" data-value="${value}">${value.toFixed(3)}</b> and its slope in ρ is
      <b data-readout="slope" data-value="${slope}">${slope}</b>${slope === 0 ? " (clipped: this token gets no push)" : ""}.
      The clip binds for ρ ${advantage > 0 ? ">" : "<"}
      <b data-readout="edge" data-value="${advantage > 0 ? 1 + eps : 1 - eps}">${(advantage > 0 ? 1 + eps : 1 - eps).toFixed(2)}</b>,
      the side the advantage pushes towards; on the other side the unclipped term is smaller and keeps its slope.</p>
  </div>`;
}

/** One chain's GAE advantages at lambda (live), beside the measured bias and variance by lambda. */
export function gaeChart({Plot, html, width}, {lam, chain, curve}) {
  const {advantages} = gae(chain.rewards, chain.values, 1, lam);
  const tokens = advantages.map((a, t) => ({token: t + 1, advantage: a, good: chain.good[t] ? "good token" : "bad token"}));
  const nearest = curve.reduce((best, d) => (Math.abs(d.lam - lam) < Math.abs(best.lam - lam) ? d : best), curve[0]);
  const bars = markGroups(Plot.plot({
    ariaLabel: "GAE advantage of each token of one chain",
    ariaDescription: `Bars: the advantage GAE gives each of the chain's ${tokens.length} tokens at lambda = ${lam.toFixed(2)}; a good token is a filled bar, a bad one an outlined bar.`,
    width: chartWidth(width, 320),
    height: 260,
    marginLeft: 50,
    x: {label: "token", domain: tokens.map((d) => d.token)},
    y: {label: "advantage", grid: true, domain: [-1, 1]},
    marks: [
      Plot.barY(tokens.filter((d) => d.good === "good token"), {x: "token", y: "advantage", fill: BLUE}),
      Plot.barY(tokens.filter((d) => d.good === "bad token"), {x: "token", y: "advantage", stroke: ORANGE, strokeWidth: 2, fill: "none"}),
      Plot.ruleY([0], {stroke: "currentColor"})
    ]
  }));
  const series = curve.flatMap((d) => [
    {lam: d.lam, value: d.bias * d.bias, what: "bias²"},
    {lam: d.lam, value: d.variance, what: "variance"}
  ]);
  const dial = markGroups(Plot.plot({
    ariaLabel: "Bias squared and variance of the policy gradient against GAE's lambda",
    ariaDescription: "Measured on the coin-flip chain with a half-wrong critic: the squared bias falls to zero as lambda goes to 1 while the variance rises.",
    width: chartWidth(width, 320),
    height: 260,
    marginLeft: 56,
    x: {label: "λ", domain: [0, 1]},
    y: {label: "bias² and variance", grid: true, zero: true},
    color: {legend: true, domain: ["bias²", "variance"], range: [ORANGE, BLUE]},
    symbol: {domain: ["bias²", "variance"], range: ["circle", "square"]},
    marks: [
      Plot.line(series, {x: "lam", y: "value", stroke: "what"}),
      Plot.dot(series, {x: "lam", y: "value", stroke: "what", symbol: "what", r: 3}),
      Plot.ruleX([nearest.lam], {stroke: "currentColor", strokeDasharray: "4,3"})
    ]
  }));
  for (const fig of [bars, dial]) fig.style.margin = "0";
  return html`<div data-widget="gae">
    <div style="display:flex;flex-wrap:wrap;gap:12px">${bars}${dial}</div>
    <p aria-live="polite">At λ = ${lam.toFixed(2)} the first token's advantage is
      <b data-readout="first" data-value="${advantages[0]}">${advantages[0].toFixed(3)}</b>. Measured at λ = ${nearest.lam.toFixed(2)}:
      the gradient's bias is <b data-readout="bias" data-value="${nearest.bias}">${nearest.bias.toFixed(3)}</b> (exact gradient ${nearest.exact.toFixed(3)})
      and its variance <b data-readout="variance" data-value="${nearest.variance}">${nearest.variance.toFixed(3)}</b>.</p>
  </div>`;
}
