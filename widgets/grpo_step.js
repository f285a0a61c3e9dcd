// One GRPO group, step by step: the reader grades G answers right or wrong and watches the
// group's mean, its population std and each answer's advantage A_i = (r_i - mean) / (std + eps).
// The maths is grpo_math.groupRelativeAdvantages (mirrors grpo.group_relative_advantages).
import {groupRelativeAdvantages, groupStats} from "./grpo_math.js";
import {ink} from "./ink.js";
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

const RIGHT = "right (r = 1)";
const WRONG = "wrong (r = 0)";

/** The 0/1 rewards of the first `groupSize` answers, given the names of those graded right. */
export function rewardsFromChecks(groupSize, rightNames) {
  return Array.from({length: groupSize}, (_, i) => (rightNames.includes(`o${i + 1}`) ? 1 : 0));
}

export function grpoStepChart({Plot, html, width}, {groupSize, right}) {
  const rewards = rewardsFromChecks(groupSize, right);
  const adv = groupRelativeAdvantages(rewards);
  const {mean, std} = groupStats(rewards);
  const numRight = rewards.reduce((s, r) => s + r, 0);
  const tied = numRight === 0 || numRight === groupSize;
  const rows = rewards.map((r, i) => ({
    sample: `o${i + 1}`,
    reward: r,
    advantage: adv[i],
    outcome: r === 1 ? RIGHT : WRONG
  }));
  // A value label ("+1.291") is about 3.4 times its font size wide: shrink it to fit its bar's slot.
  const slot = (chartWidth(width) - 70) / groupSize;
  const fontSize = Math.max(9, Math.min(12, Math.floor(slot / 3.6)));
  const chart = markGroups(Plot.plot({
    ariaLabel: "Advantage of each answer in one GRPO group",
    ariaDescription: `One bar per answer of the group of ${groupSize}, its height the advantage GRPO gives it; each tick names the answer and its reward (1 right, 0 wrong).`,
    width: chartWidth(width),
    height: 300,
    marginLeft: 50,
    marginBottom: 44,
    x: {
      label: "answer in the group, with its reward",
      domain: rows.map((d) => d.sample),
      padding: 0.25,
      tickFormat: (s) => `${s}\nr = ${rows.find((d) => d.sample === s).reward}` // two lines: eight fit a phone
    },
    y: {label: "advantage A_i", domain: [-2.9, 2.9], grid: true},
    color: {legend: true, domain: [RIGHT, WRONG], range: ["#2e9e5b", "#d1495b"]},
    marks: [
      Plot.barY(rows, {x: "sample", y: "advantage", fill: "outcome"}),
      Plot.ruleY([0], {stroke: "currentColor"}),
      // Plot's dy is a constant, so the labels above and below the axis are two marks.
      Plot.text(rows.filter((d) => d.advantage >= 0), {x: "sample", y: "advantage", text: (d) => (d.advantage === 0 ? "0" : "+" + d.advantage.toFixed(3)), dy: -9, fontSize}),
      Plot.text(rows.filter((d) => d.advantage < 0), {x: "sample", y: "advantage", text: (d) => "−" + (-d.advantage).toFixed(3), dy: 9, fontSize})
    ]
  }));
  const advList = rows.map(
    (d, i) => html`<span data-readout="${`adv${i + 1}`}" data-value="${d.advantage}"></span>`
  );
  const verdict = tied
    ? html`<p style="color:${ink.warn}" aria-live="polite"><b data-readout="signal" data-value="none">No signal.</b>
        Every answer earned the same reward, so the std is 0 and every advantage is exactly 0:
        this group adds nothing to the gradient.</p>`
    : html`<p aria-live="polite"><b data-readout="signal" data-value="some">Signal.</b> A right answer gets
        A = ${adv[rewards.indexOf(1)] >= 0 ? "+" : ""}${adv[rewards.indexOf(1)].toFixed(3)}, a wrong one
        A = ${adv[rewards.indexOf(0)].toFixed(3)}; the advantages sum to zero.</p>`;
  const outside = groupSize < 8
    ? html`<p style="font-size:0.9em">Only the first ${groupSize} answers are in the group:
        ${groupSize === 7 ? "o8 is" : `o${groupSize + 1}–o8 are`} greyed out above; raise G to grade them.</p>`
    : "";
  return html`<div data-widget="grpo-step">${chart}${outside}
    <p aria-live="polite">${numRight} of ${groupSize} right: mean reward
      <b data-readout="mean" data-value="${mean}">${mean.toFixed(3)}</b>,
      population std <b data-readout="std" data-value="${std}">${std.toFixed(3)}</b>
      <span data-readout="right" data-value="${numRight}"></span>${advList}</p>
    ${verdict}
  </div>`;
}
