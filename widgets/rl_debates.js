// Chapter 14: what RL taught the tiny reasoner, drawn from debate_findings' tables.
//
//   passkRow     one model's recorded pass@k row at one k
//   passkChart   pass@k against k (log scale) with 95% bands, the chosen k marked and read out
//   reachMap     the held-out problems as a grid, each coloured by who solved it at least once
//   runRows      one run's points of one series (held-out pass@1, reward paid, training
//                accuracy) from debate_findings.run_curves' columns
//   runChart     one series of the runs paid one reward, with the clip acting and not
//
// The widgets compute nothing the Python did not: every number they show is a recorded value
// picked by the inputs, so they cannot drift from the tables the chapter prints.
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

export const REACH = ["solved by both", "gained by RL", "lost to RL", "solved by neither"];
// "solved by neither" is a light grey that both themes draw (a transparent cell left the
// legend without a swatch); figures.DEBATE_REACH holds the same colours.
const REACH_COLOURS = ["#8a8a8a", "#2a9d8f", "#d62828", "#d4d4d4"];
const MODEL_COLOURS = ["#8a8a8a", "#e76f51", "#3867d6", "#2a9d8f", "#9b5de5"];

/** One model's recorded pass@k row at one k (the ks are the recorded grid). */
export function passkRow(rows, model, k) {
  const row = rows.find((r) => r.model === model && r.k === k);
  if (!row) throw new RangeError(`no pass@k record for ${model} at k = ${k}`);
  return row;
}

export function passkChart({Plot, html, width}, {rows, models, k, labels, samples, problems}) {
  const shown = rows.filter((r) => models.includes(r.model)).map((r) => ({...r, name: labels[r.model]}));
  const names = models.map((m) => labels[m]);
  const chart = markGroups(Plot.plot({
    ariaLabel: "pass@k against k",
    ariaDescription: `pass@k of ${names.join(", ")} for k from 1 to ${samples}, with 95% bands; k = ${k} marked.`,
    width: chartWidth(width),
    height: 340,
    marginLeft: 50,
    x: {type: "log", base: 2, label: "k (samples per problem)"},
    y: {label: `pass@k, ${problems} held-out problems`, domain: [0, 1], grid: true},
    color: {legend: true, domain: names, range: MODEL_COLOURS.slice(0, names.length)},
    marks: [
      Plot.areaY(shown, {x: "k", y1: "lo", y2: "hi", fill: "name", fillOpacity: 0.18}),
      Plot.line(shown, {x: "k", y: "value", stroke: "name", strokeWidth: 2.5, marker: "circle"}),
      Plot.ruleX([k], {stroke: "currentColor", strokeOpacity: 0.5, strokeDasharray: "4,3"})
    ]
  }));
  const readouts = models.map((m) => {
    const r = passkRow(rows, m, k);
    return html`<li>${labels[m]}: <b data-readout="${m}" data-value="${r.value}">${r.value.toFixed(3)}</b>
      (${r.lo.toFixed(3)} to ${r.hi.toFixed(3)})</li>`;
  });
  return html`<div data-widget="passk">${chart}
    <div aria-live="polite"><p>pass@${k}:</p><ul>${readouts}</ul></div></div>`;
}

export function reachMap({Plot, html, width}, {cells, after, labels, columns = 25}) {
  const own = cells.filter((c) => c.after === after)
    .map((c) => ({...c, col: c.i % columns, row: Math.floor(c.i / columns)}));
  if (!own.length) throw new RangeError(`no reach record for ${after}`);
  const count = Object.fromEntries(REACH.map((s) => [s, own.filter((c) => c.status === s).length]));
  const chart = markGroups(Plot.plot({
    ariaLabel: "Which held-out problems each model solved at least once",
    ariaDescription: `${own.length} held-out problems, one cell each: ${REACH.map((s) => `${count[s]} ${s}`).join(", ")}.`,
    width: chartWidth(width),
    height: Math.ceil(own.length / columns) * 14 + 60,
    padding: 0.08,
    x: {axis: null},
    y: {axis: null},
    color: {legend: true, domain: REACH, range: REACH_COLOURS},
    marks: [
      Plot.cell(own, {x: "col", y: "row", fill: "status", stroke: "currentColor", strokeOpacity: 0.25,
        title: (c) => `${c.problem}: ${c.before} right before, ${c.after_right} after (${c.status})`})
    ]
  }));
  const items = REACH.map((s) => html`<li>${s}: <b data-readout="${s.replaceAll(" ", "_")}" data-value="${count[s]}">${count[s]}</b></li>`);
  return html`<div data-widget="reach">${chart}
    <div aria-live="polite"><p>${labels[after]} against its start:</p><ul>${items}</ul></div></div>`;
}

