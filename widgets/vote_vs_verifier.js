// Voting against best-of-N as the number of samples N grows. The lines are exact (voting.js
// mirrors reasoning.plurality_vote_prob and reasoning.best_of_n_accuracy); the dots are Python's
// seeded simulation, which also runs the verifier-weighted vote.
import {bestOfNAccuracy, pluralityVoteProb} from "./voting.js";
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

export const VV_NS = [1, 2, 4, 8, 16, 32, 64];

const CURVES = new Map(); // "p,separation,D" -> rows: the sliders have few stops, revisited often

export function voteVsVerifierCurves(p, separation, D) {
  const key = `${p},${separation},${D}`;
  if (!CURVES.has(key)) {
    if (CURVES.size >= 256) CURVES.clear();
    CURVES.set(key, computeCurves(p, separation, D));
  }
  return CURVES.get(key);
}

function computeCurves(p, separation, D) {
  return VV_NS.flatMap((n) => [
    {n, strategy: "majority vote", acc: pluralityVoteProb(p, n, D)},
    {n, strategy: "best-of-N", acc: bestOfNAccuracy(p, n, separation)}
  ]);
}

export function voteVsVerifierChart({Plot, html, width}, mc, {p, separation, D}) {
  const rows = voteVsVerifierCurves(p, separation, D);
  const sims = mc
    .filter((r) => Math.abs(r.p - p) < 1e-9 && Math.abs(r.separation - separation) < 1e-9)
    .flatMap((r) => [
      {n: r.n, strategy: "majority vote", acc: r.vote},
      {n: r.n, strategy: "best-of-N", acc: r.best_of_n},
      {n: r.n, strategy: "weighted vote", acc: r.weighted}
    ]);
  const strategies = ["majority vote", "best-of-N", "weighted vote"];
  const at64 = (s) => rows.find((r) => r.n === 64 && r.strategy === s).acc;
  const chart = markGroups(Plot.plot({
    ariaLabel: "Accuracy of voting and verifier selection against the number of samples",
    ariaDescription: `Probability that the chosen answer is right as the number of samples N grows, one line per strategy, for p = ${p} and verifier separation ${separation}; dots are simulated.`,
    width: chartWidth(width),
    height: 340,
    x: {type: "log", base: 2, label: "samples N", domain: [1, 64]},
    y: {label: "P(chosen answer is right)", domain: [0, 1], grid: true},
    color: {legend: true, domain: strategies, range: ["#ef8a2f", "#4269d0", "#2a9d8f"]},
    marks: [
      Plot.line(rows, {x: "n", y: "acc", stroke: "strategy", strokeWidth: 2}),
      Plot.dot(sims, {x: "n", y: "acc", stroke: "strategy", r: 3.5})
    ]
  }));
  return html`<div data-widget="vote-vs-verifier">${chart}
    <p aria-live="polite">At N = 64: voting <b data-readout="vote64" data-value="${at64("majority vote")}">${at64("majority vote").toFixed(3)}</b>,
      best-of-N <b data-readout="bon64" data-value="${at64("best-of-N")}">${at64("best-of-N").toFixed(3)}</b>
      (verifier separation ${separation}, one sample right with probability ${p}).</p>
  </div>`;
}
