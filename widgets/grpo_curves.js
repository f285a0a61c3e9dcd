// GRPO learning curves recorded in Python (grpo.grpo_learning_curves): p(correct) against the
// training step for several group sizes at one KL weight beta, the chosen group size drawn bold,
// and the chapter's reference run (demonstrate_grpo: G = 32, beta = 0.04) dashed.
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

/** The recorded run for one (group size, beta), in step order. */
export function selectRun(records, groupSize, beta) {
  return records
    .filter((r) => r.group_size === groupSize && Math.abs(r.beta - beta) < 1e-12)
    .sort((a, b) => a.step - b.step);
}

/** First step at which p(correct) exceeds `level`, or -1 if the run never gets there. */
export function firstStepAbove(run, level) {
  const hit = run.find((r) => r.p_correct > level);
  return hit === undefined ? -1 : hit.step;
}

export function grpoCurvesChart({Plot, html, width}, records, reference, {groupSize, beta, chance}) {
  const sameBeta = records.filter((r) => Math.abs(r.beta - beta) < 1e-12);
  const sizes = [...new Set(records.map((r) => r.group_size))].sort((a, b) => a - b);
  const run = selectRun(records, groupSize, beta);
  if (run.length === 0) throw new RangeError(`no recorded run for G = ${groupSize}, beta = ${beta}`);
  const final = run.at(-1);
  const reach = firstStepAbove(run, 0.9);
  const label = (g) => `G = ${g}`;
  const chart = markGroups(Plot.plot({
    ariaLabel: "p(correct) during GRPO training",
    ariaDescription: `Probability of the right answer at each GRPO step, one line per group size at beta = ${beta}, a reference run dashed, chance and 0.9 as horizontal lines.`,
    width: chartWidth(width),
    height: 340,
    marginLeft: 50,
    x: {label: "GRPO step", domain: [0, final.step]},
    y: {label: "p(correct answer)", domain: [0, 1], grid: true},
    color: {legend: true, domain: sizes.map(label), range: ["#9b59d0", "#1b9e77", "#d95f02", "#e7298a", "#888888"]},
    marks: [
      Plot.ruleY([chance], {stroke: "#999", strokeDasharray: "4,3"}),
      Plot.ruleY([0.9], {stroke: "#ccc"}),
      Plot.line(reference, {x: "step", y: "p_correct", stroke: "currentColor", strokeDasharray: "6,4", strokeWidth: 1.5}),
      Plot.line(sameBeta, {x: "step", y: "p_correct", z: "group_size", stroke: (d) => label(d.group_size), strokeWidth: 1.2, strokeOpacity: 0.55}),
      Plot.line(run, {x: "step", y: "p_correct", stroke: (d) => label(d.group_size), strokeWidth: 3.5}),
      Plot.dot([final], {x: "step", y: "p_correct", fill: (d) => label(d.group_size), r: 5, stroke: "var(--bs-body-bg, white)"}),
      Plot.text([final], {x: "step", y: "p_correct", text: (d) => d.p_correct.toFixed(3), dy: -12, dx: -14, fontSize: 12})
    ]
  }));
  return html`<div data-widget="grpo-curves">${chart}
    <p aria-live="polite">G = ${groupSize}, β = ${beta}: after ${final.step} steps p(correct) =
      <b data-readout="final" data-value="${final.p_correct}">${final.p_correct.toFixed(3)}</b>;
      ${reach < 0
        ? html`it <b data-readout="steps90" data-value="${reach}">never</b> passes 0.9`
        : html`it first passes 0.9 at step <b data-readout="steps90" data-value="${reach}">${reach}</b>`}.
      Dashed, in the text's colour: the run above (G = 32, β = 0.04). Grey dashes: chance, 1/${Math.round(1 / chance)}.</p>
  </div>`;
}
