// Chapter 14: what RL taught the tiny reasoner, drawn from debate_findings' tables.
//
//   passkRow     one model's recorded pass@k row at one k
//   passkChart   pass@k against k (log scale) with 95% bands, the chosen k marked and read out
//   reachMap     the held-out problems as a grid, each coloured by who solved it at least once
//   runChart     held-out pass@1 of the runs paid one reward, with the clip acting and not
//
// The widgets compute nothing the Python did not: every number they show is a recorded value
// picked by the inputs, so they cannot drift from the tables the chapter prints.
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

export const REACH = ["solved by both", "gained by RL", "lost to RL", "solved by neither"];
const REACH_COLOURS = ["#8a8a8a", "#2a9d8f", "#d62828", "transparent"];
const MODEL_COLOURS = ["#8a8a8a", "#e76f51", "#3867d6", "#2a9d8f", "#9b5de5"];

/** One model's recorded pass@k row at one k (the ks are the recorded grid). */
export function passkRow(rows, model, k) {
  const row = rows.find((r) => r.model === model && r.k === k);
  if (!row) throw new RangeError(`no pass@k record for ${model} at k = ${k}`);
  return row;
}

export function passkChart({Plot, html, width}, {rows, models, k, labels, samples}) {
  const shown = rows.filter((r) => models.includes(r.model)).map((r) => ({...r, name: labels[r.model]}));
  const names = models.map((m) => labels[m]);
  const chart = markGroups(Plot.plot({
    ariaLabel: "pass@k against k",
    ariaDescription: `pass@k of ${names.join(", ")} for k from 1 to ${samples}, with 95% bands; k = ${k} marked.`,
    width: chartWidth(width),
    height: 340,
    marginLeft: 50,
    x: {type: "log", base: 2, label: "k (samples per problem)"},
    y: {label: "pass@k, 500 held-out problems", domain: [0, 1], grid: true},
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

export function runChart({Plot, html, width}, {rows, runs, reward, steps}) {
  const own = runs.filter((r) => r.reward === reward);
  if (!own.length) throw new RangeError(`no run paid the ${reward} reward`);
  const names = new Set(own.map((r) => r.run));
  const arm = Object.fromEntries(own.map((r) => [r.run, r.arm === "clip" ? "clip acting (2 steps a batch)" : "clip never acting (1 step)"]));
  const curve = rows.filter((r) => names.has(r.run) && r.series === "held-out pass@1")
    .map((r) => ({...r, arm: arm[r.run]}));
  const chart = markGroups(Plot.plot({
    ariaLabel: `Held-out pass@1 of GRPO paid the ${reward} reward`,
    ariaDescription: `Held-out pass@1 at each check-up of ${own.length} runs, both seeds, with and without the clip acting.`,
    width: chartWidth(width),
    height: 320,
    marginLeft: 50,
    x: {label: "RL step", domain: [0, steps]},
    y: {label: "held-out pass@1", domain: [0, 0.7], grid: true},
    color: {legend: true, domain: ["clip acting (2 steps a batch)", "clip never acting (1 step)"], range: ["#d62828", "#3867d6"]},
    marks: [
      Plot.areaY(curve, {x: "step", y1: "lo", y2: "hi", z: "run", fill: "arm", fillOpacity: 0.12}),
      Plot.line(curve, {x: "step", y: "value", z: "run", stroke: "arm", strokeWidth: 2.2, marker: "circle"})
    ]
  }));
  const items = own.map((r) => html`<li>${r.arm === "clip" ? "clip acting" : "clip never acting"}, seed ${r.seed}:
    pass@1 <b data-readout="${r.run}" data-value="${r.pass_at_1}">${r.pass_at_1.toFixed(3)}</b>,
    ${r.gap >= 0 ? "+" : "−"}${Math.abs(r.gap).toFixed(3)} on the cold start</li>`);
  return html`<div data-widget="runs">${chart}<ul aria-live="polite">${items}</ul></div>`;
}
