// Reflection tokens: one step's tokens, three of them high-ratio "fork" tokens (However,
// Recheck, Wait). For the chosen eps_high, reflectionGradients (mirroring
// cispo.demonstrate_reflection_token: ppo_clip_mask for GRPO, the detached upper-only clip for
// CISPO) gives every token's push on log pi; the lower chart counts the fork tokens still
// learning as eps_high sweeps. The two methods' names come from the chapter (`labels`:
// code/objectives.py's OBJECTIVE_LABELS).
import {reflectionGradients} from "./cispo_math.js";
import {ink} from "./ink.js";
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

/** The two series names, GRPO's and CISPO's. */
function methods(labels) {
  if (typeof labels?.grpo !== "string" || typeof labels?.cispo !== "string") {
    throw new TypeError("labels must map grpo and cispo to their names");
  }
  return [labels.grpo, labels.cispo];
}

export function keptSweep(tokens, labels, steps = 90) {
  const [GRPO, CISPO] = methods(labels);
  const rows = [];
  for (let k = 0; k <= steps; k++) {
    const eps = 0.05 + (0.9 * k) / steps;
    const res = reflectionGradients(tokens, eps, eps);
    rows.push({eps, method: GRPO, kept: res.kept_grpo});
    rows.push({eps, method: CISPO, kept: res.kept_cispo});
  }
  return rows;
}

export function reflectionTokensChart({Plot, html, width}, tokens, epsHigh, labels) {
  const METHODS = methods(labels);
  const [GRPO, CISPO] = METHODS;
  const res = reflectionGradients(tokens, epsHigh, epsHigh);
  const N = tokens.length;
  const name = (t) => (t.is_fork ? `★ ${t.label}` : t.label);
  const order = res.tokens.map(name);
  // -N * d loss / d log pi: the push the token's log-probability receives (positive = raised).
  const bars = res.tokens.flatMap((t) => [
    {token: name(t), method: GRPO, push: -N * t.grad_grpo + 0, ratio: t.ratio, fork: t.is_fork},
    {token: name(t), method: CISPO, push: -N * t.grad_cispo + 0, ratio: t.ratio, fork: t.is_fork}
  ]);
  const silenced = bars.filter((b) => b.method === GRPO && b.push === 0);
  const color = {legend: true, domain: METHODS, range: ["#ef8a2f", "#3ca951"]};
  const chart = markGroups(Plot.plot({
    ariaLabel: "Push on each token's log-probability, GRPO against CISPO",
    ariaDescription: `For each token of the example (fork tokens starred), the push GRPO and CISPO give its log-probability at epsilon_high = ${epsHigh.toFixed(2)}; each bar is labelled with its objective.`,
    width: chartWidth(width),
    height: 330,
    marginLeft: 80,
    marginRight: 60, // the ratio of each token, in the margin right of its bars
    x: {label: "push on log π  (−N · ∂loss/∂log π)", domain: [-0.3, 1.55], grid: true},
    y: {label: null, domain: METHODS, axis: null},
    fy: {label: null, domain: order},
    color,
    marks: [
      Plot.barX(bars, {x: "push", y: "method", fy: "token", fill: "method", tip: true}),
      // The objective named on its bar, so the two are told apart without colour.
      // A bar that pushes down (negative) runs left from zero, so its name goes right of zero.
      ...[[(b) => b.push > 0, "end", -3], [(b) => b.push < 0, "start", 3]].map(([side, textAnchor, dx]) =>
        Plot.text(bars.filter(side), {x: 0, y: "method", fy: "token", text: "method", textAnchor, dx, fontSize: 9,
          fill: "currentColor", stroke: "var(--bs-body-bg, white)", strokeWidth: 3, paintOrder: "stroke"})), // a halo: it may sit on a bar
      Plot.text(silenced, {x: 0, y: "method", fy: "token", text: () => "✕ silenced", textAnchor: "start", dx: 4, fill: ink.bad, fontSize: 10}),
      Plot.text(res.tokens, {x: 1.55, fy: name, text: (t) => `r = ${t.ratio.toFixed(3)}`, textAnchor: "start", dx: 4, fill: ink.muted, fontSize: 10, frameAnchor: "middle"}),
      Plot.ruleX([0])
    ]
  }));
  const sweep = keptSweep(tokens, labels);
  const sweepChart = markGroups(Plot.plot({
    ariaLabel: "Fork tokens still learning against the clip ceiling",
    ariaDescription: "Number of fork tokens that still receive a gradient as the clip ceiling epsilon grows, one line each for GRPO and CISPO.",
    width: chartWidth(width),
    height: 180,
    marginLeft: 80,
    x: {label: "ceiling ε (GRPO applies it on both sides)", domain: [0.05, 0.95]},
    y: {label: "fork tokens learning", domain: [0, res.n_fork + 0.3], ticks: res.n_fork + 1},
    color: {domain: METHODS, range: color.range},
    marks: [
      Plot.line(sweep, {x: "eps", y: "kept", stroke: "method", curve: "step-after", strokeWidth: 2.5}),
      Plot.ruleX([epsHigh], {stroke: "#999", strokeDasharray: "4,3"})
    ]
  }));
  const wait = res.tokens.find((t) => t.label === "Wait");
  return html`<div data-widget="reflection-tokens">${chart}${sweepChart}
    <p aria-live="polite">At ε_high = ${epsHigh.toFixed(2)}, fork tokens still learning: GRPO
      <b data-readout="kept-grpo" data-value="${res.kept_grpo}">${res.kept_grpo}</b>/${res.n_fork}, CISPO
      <b data-readout="kept-cispo" data-value="${res.kept_cispo}">${res.kept_cispo}</b>/${res.n_fork}.
      The gradient of <i>Wait</i> (r = ${wait.ratio}): GRPO
      <b data-readout="wait-grpo" data-value="${wait.grad_grpo}">${wait.grad_grpo.toFixed(4)}</b>, CISPO
      <b data-readout="wait-cispo" data-value="${wait.grad_cispo}">${wait.grad_cispo.toFixed(4)}</b>.</p>
  </div>`;
}
