// Cliff vs plateau: one token's gradient coefficient d J / d log pi against its ratio r, for a
// positive advantage A = +1. GRPO's clipped surrogate gives A r up to the ceiling 1 + eps_high and
// then exactly 0 (the cliff); CISPO's detached, clipped weight gives A min(r, 1 + eps_high) (the
// plateau). clipGradientCoefficient and cispoGradientCoefficient mirror
// dapo.clip_gradient_coefficient and cispo.cispo_gradient_coefficient.
import {cispoGradientCoefficient} from "./cispo_math.js";
import {clipGradientCoefficient} from "./dapo_math.js";
import {ink} from "./ink.js";
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

const R_MIN = 0.5;
const R_MAX = 3.0;
const FLOOR_EPS = 0.2; // GRPO's floor; it never binds for A = +1

export function cliffPlateauCurves(epsHigh, steps = 250) {
  const ratios = new Set();
  for (let k = 0; k <= steps; k++) ratios.add(+(R_MIN + ((R_MAX - R_MIN) * k) / steps).toFixed(6));
  const wall = 1 + epsHigh;
  if (wall < R_MAX) [wall, wall + 1e-9].forEach((r) => ratios.add(r));
  return [...ratios]
    .sort((a, b) => a - b)
    .flatMap((ratio) => [
      {ratio, method: "GRPO (clip the update)", grad: clipGradientCoefficient(ratio, 1, FLOOR_EPS, epsHigh)},
      {ratio, method: "CISPO (clip the weight)", grad: cispoGradientCoefficient(ratio, 1, epsHigh)}
    ]);
}

export function cispoCliffChart({Plot, html, width}, {ratio, epsHigh}) {
  const rows = cliffPlateauCurves(epsHigh);
  const wall = 1 + epsHigh;
  const grpo = clipGradientCoefficient(ratio, 1, FLOOR_EPS, epsHigh);
  const cispo = cispoGradientCoefficient(ratio, 1, epsHigh);
  const methods = ["GRPO (clip the update)", "CISPO (clip the weight)"];
  const chart = markGroups(Plot.plot({
    ariaLabel: "Gradient coefficient against the importance ratio, GRPO and CISPO",
    ariaDescription: `For a token with advantage +1, the gradient coefficient of GRPO (dashed) and CISPO (solid) as its importance ratio r grows, with the clip at r = ${wall.toFixed(2)} marked.`,
    width: chartWidth(width),
    height: 340,
    x: {label: "importance ratio r of the token", domain: [R_MIN, R_MAX]},
    y: {label: "gradient coefficient ∂J/∂log π  (A = +1)", domain: [0, 2.1], grid: true},
    color: {legend: true, domain: methods, range: ["#ef8a2f", "#3ca951"]},
    marks: [
      Plot.rect([{x1: wall, x2: R_MAX}], {x1: "x1", x2: "x2", y1: 0, y2: 2.1, fill: "#d62728", fillOpacity: 0.07}),
      Plot.ruleX([wall], {stroke: "#d62728", strokeDasharray: "3,3"}),
      Plot.text([{x: wall, y: 2.0}], {x: "x", y: "y", text: () => `1 + ε_high = ${wall.toFixed(2)}`, dx: 4, textAnchor: "start", fill: ink.bad}),
      Plot.line(rows.filter((d) => d.method === methods[1]), {x: "ratio", y: "grad", stroke: "method", strokeWidth: 3}),
      Plot.line(rows.filter((d) => d.method === methods[0]), {x: "ratio", y: "grad", stroke: "method", strokeWidth: 2.5, strokeDasharray: "7,3"}),
      Plot.ruleX([ratio], {stroke: "#999"}),
      Plot.dot([{ratio, grad: grpo, method: methods[0]}], {x: "ratio", y: "grad", fill: "method", r: 7}),
      Plot.dot([{ratio, grad: cispo, method: methods[1]}], {x: "ratio", y: "grad", fill: "method", stroke: "var(--bs-body-bg, white)", r: 5})
    ]
  }));
  const status = grpo === 0 ? "silenced: past the cliff, GRPO's gradient is exactly zero" : "inside the trust region: both agree";
  return html`<div data-widget="cispo-cliff">${chart}
    <p aria-live="polite">Token at r = ${ratio.toFixed(2)} (${status}). GRPO
      <b data-readout="grpo" data-value="${grpo}">${grpo.toFixed(3)}</b>, CISPO
      <b data-readout="cispo" data-value="${cispo}">${cispo.toFixed(3)}</b>; the cliff and the start of
      the plateau sit at r = <b data-readout="wall" data-value="${wall}">${wall.toFixed(2)}</b>.</p>
  </div>`;
}
