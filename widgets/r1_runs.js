// Chapter 12's run widgets: recorded RL runs of the tiny reasoner (data/r1_runs.json), drawn live.
//
//   objectiveCurves   a chosen statistic over RL steps, one line per run of the chosen objectives
//   passAtKBeforeAfter pass@k against k for two models, recomputed from per-problem counts
//   lengthCurves      mean length of right and of wrong chains over RL steps, per objective
//   zeroCurves        R1-Zero against RL from the cold start: a held-out statistic per check-up
//
// Rows come from the chapter's Python cells (code/r1_runs.py): `train` (one row per run and RL
// step), `curves` (the held-out check-ups every few steps), `finals` ({model: {label, n, counts}}),
// `zero` (R1-Zero's and the cold-started runs' check-ups) and `setup` ({problems, curveSamples,
// batchChains}: the sizes the labels quote, read from the records, not typed here).
import {meanPassAtK, powersOfTwo, smooth} from "./r1_pipeline_math.js";
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

// The objectives' names come from Python (code/objectives.py, handed over as `labels`:
// {key: name}, in the book's order), so they are defined once; colours follow that order.
const OBJECTIVE_RANGE = ["#e07b00", "#3867d6", "#2a9d8f", "#9b5de5", "#d62828"];
function objectiveColors(labels) {
  return {domain: Object.values(labels), range: OBJECTIVE_RANGE.slice(0, Object.keys(labels).length)};
}

/** The statistics a reader can plot, with their axis label and where they live. */
export const METRICS = {
  "held-out pass@1": {label: "held-out pass@1", source: "curves", key: "pass1", zero: false},
  "training reward": {label: "mean reward of the step's chains", source: "train", key: "reward", zero: false},
  "training accuracy": {label: "share of the step's chains that are right", source: "train", key: "accuracy", zero: false},
  "zero-advantage groups": {label: "share of groups with all rewards equal", source: "train", key: "zero_adv", zero: true},
  "KL to the reference": {label: "k3 KL per token to the starting model", source: "train", key: "kl", zero: true}
};

/** One line mark per seed: seed 0 solid, seed 1 dashed (a dash pattern is a constant, not a channel). */
function seedLines(Plot, rows, options) {
  return [
    Plot.line(rows.filter((d) => !d.seed), options),
    Plot.line(rows.filter((d) => d.seed), {...options, strokeDasharray: "5,3"})
  ];
}

function byRun(rows) {
  const runs = new Map();
  for (const r of rows) {
    if (!runs.has(r.run)) runs.set(r.run, []);
    runs.get(r.run).push(r);
  }
  for (const list of runs.values()) list.sort((a, b) => a.step - b.step);
  return runs;
}

/** Smoothed training rows of the chosen objectives: [{run, objective, seed, step, value}]. */
export function smoothedSeries(train, objectives, key, window, labels) {
  const out = [];
  for (const [run, list] of byRun(train.filter((r) => objectives.includes(r.objective)))) {
    const values = smooth(list.map((r) => r[key]), window);
    list.forEach((r, i) => {
      if (values[i] !== null) out.push({run, objective: labels[r.objective], seed: r.seed, step: r.step, value: values[i]});
    });
  }
  return out;
}

/** Mean over seeds of each objective's last smoothed value. */
export function finalBySeedMean(series) {
  const last = new Map();
  for (const r of series) {
    const prev = last.get(r.run);
    if (!prev || r.step > prev.step) last.set(r.run, r);
  }
  const groups = new Map();
  for (const r of last.values()) {
    if (!groups.has(r.objective)) groups.set(r.objective, []);
    groups.get(r.objective).push(r.value);
  }
  return [...groups].map(([objective, vs]) => ({objective, value: vs.reduce((a, b) => a + b, 0) / vs.length, seeds: vs.length}));
}

/** The sizes a label quotes, " (P problems x S samples)", or "" when `setup` does not give them. */
function sizes(setup, perProblem) {
  if (!setup || !setup.problems) return "";
  return perProblem ? ` (${setup.problems} problems x ${perProblem} samples)` : ` (${setup.problems} problems)`;
}

