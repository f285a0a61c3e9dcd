// Chapter 6's widgets: GRPO's two normalisers against Dr. GRPO's.
//
//   difficultyWeightChart  GRPO's per-question weight 1 / (std + eps) against Dr. GRPO's flat 1
//   lengthPushChart        the per-token push on a right and a wrong response of chosen lengths
//   lengthDriftChart       the Python length-drift simulation (dr_grpo.length_drift_simulation)
//
// The maths lives in dr_grpo_math.js (difficultyWeight, perTokenPush), tested against Python.
// The two methods' names come from the chapter (`labels`: code/objectives.py's OBJECTIVE_LABELS).
import {difficultyWeight, perTokenPush} from "./dr_grpo_math.js";
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

const RANGE = ["#e07b00", "#3867d6"];

/** The two series names, GRPO's and Dr. GRPO's, and their colour scale. */
function methods(labels) {
  const GRPO = labels.grpo;
  const DR = labels.dr_grpo;
  if (typeof GRPO !== "string" || typeof DR !== "string") {
    throw new TypeError("labels must map grpo and dr_grpo to their names");
  }
  return {GRPO, DR, COLORS: {domain: [GRPO, DR], range: RANGE}};
}

/** Weight curves over p = 0.01 .. 0.99 for both methods. */
export function difficultyCurves(labels, eps = 1e-2) {
  const {GRPO, DR} = methods(labels);
  const rows = [];
  for (let k = 1; k <= 99; k++) {
    const p = k / 100;
    rows.push({p, method: GRPO, weight: difficultyWeight(p, eps)});
    rows.push({p, method: DR, weight: 1});
  }
  return rows;
}

export function difficultyWeightChart({Plot, html, width}, {p, table, labels, eps = 1e-2}) {
  const {GRPO, DR, COLORS} = methods(labels);
  const w = difficultyWeight(p, eps);
  const balanced = difficultyWeight(0.5, eps);
  const advRight = (1 - p) * w; // GRPO's advantage of a right answer; Dr. GRPO's is 1 - p
  const chart = markGroups(Plot.plot({
    ariaLabel: "Weight on a question's advantages against the share of right answers, GRPO and Dr. GRPO",
    ariaDescription: `The factor each objective multiplies a question's advantages by as the fraction p of right answers in its group goes from 0 to 1, the chosen p = ${p.toFixed(2)} marked; dots are the values printed above.`,
    width: chartWidth(width),
    height: 320,
    marginLeft: 50,
    x: {label: "fraction of the group that is right, p", domain: [0, 1]},
    y: {label: "weight on the question's advantages", domain: [0, 10], grid: true},
    color: {legend: true, ...COLORS},
    marks: [
      Plot.line(difficultyCurves(labels, eps), {x: "p", y: "weight", stroke: "method", strokeWidth: 2}),
      Plot.dot(table, {x: "p", y: "weight", stroke: COLORS.range[0], r: 5, title: (d) => `printed above: ${d.weight.toFixed(2)}`}),
      Plot.ruleX([p], {stroke: "#888", strokeDasharray: "4,3"}),
      Plot.dot([{p, weight: w, method: GRPO}, {p, weight: 1, method: DR}], {x: "p", y: "weight", fill: "method", r: 6, stroke: "var(--bs-body-bg, white)"}),
      Plot.text([{p, weight: w}], {
        x: "p",
        y: "weight",
        text: (d) => `${GRPO} ×${d.weight.toFixed(2)}`,
        textAnchor: p > 0.5 ? "end" : "start",
        dx: p > 0.5 ? -10 : 10,
        dy: -8,
        fontSize: 12
      })
    ]
  }));
  return html`<div data-widget="difficulty-weight">${chart}
    <p aria-live="polite">At p = ${p.toFixed(2)} GRPO scales this question's advantages by
      <b data-readout="grpo" data-value="${w}">${w.toFixed(2)}</b>, Dr. GRPO by
      <b data-readout="dr" data-value="${1}">1</b>:
      <b data-readout="ratio" data-value="${w / balanced}">${(w / balanced).toFixed(2)}</b>× the weight of a
      balanced (p = 0.50) question. A right answer's advantage is
      <b data-readout="adv_grpo" data-value="${advRight}">${advRight.toFixed(3)}</b> under GRPO and
      <b data-readout="adv_dr" data-value="${1 - p}">${(1 - p).toFixed(3)}</b> under Dr. GRPO.
      Open dots: the three weights printed in the text.</p>
  </div>`;
}

