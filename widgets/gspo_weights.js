// GSPO's weights, two views.
//
// gspoWeightsChart: one response, two tokens that misbehave (say their expert route flipped).
//   GRPO weights each token's gradient by its own ratio w_t; GSPO weights every token by the one
//   sequence ratio s. Recomputed live by gspo_math.js (mirrors gspo.per_token_vs_sequence_weights)
//   from the seeded per-token noise Python hands over.
// trainingCurvesChart: what the clip on that one weight does in training: Python's learning
//   curves (gspo.demonstrate_gspo, gspo.demonstrate_token_grpo) for several clip settings.
import {tokenVsSequenceWeights} from "./gspo_math.js";
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

export const SPIKE_POSITIONS = [3, 8];
const GRPO_CLIP = 0.2;
const WEIGHT_TICKS = [0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20];

export function gspoWeightsChart({Plot, html, width}, noise, {jumpA, jumpB}) {
  const spikes = [
    [SPIKE_POSITIONS[0], jumpA],
    [SPIKE_POSITIONS[1], jumpB]
  ];
  const rows = tokenVsSequenceWeights(noise, spikes);
  const s = rows[0].seq_weight;
  const L = rows.length;
  const product = rows.reduce((p, r) => p * r.token_weight, 1);
  const outside = rows.filter((r) => r.token_weight < 1 - GRPO_CLIP || r.token_weight > 1 + GRPO_CLIP).length;
  const wA = rows[SPIKE_POSITIONS[0]].token_weight;
  const wB = rows[SPIKE_POSITIONS[1]].token_weight;
  const kind = (r) => (r.misbehaving ? "misbehaving token" : "ordinary token");
  // A log axis drawn by hand (log10 on a linear scale) so every tick keeps its label.
  const lg = Math.log10;
  const chart = markGroups(Plot.plot({
    ariaLabel: "Weight on each token's gradient, GRPO against GSPO",
    ariaDescription: "On a log scale, the per-token importance weight GRPO puts on each position of one response, two tokens misbehaving, against GSPO's one sequence weight s for every token.",
    width: chartWidth(width),
    height: 320,
    marginLeft: 50,
    x: {label: "token position t", domain: [-0.5, L - 0.5]},
    y: {label: "weight on the token's gradient (log scale)", domain: [lg(0.04), lg(25)], grid: true,
        ticks: WEIGHT_TICKS.map(lg), tickFormat: (d) => `${+(10 ** d).toPrecision(2)}`},
    color: {legend: true, domain: ["ordinary token", "misbehaving token", "GSPO: s for every token"],
            range: ["#4269d0", "#d62728", "#ef8a2f"]},
    marks: [
      Plot.rectY([0], {x1: -0.5, x2: L - 0.5, y1: lg(1 - GRPO_CLIP), y2: lg(1 + GRPO_CLIP), fill: "#4269d0", fillOpacity: 0.1}),
      Plot.ruleY([0], {stroke: "#999", strokeDasharray: "4,3"}),
      Plot.ruleX(rows, {x: "position", y1: 0, y2: (r) => lg(r.token_weight), stroke: kind, strokeOpacity: 0.6}),
      Plot.dot(rows, {x: "position", y: (r) => lg(r.token_weight), fill: kind, r: L > 60 ? 2.5 : 4,
                      title: (r) => `token ${r.position}: w = ${r.token_weight.toFixed(3)}`}),
      Plot.line([{x: -0.5, y: lg(s)}, {x: L - 0.5, y: lg(s)}], {x: "x", y: "y", stroke: () => "GSPO: s for every token", strokeWidth: 3})
    ]
  }));
  return html`<div data-widget="gspo-weights">${chart}
    <p aria-live="polite">GRPO: token ${SPIKE_POSITIONS[0]} is weighted
      <b data-readout="wA" data-value="${wA}">${wA.toFixed(3)}</b> and token ${SPIKE_POSITIONS[1]}
      <b data-readout="wB" data-value="${wB}">${wB.toFixed(3)}</b>;
      <b data-readout="outside" data-value="${outside}">${outside}</b> of ${L} tokens sit outside its
      clip band [0.8, 1.2] (shaded). The raw product of all ${L} ratios is
      <b data-readout="product" data-value="${product}">${product.toPrecision(3)}</b>.
      GSPO weights every token by one number, s =
      <b data-readout="s" data-value="${s}">${s.toFixed(4)}</b>.</p>
  </div>`;
}

export function trainingCurvesChart({Plot, html, width}, curves, {run}) {
  const runs = [...new Set(curves.map((r) => r.run))];
  const chosen = curves.filter((r) => r.run === run);
  if (chosen.length === 0) throw new RangeError(`no training run named ${run}`);
  const last = chosen.at(-1);
  const updates = chosen.filter((r) => r.step > 0);
  const meanClip = updates.reduce((a, r) => a + r.clip_fraction, 0) / updates.length;
  const palette = ["#ef8a2f", "#4269d0", "#d62728", "#2a9d8f", "#7b4ea3"];
  const top = markGroups(Plot.plot({
    ariaLabel: "p(correct token) during training, one line per run",
    ariaDescription: "Probability of the correct token at each update of every toy run.",
    width: chartWidth(width, 640),
    height: 300,
    marginLeft: 50,
    x: {label: "update", domain: [0, last.step]},
    y: {label: "p(correct token)", domain: [0, 1], grid: true},
    color: {legend: true, domain: runs, range: palette.slice(0, runs.length)},
    marks: [
      Plot.ruleY([0.2], {stroke: "#bbb", strokeDasharray: "4,3"}),
      Plot.line(curves.filter((r) => r.run !== run), {x: "step", y: "p_correct", stroke: "run", strokeOpacity: 0.35, strokeWidth: 1.5}),
      Plot.line(chosen, {x: "step", y: "p_correct", stroke: "run", strokeWidth: 3.5}),
      Plot.dot([last], {x: "step", y: "p_correct", fill: "run", r: 5})
    ]
  }));
  const bottom = markGroups(Plot.plot({
    ariaLabel: "Share of tokens clipped at each update",
    ariaDescription: `Bars give the share of tokens clipped at each update of the ${run} run.`,
    width: chartWidth(width, 640),
    height: 130,
    marginLeft: 50,
    x: {label: "update", domain: [0, last.step]},
    y: {label: "share clipped", domain: [0, 1], grid: true},
    marks: [
      Plot.rectY(updates, {x1: (r) => r.step - 0.45, x2: (r) => r.step + 0.45, y: "clip_fraction",
                           fill: palette[runs.indexOf(run)]})
    ]
  }));
  top.style.margin = "0"; // a Plot with a legend is a <figure>: drop its default indent so the axes align
  return html`<div data-widget="gspo-training">${top}${bottom}
    <p aria-live="polite">${run}: after ${last.step} updates p(correct token) =
      <b data-readout="final" data-value="${last.p_correct}">${last.p_correct.toFixed(3)}</b>;
      on average the clip zeroed
      <b data-readout="clipped" data-value="${meanClip}">${(100 * meanClip).toFixed(1)}%</b>
      of the gradient terms per update (bars).</p>
  </div>`;
}
