// pass@k explorer: the unbiased estimator against the naive plug-in, and cons@k, for every k.
// passAtK / naivePassAtK / consAtKCounts mirror evaluation.pass_at_k / naive_pass_at_k /
// cons_at_k_counts (tested in tests/test_widget_math.py).
// A move of "Drawn k" only moves the marker: the curves depend on (n, c, D) and are cached, and
// cons@k comes for all k from one pass (consAtKCurve) rather than one DP per k.
import {consAtKCurve, naivePassAtK, passAtK} from "./voting.js";
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

/** The n - c wrong attempts spread as evenly as possible over D wrong answers. */
export function evenTally(n, c, D) {
  const counts = {right: c};
  const wrong = n - c;
  for (let d = 0; d < D; d++) {
    const share = Math.floor(wrong / D) + (d < wrong % D ? 1 : 0);
    if (share > 0) counts[`wrong${d + 1}`] = share;
  }
  return counts;
}

const ESTIMATORS = ["pass@k (unbiased)", "1-(1-c/n)^k (naive)", "cons@k"];

const CURVES = new Map(); // "n,c,D" -> {rows, cons}, the most recent few
const CACHE_SIZE = 64;

/** cons@k for k = 0..n of the even tally (index k), cached per (n, c, D). */
function consCurve(n, c, D) {
  return curves(n, c, D).cons;
}

function curves(n, c, D) {
  const key = `${n},${c},${D}`;
  let hit = CURVES.get(key);
  if (!hit) {
    const cons = consAtKCurve(evenTally(n, c, D), "right");
    const ks = [];
    for (let k = 1; k <= n; k += k < 20 ? 1 : Math.ceil(n / 60)) ks.push(k);
    if (ks.at(-1) !== n) ks.push(n);
    const rows = ks.flatMap((k) => [
      {k, estimator: ESTIMATORS[0], value: passAtK(n, c, k)},
      {k, estimator: ESTIMATORS[1], value: naivePassAtK(n, c, k)},
      {k, estimator: ESTIMATORS[2], value: cons[k]}
    ]);
    hit = {rows, cons};
    if (CURVES.size >= CACHE_SIZE) CURVES.delete(CURVES.keys().next().value); // oldest first
  }
  CURVES.delete(key);
  CURVES.set(key, hit); // most recently used last
  return hit;
}

export function passAtKCurves(n, c, D) {
  return curves(n, c, D).rows;
}

export function passAtKChart({Plot, html, width}, {n, c, k, D}) {
  const rows = passAtKCurves(n, c, D);
  const here = {
    unbiased: passAtK(n, c, k),
    naive: naivePassAtK(n, c, k),
    cons: consCurve(n, c, D)[k]
  };
  const chart = markGroups(Plot.plot({
    ariaLabel: "pass@k, the naive estimate and cons@k against k",
    ariaDescription: `The three scores as the number of attempts drawn k grows from 1 to ${n}, for ${c} right attempts out of n = ${n}.`,
    width: chartWidth(width),
    height: 340,
    x: {label: "attempts drawn k", domain: [1, n]},
    y: {label: "score", domain: [0, 1], grid: true},
    color: {legend: true, domain: ESTIMATORS, range: ["#4269d0", "#ef8a2f", "#2a9d8f"]},
    marks: [
      Plot.ruleX([k], {stroke: "#999", strokeDasharray: "4,3"}),
      Plot.line(rows.filter((r) => r.estimator === ESTIMATORS[0]), {x: "k", y: "value", stroke: "estimator", strokeWidth: 3}),
      Plot.line(rows.filter((r) => r.estimator === ESTIMATORS[1]), {x: "k", y: "value", stroke: "estimator", strokeWidth: 2, strokeDasharray: "6,4"}),
      Plot.line(rows.filter((r) => r.estimator === ESTIMATORS[2]), {x: "k", y: "value", stroke: "estimator", strokeWidth: 2}),
      Plot.dot([{k, value: here.unbiased}, {k, value: here.naive}, {k, value: here.cons}], {x: "k", y: "value", fill: "currentColor", r: 3})
    ]
  }));
  return html`<div data-widget="pass-at-k">${chart}
    <p aria-live="polite">n = ${n}, c = ${c}, k = ${k}: pass@k <b data-readout="unbiased" data-value="${here.unbiased}">${here.unbiased.toFixed(4)}</b>,
      naive <b data-readout="naive" data-value="${here.naive}">${here.naive.toFixed(4)}</b>,
      cons@k <b data-readout="cons" data-value="${here.cons}">${here.cons.toFixed(4)}</b>.</p>
  </div>`;
}
