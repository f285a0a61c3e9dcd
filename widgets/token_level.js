// Token-level vs sample-level loss: how much of the loss each response of a group carries, and
// how much each of its tokens carries. responseWeights mirrors the weights
// dapo.demonstrate_token_level reads off autograd (1/G per response vs |o_i| / sum_j |o_j|).
import {responseWeights} from "./dapo_math.js";
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

// A response's name over two lines ("response 3" / "8 tok"): four side by side fit a phone.
const twoLines = (name) => name.replace(" · ", "\n");
const SCHEMES = ["sample-level (GRPO)", "token-level (DAPO)"];

export function tokenLevelChart({Plot, html, width}, lengths) {
  const weights = responseWeights(lengths);
  const names = weights.map((w, i) => `response ${i + 1} · ${w.length} tok`);
  const rows = weights.flatMap((w, i) => [
    {response: names[i], scheme: SCHEMES[0], total: w.sample_weight, perToken: w.sample_per_token},
    {response: names[i], scheme: SCHEMES[1], total: w.token_weight, perToken: w.token_per_token}
  ]);
  const common = {
    fx: "response",
    x: "scheme",
    fill: "scheme",
    tip: true
  };
  const color = {legend: true, domain: SCHEMES, range: ["#999999", "#ef8a2f"]};
  const totals = markGroups(Plot.plot({
    ariaLabel: "Each response's share of the loss, sample-level against token-level",
    ariaDescription: "For each response, its share of the loss when the loss averages over samples and when it averages over tokens.",
    width: chartWidth(width),
    height: 240,
    marginLeft: 50,
    marginBottom: 34,
    fx: {label: null, domain: names, tickFormat: twoLines},
    x: {axis: null, domain: SCHEMES},
    y: {label: "share of the loss (response total)", domain: [0, 1], grid: true},
    color,
    marks: [
      Plot.barY(rows, {...common, y: "total"}),
      Plot.text(rows, {...common, y: "total", text: (d) => d.total.toFixed(3), dy: -6, fill: "currentColor", fontSize: 10}), // the text colour: black would vanish on the dark page
      Plot.ruleY([0])
    ]
  }));
  const perToken = markGroups(Plot.plot({
    ariaLabel: "Weight of one token in each response, sample-level against token-level",
    ariaDescription: "For each response, the weight one of its tokens gets when the loss averages over samples and when it averages over tokens.",
    width: chartWidth(width),
    height: 200,
    marginLeft: 50,
    marginBottom: 34,
    fx: {label: null, domain: names, tickFormat: twoLines},
    x: {axis: null, domain: SCHEMES},
    y: {label: "weight of one token", grid: true},
    marks: [Plot.barY(rows, {...common, y: "perToken"}), Plot.ruleY([0])],
    color: {domain: SCHEMES, range: ["#999999", "#ef8a2f"]}
  }));
  const readouts = weights.map(
    (w, i) => html`<li>response ${i + 1} (${w.length} tokens): sample-level
      <b data-readout="${`sample-${i + 1}`}" data-value="${w.sample_weight}">${w.sample_weight.toFixed(3)}</b>,
      token-level <b data-readout="${`token-${i + 1}`}" data-value="${w.token_weight}">${w.token_weight.toFixed(3)}</b></li>`
  );
  const total = lengths.reduce((s, n) => s + n, 0);
  return html`<div data-widget="token-level">${totals}${perToken}
    <p>${lengths.length} responses, ${total} tokens in all. Each response's share of the loss:</p>
    <ul style="margin-top:0" aria-live="polite">${readouts}</ul>
  </div>`;
}
