// Clip-Higher: the per-token gradient coefficient d term / d log pi against the ratio r, for a
// token with A = +1 (upper branch) and A = -1 (lower branch). GRPO's symmetric clip (dashed) is
// Python's autograd curve (dapo.clip_higher_curve); DAPO's decoupled clip (solid) is recomputed
// live by clipGradientCoefficient, which mirrors dapo.clip_gradient_coefficient.
import {clipGradientCoefficient} from "./dapo_math.js";
import {ink} from "./ink.js";
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

/** DAPO's curve on a fine grid, with the two walls drawn as vertical drops. */
export function clipHigherCurve(epsLow, epsHigh, rMin = 0.5, rMax = 1.6, steps = 220) {
  const ratios = new Set();
  for (let k = 0; k <= steps; k++) ratios.add(+(rMin + ((rMax - rMin) * k) / steps).toFixed(6));
  for (const wall of [1 + epsHigh, 1 - epsLow]) {
    if (wall > rMin && wall < rMax) {
      ratios.add(wall);
      ratios.add(wall + 1e-9);
      ratios.add(wall - 1e-9);
    }
  }
  const grid = [...ratios].sort((a, b) => a - b);
  return grid.flatMap((ratio) => [
    {ratio, branch: "A = +1", grad: clipGradientCoefficient(ratio, 1, epsLow, epsHigh)},
    {ratio, branch: "A = -1", grad: clipGradientCoefficient(ratio, -1, epsLow, epsHigh)}
  ]);
}

/** grpoEps: the symmetric width grpoCurve was drawn at, from the chapter's data (dapo_eps). */
export function clipHigherChart({Plot, html, width}, grpoCurve, {epsHigh, epsLow, ratio, grpoEps}) {
  const dapo = clipHigherCurve(epsLow, epsHigh);
  const grpo = grpoCurve.flatMap((d) => [
    {ratio: d.ratio, branch: "A = +1", grad: d.grpo_grad},
    {ratio: d.ratio, branch: "A = -1", grad: d.grpo_grad_neg}
  ]);
  const wall = 1 + epsHigh;
  const floor = 1 - epsLow;
  const here = {
    dapoPos: clipGradientCoefficient(ratio, 1, epsLow, epsHigh),
    dapoNeg: clipGradientCoefficient(ratio, -1, epsLow, epsHigh),
    grpoPos: clipGradientCoefficient(ratio, 1, grpoEps, grpoEps),
    grpoNeg: clipGradientCoefficient(ratio, -1, grpoEps, grpoEps)
  };
  const band = (x1, x2, fill) => (x2 > x1 ? [{x1, x2, fill}] : []);
  const bands = [
    ...band(1 + grpoEps, wall, "#ef8a2f"), // headroom Clip-Higher adds for good tokens
    ...band(floor, 1 - grpoEps, "#d62728") // extra room to crush bad tokens (the pitfall)
  ];
  const chart = markGroups(Plot.plot({
    ariaLabel: "Gradient coefficient against the importance ratio, GRPO and DAPO",
    ariaDescription: `For good (A = +1) and bad (A = -1) tokens, the gradient coefficient under GRPO's symmetric clip (dashed) and DAPO's clip-higher (solid) as the importance ratio r grows, the token at r = ${ratio.toFixed(2)} marked.`,
    width: chartWidth(width),
    height: 360,
    marginLeft: 50,
    x: {label: "importance ratio r of the token", domain: [0.5, 1.6]},
    y: {label: "gradient coefficient ∂term/∂log π", domain: [-1.7, 1.7], grid: true},
    marks: [
      Plot.rect(bands, {x1: "x1", x2: "x2", y1: -1.7, y2: 1.7, fill: "fill", fillOpacity: 0.13}),
      Plot.ruleY([0], {stroke: "#999"}),
      Plot.line(dapo, {x: "ratio", y: "grad", z: "branch", stroke: "#ef8a2f", strokeWidth: 3}),
      Plot.line(grpo, {x: "ratio", y: "grad", z: "branch", stroke: "#888", strokeWidth: 1.5, strokeDasharray: "5,4"}), // mid grey: seen on both pages
      Plot.ruleX([wall], {stroke: "#ef8a2f", strokeDasharray: "2,3"}),
      Plot.ruleX([floor], {stroke: "#4269d0", strokeDasharray: "2,3"}),
      // Left of the wall once it is past the middle of the axis, so it never runs off the edge.
      Plot.text([{x: wall, y: 1.6, t: `wall 1+ε_high = ${wall.toFixed(2)}`}], {x: "x", y: "y", text: "t", textAnchor: wall > 1.05 ? "end" : "start", dx: wall > 1.05 ? -4 : 4, fill: ink.warn}),
      Plot.text([{x: floor, y: -1.6, t: `floor 1−ε_low = ${floor.toFixed(2)}`}], {x: "x", y: "y", text: "t", textAnchor: "start", dx: 4, fill: ink.blue}),
      Plot.dot([{r: ratio, g: here.grpoPos}, {r: ratio, g: here.grpoNeg}], {x: "r", y: "g", r: 6, stroke: "#888", strokeWidth: 2}),
      Plot.dot([{r: ratio, g: here.dapoPos}, {r: ratio, g: here.dapoNeg}], {x: "r", y: "g", r: 3.5, fill: "#ef8a2f"})
    ]
  }));
  const fmt = (v) => v.toFixed(3);
  return html`<div data-widget="clip-higher">${chart}
    <p style="font-size:0.9em">Dashed grey: GRPO, ε = ${grpoEps} on both sides. Solid orange: DAPO's
      decoupled clip. Upper branch A = +1, lower branch A = −1; a flat zero means the token has
      stopped learning.</p>
    <p aria-live="polite">Zero-gradient wall for good tokens at r = <b data-readout="wall" data-value="${wall}">${wall.toFixed(2)}</b>
      (GRPO: ${(1 + grpoEps).toFixed(2)}); floor for bad tokens at r =
      <b data-readout="floor" data-value="${floor}">${floor.toFixed(2)}</b>.
      At r = ${ratio.toFixed(2)}: A = +1 gets GRPO <b data-readout="grpo-pos" data-value="${here.grpoPos}">${fmt(here.grpoPos)}</b>,
      DAPO <b data-readout="dapo-pos" data-value="${here.dapoPos}">${fmt(here.dapoPos)}</b>;
      A = −1 gets GRPO <b data-readout="grpo-neg" data-value="${here.grpoNeg}">${fmt(here.grpoNeg)}</b>,
      DAPO <b data-readout="dapo-neg" data-value="${here.dapoNeg}">${fmt(here.dapoNeg)}</b>.</p>
  </div>`;
}