export const RUN_SERIES = ["held-out pass@1", "reward paid", "training accuracy"];
const ARM_LABELS = {clip: "clip acting (2 steps a batch)", noclip: "clip never acting (1 step)"};
const ARM_WORDS = {clip: "clip acting", noclip: "clip never acting"};  // debate_findings.ARM_LABELS
const SEED_DASH = ["none", "6,4"];  // seed 0 solid, seed 1 dashed

/** One run's points of one series: {step, value, lo, hi} (lo, hi only for held-out pass@1). */
export function runRows(curves, run, series) {
  const c = curves[run];
  if (!c) throw new RangeError(`no curve recorded for ${run}`);
  if (series === "held-out pass@1") {
    return c.check.map((step, i) => ({step, value: c.pass_at_1[i], lo: c.lo[i], hi: c.hi[i]}));
  }
  const key = {"reward paid": "paid", "training accuracy": "accuracy"}[series];
  if (!key) throw new RangeError(`series must be one of ${RUN_SERIES.join(", ")}, got ${series}`);
  return c.step.map((step, i) => ({step, value: c[key][i]}));
}

/** A y domain that fits the shown values (bands included), padded, inside [0, 1]. */
export function fitDomain(values) {
  const lo = Math.min(...values), hi = Math.max(...values);
  const pad = Math.max(0.05, (hi - lo) * 0.1);
  return [Math.max(0, Math.floor((lo - pad) * 20) / 20), Math.min(1, Math.ceil((hi + pad) * 20) / 20)];
}

export function runChart({Plot, html, width}, {curves, runs, reward, show = "held-out pass@1", steps}) {
  const own = runs.filter((r) => r.reward === reward);
  if (!own.length) throw new RangeError(`no run paid the ${reward} reward`);
  const held = show === "held-out pass@1";
  const points = own.flatMap((r) => runRows(curves, r.run, show)
    .map((p) => ({...p, run: r.run, seed: r.seed, arm: ARM_LABELS[r.arm]})));
  const domain = fitDomain(points.flatMap((p) => (held ? [p.lo, p.hi] : [p.value])));
  const arms = Object.values(ARM_LABELS);
  const seeds = [...new Set(own.map((r) => r.seed))].sort();
  const marks = [];
  if (held) marks.push(Plot.areaY(points, {x: "step", y1: "lo", y2: "hi", z: "run", fill: "arm", fillOpacity: 0.12}));
  for (const seed of seeds) {
    marks.push(Plot.line(points.filter((p) => p.seed === seed), {
      x: "step", y: "value", z: "run", stroke: "arm", strokeWidth: held ? 2.2 : 1.6,
      strokeDasharray: SEED_DASH[seed % SEED_DASH.length], marker: held ? "circle" : null}));
  }
  const chart = markGroups(Plot.plot({
    ariaLabel: `${show} of GRPO paid the ${reward} reward`,
    ariaDescription: `${show} ${held ? "at each check-up" : "at each training step"} of ${own.length} runs, seed 0 solid and seed 1 dashed, with and without the clip acting.`,
    width: chartWidth(width),
    height: 320,
    marginLeft: 50,
    x: {label: "RL step", domain: [0, steps]},
    y: {label: show, domain, grid: true},
    color: {legend: true, domain: arms, range: ["#d62828", "#3867d6"]},
    marks
  }));
  const key = html`<p style="margin: 0.2em 0 0.6em"><span data-swatch>━</span> seed 0 ·
    <span data-swatch>╌</span> seed 1</p>`;
  const meanKey = {"reward paid": "paid", "training accuracy": "accuracy"}[show];  // spurious_table's
  const items = own.map((r) => {
    const m = r[meanKey];
    const shown = held ? "" : html`, mean ${show} <b data-readout="${r.run}_mean" data-value="${m}">${m.toFixed(3)}</b>`;
    return html`<li>${ARM_WORDS[r.arm]}, seed ${r.seed} (${r.seed % 2 ? "dashed" : "solid"}):
    pass@1 <b data-readout="${r.run}" data-value="${r.pass_at_1}">${r.pass_at_1.toFixed(3)}</b>,
    ${r.gap >= 0 ? "+" : "−"}${Math.abs(r.gap).toFixed(3)} on the cold start${shown}</li>`;
  });
  return html`<div data-widget="runs">${chart}${key}<ul aria-live="polite">${items}</ul></div>`;
}
