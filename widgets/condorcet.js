// Condorcet's colluding bound against the exact plurality curve with D scattered wrong answers,
// with Python's Monte-Carlo dots on top. The two curves are computed live (voting.js mirrors
// reasoning.condorcet_majority_prob and reasoning.plurality_vote_prob).
import {condorcetMajorityProb, pluralityVoteProb} from "./voting.js";
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

const POINTS = new Map(); // "p,n,D" -> [Condorcet, plurality]: moving "Largest n" reuses every point

function point(p, n, D) {
  const key = `${p},${n},${D}`;
  if (!POINTS.has(key)) {
    if (POINTS.size >= 4096) POINTS.clear();
    POINTS.set(key, [condorcetMajorityProb(p, n), pluralityVoteProb(p, n, D)]);
  }
  return POINTS.get(key);
}

export function condorcetCurves(p, D, nMax) {
  const rows = [];
  for (let n = 1; n <= nMax; n += 2) {
    const [condorcet, plurality] = point(p, n, D);
    rows.push({n, curve: "Condorcet (colluding)", acc: condorcet});
    rows.push({n, curve: `Plurality, D = ${D}`, acc: plurality});
  }
  return rows;
}

export function condorcetChart({Plot, html, width}, mc, {p, D, nMax}) {
  const rows = condorcetCurves(p, D, nMax);
  const dots = mc.filter((r) => Math.abs(r.p - p) < 1e-9 && r.D === D && r.n <= nMax);
  const last = (name) => rows.filter((r) => r.curve.startsWith(name)).at(-1).acc;
  const chart = markGroups(Plot.plot({
    ariaLabel: "Accuracy of a majority vote against the number of samples",
    ariaDescription: `Probability that the vote is right as the number of samples n grows, for one-sample accuracy p = ${p}: Condorcet's colluding bound and plurality with ${D} scattered wrong answers, with simulated dots.`,
    width: chartWidth(width),
    height: 340,
    x: {label: "samples voted (n)", domain: [1, nMax]},
    y: {label: "P(vote is right)", domain: [0, 1], grid: true},
    color: {legend: true, domain: ["Condorcet (colluding)", `Plurality, D = ${D}`], range: ["#4269d0", "#ef8a2f"]},
    marks: [
      Plot.ruleY([0.5], {stroke: "#999", strokeDasharray: "4,3"}),
      Plot.ruleY([p], {stroke: "#bbb"}),
      Plot.line(rows, {x: "n", y: "acc", stroke: "curve", strokeWidth: 2}),
      Plot.dot(dots, {x: "n", y: "acc", stroke: "#ef8a2f", r: 3.5, title: (d) => `simulated: ${d.acc.toFixed(3)}`})
    ]
  }));
  const cond = last("Condorcet");
  const plur = last("Plurality");
  return html`<div data-widget="condorcet">${chart}
    <p aria-live="polite">At n = ${nMax}: colluding wrong answers
      <b data-readout="condorcet" data-value="${cond}">${cond.toFixed(3)}</b>,
      ${D} scattered wrong answers <b data-readout="plurality" data-value="${plur}">${plur.toFixed(3)}</b>.
      The grey line is one sample's accuracy p; dots are ${dots.length} simulated points.</p>
  </div>`;
}