/** What a chart of ticked objectives shows when none is ticked (Plot has no scale to draw). */
function nothingTicked(html, name) {
  return html`<div data-widget="${name}" data-series="0">
    <p aria-live="polite">No objective is ticked: tick one or more above to draw their curves.</p></div>`;
}

export function objectiveCurves({Plot, html, width}, {train, curves, objectives, metric, labels, window = 8, setup}) {
  const base = METRICS[metric];
  if (!base) throw new RangeError(`metric must be one of ${Object.keys(METRICS).join(", ")}, got ${metric}`);
  const spec = base.source === "curves" ? {...base, label: base.label + sizes(setup, setup && setup.curveSamples)} : base;
  if (!objectives.length) return nothingTicked(html, "objective-curves");
  let series;
  let marks;
  if (spec.source === "curves") {
    series = curves
      .filter((r) => objectives.includes(r.objective))
      .map((r) => ({...r, objective: labels[r.objective], value: r.pass1}));
    marks = [
      Plot.ruleX(series, {x: (d) => d.step + (d.seed - 0.5) * 1.2, y1: "lo", y2: "hi", stroke: "objective", strokeOpacity: 0.5}),
      ...seedLines(Plot, series, {x: "step", y: "value", z: "run", stroke: "objective", strokeWidth: 2, marker: "circle"})
    ];
  } else {
    series = smoothedSeries(train, objectives, spec.key, window, labels);
    marks = seedLines(Plot, series, {x: "step", y: "value", z: "run", stroke: "objective", strokeWidth: 2});
  }
  const finals = finalBySeedMean(series);
  const chart = markGroups(Plot.plot({
    ariaLabel: `${spec.label} during RL, one line per objective`,
    ariaDescription: "One line per RL objective and seed (seed 1 dashed) against the RL step.",
    width: chartWidth(width),
    height: 340,
    marginLeft: 55,
    x: {label: "RL step", domain: [0, Math.max(1, ...series.map((r) => r.step))]},
    y: {label: spec.label, grid: true, zero: spec.zero},
    color: {legend: true, ...objectiveColors(labels)},
    marks
  }));
  return html`<div data-widget="objective-curves" data-series="${series.length}">${chart}
    <p aria-live="polite">Solid: seed 0; dashed: seed 1${spec.source === "curves" ? "; bars: 95% bootstrap intervals over problems" : `; trailing mean over ${window} steps`}.
      At the last step (mean of the seeds${spec.source === "curves" ? `, on the curves' own evaluation${sizes(setup, setup && setup.curveSamples)}; the text quotes the full final evaluation` : ""}):
      ${finals.map((f, i) => html`<span>${f.objective} <b data-readout="${f.objective}" data-value="${f.value}">${f.value.toFixed(3)}</b>${i < finals.length - 1 ? "; " : "."}</span> `)}</p>
  </div>`;
}

/** pass@k curves [{model, k, pass}] for the chosen models, from their per-problem counts. */
export function passAtKCurvesOf(finals, models) {
  const rows = [];
  for (const m of models) {
    const {n, counts, label} = finals[m];
    for (const k of powersOfTwo(n)) rows.push({model: label, k, pass: meanPassAtK(n, counts, k)});
  }
  return rows;
}

/** " (seed 0)" for a run recorded under one seed of two, so its figure is not taken for their mean. */
const seedOf = (name) => (/_s\d+$/.test(name) ? ` (seed ${name.match(/_s(\d+)$/)[1]})` : "");

export function passAtKBeforeAfter({Plot, html, width}, {finals, before, after, k, setup}) {
  const onProblems = setup && setup.problems ? `on ${setup.problems} held-out problems` : "on the held-out problems";
  const models = [before, after];
  const rows = passAtKCurvesOf(finals, models);
  const n = Math.min(finals[before].n, finals[after].n);
  const kk = Math.min(k, n);
  const at = (m, kv) => meanPassAtK(finals[m].n, finals[m].counts, kv);
  const b = at(before, kk);
  const a = at(after, kk);
  // The smallest k at which the model before RL catches up with the model after it, if any.
  const cross = powersOfTwo(n).find((kv) => at(before, kv) >= at(after, kv));
  const chart = markGroups(Plot.plot({
    ariaLabel: "pass@k before and after RL",
    ariaDescription: `pass@k ${onProblems} as the number of samples k grows, for ${finals[before].label} and ${finals[after].label}, k = ${kk} marked.`,
    width: chartWidth(width),
    height: 340,
    marginLeft: 50,
    x: {type: "log", base: 2, label: "samples per problem k", domain: [1, Math.max(...rows.map((r) => r.k))]},
    y: {label: `pass@k ${onProblems}`, domain: [0, 1], grid: true},
    color: {legend: true, domain: models.map((m) => finals[m].label), range: ["#888", "#e07b00"]},
    marks: [
      Plot.ruleX([kk], {stroke: "#999", strokeDasharray: "4,3"}),
      Plot.line(rows, {x: "k", y: "pass", stroke: "model", strokeWidth: 2.5, marker: "circle"})
    ]
  }));
  return html`<div data-widget="pass-at-k-rl">${chart}
    <p aria-live="polite">At k = ${kk}: <b>${finals[before].label}</b> <b data-readout="before" data-value="${b}">${b.toFixed(3)}</b>,
      <b>${finals[after].label}</b>${seedOf(after)} <b data-readout="after" data-value="${a}">${a.toFixed(3)}</b>
      (difference <b data-readout="gain" data-value="${a - b}">${(a - b >= 0 ? "+" : "") + (a - b).toFixed(3)}</b>).
      ${cross === undefined
        ? html`<span data-readout="cross" data-value="-1">The model after RL stays ahead at every k up to ${n}.</span>`
        : html`<span>The model before RL catches up from k = <b data-readout="cross" data-value="${cross}">${cross}</b>.</span>`}</p>
  </div>`;
}

/** Smoothed lengths [{run, objective, seed, step, value, chains}] of right and wrong chains. */
export function lengthSeries(train, objectives, window, labels) {
  const right = smoothedSeries(train, objectives, "length_right", window, labels).map((r) => ({...r, chains: "right chains"}));
  const wrong = smoothedSeries(train, objectives, "length_wrong", window, labels).map((r) => ({...r, chains: "wrong chains"}));
  return [...right, ...wrong];
}

export function lengthCurves({Plot, html, width}, {train, objectives, labels, window = 8, setup}) {
  if (!objectives.length) return nothingTicked(html, "length-curves");
  const rows = lengthSeries(train, objectives, window, labels);
  const summary = [];
  for (const chains of ["right chains", "wrong chains"]) {
    for (const objective of objectives.map((o) => labels[o])) {
      const own = rows.filter((r) => r.chains === chains && r.objective === objective);
      if (!own.length) continue;
      const steps = own.map((r) => r.step);
      const first = Math.min(...steps);
      const last = Math.max(...steps);
      const mean = (s) => {
        const vs = own.filter((r) => r.step === s).map((r) => r.value);
        return vs.reduce((x, y) => x + y, 0) / vs.length;
      };
      summary.push({chains, objective, start: mean(first), end: mean(last)});
    }
  }
  const chart = markGroups(Plot.plot({
    ariaLabel: "Mean length of the right and of the wrong chains during RL",
    ariaDescription: "Trailing mean length of the training chains at each RL step, right and wrong chains in separate panels, one line per objective and seed (seed 1 dashed).",
    width: chartWidth(width),
    height: 360,
    marginLeft: 50,
    marginRight: 95,
    x: {label: "RL step"},
    y: {label: "mean length (tokens)", grid: true},
    fy: {label: null},
    color: {legend: true, ...objectiveColors(labels)},
    marks: [
      Plot.frame({stroke: "#ddd"}),
      ...seedLines(Plot, rows, {x: "step", y: "value", fy: "chains", z: "run", stroke: "objective", strokeWidth: 2})
    ]
  }));
  return html`<div data-widget="length-curves">${chart}
    <p aria-live="polite">Trailing mean over ${window} steps of the training batches${setup && setup.batchChains ? ` (${setup.batchChains} chains a step)` : ""}; solid seed 0, dashed seed 1.
      ${summary.map((s) => html`<span>${s.objective}, ${s.chains}: <b data-readout="${`${s.objective}|${s.chains}`}" data-value="${s.end}">${s.start.toFixed(1)} → ${s.end.toFixed(1)}</b>. </span>`)}</p>
  </div>`;
}

/** The held-out statistics of R1-Zero's figure: each one's key in the `zero` rows, and its label. */
export const ZERO_METRICS = {
  "held-out pass@1": {key: "pass1", label: "held-out pass@1"},
  "bare answers": {key: "bare", label: "share of samples that are bare answers"},
  "mean length": {key: "length", label: "mean length of a sample (tokens)"}
};
const STARTS = {domain: ["R1-Zero (from the base)", "from the cold start"], range: ["#d62828", "#e07b00"]};

/** Mean over seeds of each start's value at its last check-up: [{start, value, seeds}]. */
export function lastBySeedMean(rows, key) {
  const last = new Map();
  for (const r of rows) {
    const prev = last.get(r.run);
    if (!prev || r.step > prev.step) last.set(r.run, r);
  }
  const groups = new Map();
  for (const r of last.values()) {
    if (!groups.has(r.start)) groups.set(r.start, []);
    groups.get(r.start).push(r[key]);
  }
  return [...groups].map(([start, vs]) => ({start, value: vs.reduce((a, b) => a + b, 0) / vs.length, seeds: vs.length}));
}

export function zeroCurves({Plot, html, width}, {rows, metric, setup}) {
  const spec = ZERO_METRICS[metric];
  if (!spec) throw new RangeError(`metric must be one of ${Object.keys(ZERO_METRICS).join(", ")}, got ${metric}`);
  const series = rows.map((r) => ({...r, value: r[spec.key]}));
  const finals = lastBySeedMean(rows, spec.key);
  // Each seed-0 line is named at its end, so the two starts differ by more than their colour.
  const ends = [...byRun(series).values()].map((list) => list[list.length - 1]).filter((r) => !r.seed);
  const chart = markGroups(Plot.plot({
    ariaLabel: `R1-Zero against RL from the cold start: ${spec.label}`,
    ariaDescription: `The ${spec.label} at each held-out check-up${sizes(setup, setup && setup.curveSamples)} against the RL step, for RL from the base model (R1-Zero) and RL from the cold start, two seeds each with the second dashed.`,
    width: chartWidth(width),
    height: 320,
    marginLeft: 55,
    marginRight: 80,
    x: {label: "RL step", domain: [0, Math.max(1, ...series.map((r) => r.step))]},
    y: {label: spec.label, grid: true, zero: spec.key === "bare"},
    color: {legend: true, ...STARTS},
    marks: [
      ...seedLines(Plot, series, {x: "step", y: "value", z: "run", stroke: "start", strokeWidth: 2, marker: "circle"}),
      Plot.text(ends, {x: "step", y: "value", text: (d) => (d.start.startsWith("R1-Zero") ? "R1-Zero" : "cold start"), dx: 8, textAnchor: "start", fill: "currentColor"})
    ]
  }));
  return html`<div data-widget="zero-curves" data-series="${series.length}">${chart}
    <p aria-live="polite">Solid: seed 0; dashed: seed 1. At the last check-up (mean of the seeds):
      ${finals.map((f) => html`<span>${f.start} <b data-readout="${f.start}" data-value="${f.value}">${f.value.toFixed(3)}</b>; </span>`)}</p>
  </div>`;
}
