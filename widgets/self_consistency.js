// Self-consistency, one chain at a time: the first `shown` chains of a batch, their extracted
// answers, the running tally and the vote. Tally and vote come from voting.js, which mirrors
// reasoning.vote_distribution / reasoning.majority_vote.
import {majorityVote, voteDistribution} from "./voting.js";
import {ink} from "./ink.js";
import {chartWidth} from "./layout.js";
import {markGroups} from "./a11y.js";

export function selfConsistencyStepper({Plot, html, width}, batch, correct, shown, problem) {
  const chains = batch.slice(0, shown);
  const answers = chains.map((c) => c.answer);
  const vote = majorityVote(answers);
  const rows = voteDistribution(answers).map((r) => ({...r, right: r.answer === correct}));
  const nRight = rows.find((r) => r.answer === correct)?.votes ?? 0;

  const chart = markGroups(Plot.plot({
    ariaLabel: "Votes for each answer",
    ariaDescription: `One bar per answer the ${shown} chains gave, its length the number of votes; the right answer (${correct}) is marked with a check.`,
    width: chartWidth(width),
    height: 60 + 28 * Math.max(rows.length, 1),
    marginLeft: 60,
    marginRight: 72, // room for the longest bar's label, "15 ✓ right", beyond the bar's end
    x: {label: "votes", domain: [0, Math.max(5, ...rows.map((r) => r.votes))], grid: true},
    y: {label: "answer", domain: rows.map((r) => r.answer)},
    color: {domain: [true, false], range: ["#2a9d8f", "#e76f51"]},
    marks: [
      Plot.barX(rows, {x: "votes", y: "answer", fill: "right"}),
      Plot.text(rows, {x: "votes", y: "answer", text: (r) => `${r.votes}${r.right ? " ✓ right" : ""}`, dx: 10, textAnchor: "start"}),
      Plot.ruleX([0])
    ]
  }));

  const list = html`<ol class="sc-chains" style="font-family: monospace; font-size: 0.85em; padding-left: 4ch">
    ${chains.map((c) => html`<li style="color: ${c.answer === correct ? ink.good : ink.bad}">
      ${c.chain} <b>→ ${c.answer ?? "no answer"}</b></li>`)}
  </ol>`;

  const verdict = vote === correct ? "right" : "wrong";
  // A tie at the top is broken as reasoning.majority_vote breaks it: the tied answer that
  // appeared first wins. Say so, rather than report the winner as if it had won outright.
  const top = Math.max(0, ...rows.map((r) => r.votes));
  const tied = rows.filter((r) => r.votes === top);
  const voteB = html`<b data-readout="vote" data-value="${vote ?? ""}">${vote ?? "—"}</b>`;
  const outcome = tied.length > 1
    ? html`<span data-readout="tie" data-value="${tied.length}">a ${tied.map(() => top).join("–")} tie
      between ${tied.map((r) => r.answer).join(" and ")}</span>, broken for the one that appeared
      first: ${voteB} (${verdict})`
    : html`${voteB} (${verdict})`;
  return html`<div data-widget="self-consistency">
    <p>Prompt: <code>${problem}=</code> (right answer ${correct}). Each line is one sampled chain.</p>
    ${list}
    ${chart}
    <p aria-live="polite">After <span data-readout="shown" data-value="${shown}">${shown}</span> chains the vote is
      ${outcome};
      <span data-readout="right" data-value="${nRight}">${nRight}</span> of ${shown} chains were right.</p>
  </div>`;
}
