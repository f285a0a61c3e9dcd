// MoE routing flips: k tokens of a 256-token response change expert between the sampling policy
// and the current one, and each of their log-ratios jumps. The records are Python's
// (gspo.demonstrate_routing_flip, one seeded response per jump size); the widget draws how the largest
// token ratio, the raw product of ratios and GSPO's s respond as k grows.
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

const SERIES = [
  ["max_token_ratio", "largest token ratio (GRPO)"],
  ["product_ratio", "raw product of all ratios"],
  ["seq_ratio", "GSPO's s"]
];
const COLORS = ["#4269d0", "#d62728", "#ef8a2f"];

const fmt = (x) => (x < 1e4 ? x.toFixed(x < 10 ? 4 : 1) : x.toExponential(2));

export function routingFlipsChart({Plot, html, width}, records, {jump, k}) {
  const rows = records.filter((r) => Math.abs(r.jump - jump) < 1e-9);
  if (rows.length === 0) throw new RangeError(`no routing-flip records for jump ${jump}`);
  const rec = rows.find((r) => r.num_flipped === k);
  if (!rec) throw new RangeError(`no routing-flip record with ${k} flipped tokens`);
  const maxK = Math.max(...rows.map((r) => r.num_flipped));
  const long = rows.flatMap((r) => SERIES.map(([key, name]) => ({k: r.num_flipped, series: name, value: r[key]})));
  const yMax = Math.max(...rows.map((r) => r.product_ratio)) * 10;
  const chart = markGroups(Plot.plot({
    ariaLabel: "Importance weights against the number of flipped experts",
    ariaDescription: "On a log scale, the largest token ratio, the raw product of the ratios and GSPO's sequence weight s as more tokens' experts flip.",
    width: chartWidth(width),
    height: 340,
    marginLeft: 60,
    x: {label: "tokens whose expert flipped (of 256)", domain: [0, maxK]},
    y: {type: "log", label: "importance weight", domain: [0.5, yMax], grid: true,
        tickFormat: (d) => (d < 1000 ? `${d}` : `1e${Math.round(Math.log10(d))}`)},
    color: {legend: true, domain: SERIES.map(([, n]) => n), range: COLORS},
    marks: [
      Plot.ruleY([1], {stroke: "#999", strokeDasharray: "4,3"}),
      Plot.ruleX([k], {stroke: "#999", strokeDasharray: "4,3"}),
      Plot.line(long, {x: "k", y: "value", stroke: "series", strokeWidth: 2}),
      Plot.dot(long.filter((d) => d.k === k), {x: "k", y: "value", fill: "series", r: 5,
                                               title: (d) => `${d.series}: ${fmt(d.value)}`})
    ]
  }));
  // The same s on a linear scale: a slow drift of e^(k * jump / L), against the paper's clip.
  const sRows = rows.map((r) => ({k: r.num_flipped, s: r.seq_ratio}));
  const sMax = Math.max(...sRows.map((r) => r.s));
  const zoom = markGroups(Plot.plot({
    ariaLabel: "GSPO's s against the number of flipped experts",
    ariaDescription: "A linear-scale zoom on GSPO's sequence weight s as more tokens' experts flip.",
    width: chartWidth(width),
    height: 150,
    marginLeft: 60,
    x: {label: "tokens whose expert flipped", domain: [0, maxK]},
    y: {label: "GSPO's s (linear)", domain: [Math.min(0.99, ...sRows.map((r) => r.s)), Math.max(1.01, sMax * 1.01)], grid: true},
    marks: [
      Plot.ruleY([1], {stroke: "#999", strokeDasharray: "4,3"}),
      Plot.ruleX([k], {stroke: "#999", strokeDasharray: "4,3"}),
      Plot.line(sRows, {x: "k", y: "s", stroke: COLORS[2], strokeWidth: 2}),
      Plot.dot([{k, s: rec.seq_ratio}], {x: "k", y: "s", fill: COLORS[2], r: 5})
    ]
  }));
  chart.style.margin = "0"; // a Plot with a legend is a <figure>: drop its default indent so the axes align
  return html`<div data-widget="routing-flips">${chart}${zoom}
    <p aria-live="polite">With ${k} flipped tokens (log-ratio jump ${jump}): the largest token ratio is
      <b data-readout="max_token" data-value="${rec.max_token_ratio}">${fmt(rec.max_token_ratio)}</b>,
      <b data-readout="outside" data-value="${rec.tokens_outside_grpo_clip}">${rec.tokens_outside_grpo_clip}</b>
      tokens fall outside GRPO's clip band [0.8, 1.2], the raw product is
      <b data-readout="product" data-value="${rec.product_ratio}">${fmt(rec.product_ratio)}</b>,
      and GSPO's s is <b data-readout="seq" data-value="${rec.seq_ratio}">${rec.seq_ratio.toFixed(4)}</b>.</p>
  </div>`;
}