/** Per-token push magnitude against length, for both methods (the two curves of the left panel). */
export function pushCurves(labels, maxLen) {
  const {GRPO, DR} = methods(labels);
  const rows = [];
  for (let n = 1; n <= maxLen; n = Math.ceil(n * 1.15)) {
    const [rec] = perTokenPush([n, maxLen], [1, -1], maxLen);
    rows.push({length: n, method: GRPO, push: Math.abs(rec.grpo)});
    rows.push({length: n, method: DR, push: Math.abs(rec.dr_grpo)});
  }
  return rows;
}

export function lengthPushChart({Plot, html, width}, {rightLength, wrongLength, maxLen, demo, labels}) {
  const {GRPO, DR, COLORS} = methods(labels);
  const [right, wrong] = perTokenPush([rightLength, wrongLength], [1, -1], maxLen);
  const points = [];
  for (const [name, rec] of [["right answer", right], ["wrong answer", wrong]]) {
    points.push({response: name, method: GRPO, length: rec.length, push: Math.abs(rec.grpo), total: rec.grpo_total});
    points.push({response: name, method: DR, length: rec.length, push: Math.abs(rec.dr_grpo), total: rec.dr_grpo_total});
  }
  // demonstrate_length_bias's rows (two responses of one length each), printed in the chapter: the curves
  const demoDots = demo.flatMap((d) => [
    {length: d.length, method: GRPO, push: Math.abs(d.grpo_incorrect)},
    {length: d.length, method: DR, push: Math.abs(d.dr_grpo_incorrect)}
  ]);
  const perToken = markGroups(Plot.plot({
    ariaLabel: "Push on each token against response length, GRPO and Dr. GRPO",
    ariaDescription: "On log axes, the size of the push each token of a response receives as the response gets longer, one line per objective.",
    width: chartWidth(width, 440),
    height: 320,
    marginLeft: 56,
    x: {type: "log", label: "response length (tokens)", domain: [1, maxLen]},
    y: {
      type: "log",
      label: "push on each token (size)",
      domain: [1e-4, 0.6],
      ticks: [1e-4, 1e-3, 1e-2, 0.1, 0.5],
      tickFormat: (d) => String(d),
      grid: true
    },
    color: {legend: true, ...COLORS},
    symbol: {legend: true, domain: ["right answer", "wrong answer"], range: ["circle", "times"]},
    marks: [
      Plot.line(pushCurves(labels, maxLen), {x: "length", y: "push", stroke: "method", strokeOpacity: 0.6}),
      Plot.dot(demoDots, {x: "length", y: "push", stroke: "method", r: 2.5, strokeOpacity: 0.6}),
      Plot.dot(points, {x: "length", y: "push", stroke: "method", symbol: "response", r: 7, strokeWidth: 2.5})
    ]
  }));
  const totals = markGroups(Plot.plot({
    ariaLabel: "Push summed over the right and the wrong response, GRPO and Dr. GRPO",
    ariaDescription: `Bars give the total push on the right answer (${rightLength} tokens) and the wrong answer (${wrongLength} tokens) under each objective.`,
    width: chartWidth(width, 380),
    height: 320,
    marginLeft: 50,
    x: {label: null, domain: ["right answer", "wrong answer"], tickFormat: (d) => d.split(" ")[0]},
    fx: {label: null, domain: [GRPO, DR]},
    y: {label: "push summed over the response", domain: [-0.55, 0.55], grid: true},
    color: COLORS,
    marks: [
      Plot.barY(points, {fx: "method", x: "response", y: "total", fill: "method"}),
      Plot.ruleY([0], {stroke: "currentColor"}),
      Plot.text(points.filter((d) => d.total >= 0), {fx: "method", x: "response", y: "total", text: (d) => d.total.toFixed(3), dy: -8, fontSize: 11}),
      Plot.text(points.filter((d) => d.total < 0), {fx: "method", x: "response", y: "total", text: (d) => d.total.toFixed(3), dy: 8, fontSize: 11})
    ]
  }));
  const ratio = wrongLength / rightLength;
  const pct = (x) => x.toFixed(5);
  for (const fig of [perToken, totals]) fig.style.margin = "0";
  // Two readout lines, two quantities: the push on one token (five decimals, as the smallest
  // needs) and the push summed over a whole answer.
  return html`<div data-widget="length-push">
    <div style="display:flex;flex-wrap:wrap;gap:12px">${perToken}${totals}</div>
    <p aria-live="polite">Each token of the right answer (${rightLength} tokens) is pushed up by
      <b data-readout="grpo_right" data-value="${right.grpo}">${pct(right.grpo)}</b> under GRPO and
      <b data-readout="dr_right" data-value="${right.dr_grpo}">${pct(right.dr_grpo)}</b> under Dr. GRPO;
      each token of the wrong answer (${wrongLength} tokens) is pushed down by
      <b data-readout="grpo_wrong" data-value="${wrong.grpo}">${pct(-wrong.grpo)}</b> and
      <b data-readout="dr_wrong" data-value="${wrong.dr_grpo}">${pct(-wrong.dr_grpo)}</b>.
      Under GRPO a wrong token costs <b data-readout="grpo_ratio" data-value="${1 / ratio}">${(1 / ratio).toFixed(3)}</b>×
      what a right token earns; under Dr. GRPO exactly 1×.</p>
    <p aria-live="polite">Summed over its tokens, the whole wrong answer costs
      <b data-readout="grpo_wrong_total" data-value="${wrong.grpo_total}">${wrong.grpo_total.toFixed(3)}</b> under GRPO
      at any length, <b data-readout="dr_wrong_total" data-value="${wrong.dr_grpo_total}">${wrong.dr_grpo_total.toFixed(3)}</b>
      under Dr. GRPO (its constant is the ${maxLen}-token budget). Small dots: demonstrate_length_bias's rows.</p>
  </div>`;
}

