// A chain of arithmetic steps judged twice: by the perfect process reward model (one verdict per
// step, prm_math.stepRewards mirrors prm.step_rewards) and by the outcome model (the last line
// only, prm_math.ormScore mirrors prm.orm_score). The first step the PRM rejects is marked.
import {firstErrorIndex, ormScore, parseStep, prmScore, stepRewards} from "./prm_math.js";
import {ink, mutedFill, solid} from "./ink.js";
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

export function splitChain(text) {
  return text.split(";");
}

export function cruxChain({Plot, html, width}, text, {target = 24} = {}) {
  const chain = splitChain(text);
  const rewards = stepRewards(chain);
  const orm = ormScore(chain, target);
  const prm = prmScore(chain, "min");
  const first = firstErrorIndex(chain);
  const T = chain.length;
  const label = (i) => `${i + 1}. ${chain[i].trim() || "(empty)"}`;
  const labels = chain.map((_, i) => label(i));
  const readable = chain.map((s) => {
    try {
      parseStep(s);
      return true;
    } catch {
      return false;
    }
  });

  const cols = ["process (PRM)", "outcome (ORM)"];
  const cells = [];
  chain.forEach((_, i) => {
    cells.push({
      col: cols[0],
      step: labels[i],
      verdict: rewards[i] ? "valid" : "invalid",
      text: (rewards[i] ? "✓ 1" : readable[i] ? "✗ 0" : "✗ unreadable") + (i === first ? "\nfirst error" : "") // two lines: the cell is narrow on a phone
    });
    const last = i === T - 1;
    cells.push({
      col: cols[1],
      step: labels[i],
      verdict: last ? (orm ? "valid" : "invalid") : "not read",
      text: last ? (orm ? `✓ = ${target}` : `✗ ≠ ${target}`) : "not read"
    });
  });
  const flag = first === null ? [] : [{col: cols[0], step: labels[first]}];

  const chart = markGroups(Plot.plot({
    ariaLabel: "Verdict on each step of the chain",
    ariaDescription: "One row per reasoning step, each cell the verifier's verdict (valid, invalid or not read), the first error outlined.",
    width: chartWidth(width),
    height: 70 + 34 * T,
    marginLeft: 190,
    marginTop: 44,
    x: {domain: cols, axis: "top", label: null, tickSize: 0, tickFormat: (c) => c.replace(" (", "\n(")},
    y: {domain: labels, label: null, tickSize: 0},
    color: {domain: ["valid", "invalid", "not read"], range: [solid.good, solid.bad, mutedFill]},
    marks: [
      Plot.cell(cells, {x: "col", y: "step", fill: "verdict", inset: 2, rx: 4}),
      Plot.text(cells, {
        x: "col",
        y: "step",
        text: "text",
        fill: (d) => (d.verdict === "not read" ? ink.muted : "white"),
        fontWeight: "bold"
      }),
      Plot.cell(flag, {x: "col", y: "step", stroke: "currentColor", strokeWidth: 3, fill: "none", inset: 1, rx: 4})
    ]
  }));

  const fooled = orm === 1 && prm === 0;
  const verdict = fooled
    ? html`<b style="color:${ink.bad}">The outcome model is fooled:</b> right answer, broken reasoning.`
    : orm === 1
      ? html`Both models accept this chain.`
      : prm === 1
        ? html`Every step is sound but the chain does not reach ${target}; only the outcome model objects.`
        : html`Both models reject this chain.`;
  return html`<div data-widget="crux-chain">
    ${chart}
    <p aria-live="polite">Step rewards <code data-readout="rewards" data-value="${rewards.join(",")}">[${rewards.join(", ")}]</code>;
      PRM score (min) <b data-readout="prm" data-value="${prm}">${prm.toFixed(1)}</b>,
      ORM score <b data-readout="orm" data-value="${orm}">${orm.toFixed(1)}</b>;
      first error at step index <b data-readout="first-error" data-value="${first ?? ""}">${first ?? "none"}</b>.
      ${verdict}</p>
  </div>`;
}
