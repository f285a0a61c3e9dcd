// The variance law on log-log axes: per-token log-ratios with variance v give a token weight of
// variance v, a raw sequence product of variance L v, and GSPO's geometric mean of variance v / L.
// Lines are the closed forms, computed live (gspo_math.js mirrors gspo.log_ratio_variances); dots
// are Python's seeded Monte-Carlo estimates (gspo.demonstrate_length_variance) for the chosen v.
import {logRatioVariances} from "./gspo_math.js";
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

const SERIES = [
  ["token", "one token's weight (GRPO): v"],
  ["product", "raw product of ratios: L·v"],
  ["seq", "GSPO's s: v / L"]
];
const COLORS = ["#4269d0", "#d62728", "#ef8a2f"];

export function lengthVarianceLines(v, maxLength) {
  const rows = [];
  for (let L = 1; L <= maxLength; L++) {
    const law = logRatioVariances(v, L);
    for (const [key, name] of SERIES) rows.push({length: L, series: name, variance: law[key]});
  }
  return rows;
}

const fmt = (x) => (x >= 0.01 ? x.toFixed(4) : x.toExponential(3));

export function lengthVarianceChart({Plot, html, width}, mc, {v, length}) {
  const dotsAll = mc.filter((r) => Math.abs(r.v - v) < 1e-9);
  if (dotsAll.length === 0) throw new RangeError(`no Monte-Carlo records for v = ${v}`);
  const maxLength = Math.max(...dotsAll.map((r) => r.length));
  const lines = lengthVarianceLines(v, maxLength);
  const dots = dotsAll.flatMap((r) => SERIES.map(([key, name]) => ({length: r.length, series: name, variance: r[`${key}_mc`]})));
  const law = logRatioVariances(v, length);
  const here = dotsAll.find((r) => r.length === length);
  if (!here) throw new RangeError(`no Monte-Carlo record at length ${length}`);
  const chart = markGroups(Plot.plot({
    ariaLabel: "Variance of the log-weight against response length",
    ariaDescription: `On log axes, the variance of one token's log-weight, of the raw product over L tokens and of GSPO's geometric mean, for per-token variance v = ${v}; lines are the closed forms, dots simulations.`,
    width: chartWidth(width),
    height: 360,
    marginLeft: 60,
    x: {type: "log", base: 2, label: "response length L (tokens)", domain: [1, maxLength]},
    y: {type: "log", label: "variance of the log-weight", domain: [1e-5, 20], grid: true,
        ticks: [1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10],
        tickFormat: (d) => (d >= 0.01 ? `${d}` : d.toExponential(0))},
    color: {legend: true, domain: SERIES.map(([, n]) => n), range: COLORS},
    marks: [
      Plot.ruleX([length], {stroke: "#999", strokeDasharray: "4,3"}),
      Plot.line(lines, {x: "length", y: "variance", stroke: "series", strokeWidth: 2}),
      Plot.dot(dots, {x: "length", y: "variance", stroke: "series", fill: "var(--bs-body-bg, white)", r: 4, strokeWidth: 1.5,
                      title: (d) => `Monte-Carlo at L = ${d.length}: ${fmt(d.variance)}`})
    ]
  }));
  const gap = law.product / law.seq;
  return html`<div data-widget="length-variance">${chart}
    <p aria-live="polite">At L = ${length}: one token's weight has log-variance
      <b data-readout="token" data-value="${law.token}">${fmt(law.token)}</b>
      (simulated <span data-readout="token_mc" data-value="${here.token_mc}">${fmt(here.token_mc)}</span>),
      the raw product <b data-readout="product" data-value="${law.product}">${fmt(law.product)}</b>
      (simulated <span data-readout="product_mc" data-value="${here.product_mc}">${fmt(here.product_mc)}</span>),
      GSPO's s <b data-readout="seq" data-value="${law.seq}">${fmt(law.seq)}</b>
      (simulated <span data-readout="seq_mc" data-value="${here.seq_mc}">${fmt(here.seq_mc)}</span>).
      The product's variance is <b data-readout="gap" data-value="${gap}">${Math.round(gap).toLocaleString("en-US")}</b>
      times s's: L².</p>
  </div>`;
}