export function lengthDriftChart({Plot, html, width}, records, labels) {
  const {GRPO, DR, COLORS} = methods(labels);
  const rows = records.flatMap((r) => [
    {method: r.method === "grpo" ? GRPO : DR, track: "wrong chains", step: r.step, length: r.wrong_length},
    {method: r.method === "grpo" ? GRPO : DR, track: "right chains", step: r.step, length: r.right_length}
  ]);
  const last = (method, track) => rows.filter((d) => d.method === method && d.track === track).at(-1);
  const ends = [GRPO, DR].flatMap((m) => ["wrong chains", "right chains"].map((t) => last(m, t)));
  const lastStep = Math.max(...rows.map((d) => d.step));
  const yTop = Math.max(...rows.map((d) => d.length)) * 1.05;
  const chart = markGroups(Plot.plot({
    ariaLabel: "Mean chain length during training, GRPO and Dr. GRPO",
    ariaDescription: "Mean length of the right and of the wrong chains at each update step, one line of each per objective.",
    width: chartWidth(width, 800),
    height: 340,
    marginLeft: 50,
    marginRight: 150,
    x: {label: "update step", domain: [0, lastStep]},
    y: {label: "mean chain length (tokens)", grid: true, domain: [0, yTop]},
    color: {legend: true, ...COLORS},
    marks: [
      Plot.line(rows.filter((d) => d.track === "wrong chains"), {x: "step", y: "length", stroke: "method", z: "method", strokeWidth: 2.5}),
      Plot.line(rows.filter((d) => d.track === "right chains"), {x: "step", y: "length", stroke: "method", z: "method", strokeWidth: 2, strokeDasharray: "6,4"}),
      // Dr. GRPO's two lines end at almost the same height: wrong above, right below.
      Plot.text(ends.filter((d) => d.track === "wrong chains"), {x: "step", y: "length", text: (d) => `${d.method}, wrong: ${d.length.toFixed(1)}`, textAnchor: "start", dx: 6, dy: -7, fontSize: 11}),
      // Kept clear of the x axis's ticks when a line ends near zero.
      Plot.text(ends.filter((d) => d.track === "right chains"), {x: "step", y: (d) => Math.max(d.length, 0.06 * yTop), text: (d) => `${d.method}, right: ${d.length.toFixed(1)}`, textAnchor: "start", dx: 6, dy: 7, fontSize: 11})
    ]
  }));
  const value = (method, track) => last(method, track).length;
  return html`<div data-widget="length-drift">${chart}
    <p aria-live="polite">After ${lastStep} updates: under GRPO wrong chains average
      <b data-readout="grpo_wrong" data-value="${value(GRPO, "wrong chains")}">${value(GRPO, "wrong chains").toFixed(1)}</b> tokens and right
      chains <b data-readout="grpo_right" data-value="${value(GRPO, "right chains")}">${value(GRPO, "right chains").toFixed(1)}</b>;
      under Dr. GRPO <b data-readout="dr_wrong" data-value="${value(DR, "wrong chains")}">${value(DR, "wrong chains").toFixed(1)}</b> and
      <b data-readout="dr_right" data-value="${value(DR, "right chains")}">${value(DR, "right chains").toFixed(1)}</b>.
      Solid: wrong chains; dashed: right chains. Length never changes the reward.</p>
  </div>`;
}
