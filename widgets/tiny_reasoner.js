// The tiny reasoner, live: sample n chains of thought from the shipped checkpoint in the
// reader's browser, show each chain as it is written, and tally the vote as chains finish.
//
// The forward pass is tiny_gpt_forward.js (tested against PyTorch); the tally and the vote are
// voting.js's voteDistribution / majorityVote (tested against reasoning.vote_distribution /
// reasoning.majority_vote); the answer of a chain is extractAnswer (reasoning.extract_answer).
//
// In the chapter, one cell (an async generator: the page redraws at every yield):
//   tinyReasonerLive({Plot, html}, new URL("../data/tiny_reasoner.json", document.baseURI),
//                    {problem, answer}, {temperature, n, seed})
// which is sampleLive (the chains, as they are written) drawn by tinyReasonerView.
import {extractAnswer, loadTinyGPT, mulberry32, startChains} from "./tiny_gpt_forward.js";
import {majorityVote, voteDistribution} from "./voting.js";

const models = new Map();

/** Fetch and check the checkpoint once per URL (the .bin is read from beside the JSON). */
export function loadTinyReasoner(jsonUrl) {
  const key = String(jsonUrl);
  if (!models.has(key)) {
    const loading = loadTinyGPT(jsonUrl);
    loading.catch(() => models.delete(key)); // a failed fetch is retried next time
    models.set(key, loading);
  }
  return models.get(key);
}

/** The widget: load the model, then yield a fresh drawing for every state of sampleLive. */
export async function* tinyReasonerLive({Plot, html}, jsonUrl, {problem, answer}, options) {
  const model = await loadTinyReasoner(jsonUrl);
  for await (const state of sampleLive(model, problem, options)) {
    yield tinyReasonerView({Plot, html}, state, answer);
  }
}

const now = () => (globalThis.performance ? performance.now() : Date.now());

/**
 * Sample n chains for `problem` in lockstep (every chain gains a character per step), yielding
 * the state about once a frame (every ~15 ms of compute) and whenever a chain finishes, so the
 * page shows the chains as they are written and the tally as it fills. State: {problem,
 * temperature, n, chains: [{text, answer, done}], done, msPerChain}. The draws come from
 * mulberry32(seed): the same seed gives the same chains.
 */
export async function* sampleLive(model, problem, {temperature = 1, n = 10, seed = 1, topP = 1} = {}) {
  const rand = mulberry32(seed);
  const started = now();
  const decoder = startChains(model, `${problem}=`, n, {temperature, topP, rand});
  let computeMs = now() - started;
  const snapshot = (done) => ({
    problem, temperature, n, done,
    chains: decoder.chains.map((c) => ({text: c.text, done: c.done, answer: c.done ? extractAnswer(c.text) : null})),
    msPerChain: computeMs / n
  });
  let slice = now();
  while (!decoder.done) {
    const finishedBefore = decoder.chains.filter((c) => c.done).length;
    decoder.step();
    const finishedNow = decoder.chains.filter((c) => c.done).length;
    if (now() - slice > 15 || finishedNow > finishedBefore) {
      computeMs += now() - slice;
      if (!decoder.done) yield snapshot(false);
      slice = now();
    }
  }
  computeMs += now() - slice;
  yield snapshot(true);
}

/** Draw one state of sampleLive: the chains so far, the live tally and the vote. */
export function tinyReasonerView({Plot, html}, state, correct) {
  const finished = state.chains.filter((c) => c.done);
  const answers = finished.map((c) => c.answer);
  const vote = majorityVote(answers);
  const tally = voteDistribution(answers).map((r) => ({...r, right: r.answer === correct}));
  const nRight = answers.filter((a) => a === correct).length;
  const colour = (c) => (!c.done ? "#555" : c.answer === correct ? "#2a9d8f" : "#e76f51");

  const list = html`<ol class="tr-chains" style="font-family: monospace; font-size: 0.85em; padding-left: 2.5em; margin: 0.3em 0">
    ${state.chains.map((c) => html`<li data-chain=${c.text} data-done=${c.done ? 1 : 0} style="color: ${colour(c)}">
      ${c.text}${c.done ? html`&nbsp;<b>→ ${c.answer ?? "no answer"}</b>` : html`<span style="opacity: 0.5">▌</span>`}</li>`)}
  </ol>`;

  const chart = Plot.plot({
    height: 50 + 26 * Math.max(tally.length, 1),
    marginLeft: 60,
    x: {label: "votes", domain: [0, Math.max(5, ...tally.map((r) => r.votes))], grid: true},
    y: {label: "answer", domain: tally.map((r) => r.answer)},
    color: {domain: [true, false], range: ["#2a9d8f", "#e76f51"]},
    marks: [
      Plot.barX(tally, {x: "votes", y: "answer", fill: "right"}),
      Plot.text(tally, {x: "votes", y: "answer", text: (r) => `${r.votes}`, dx: 10}),
      Plot.ruleX([0])
    ]
  });

  const verdict = vote === null ? "" : vote === correct ? " (right)" : " (wrong)";
  const status = state.done
    ? `Done: ${finished.length} chains, ${state.msPerChain.toFixed(1)} ms per chain in this browser.`
    : `Sampling ${state.n} chains: ${finished.length} finished…`;
  return html`<div data-widget="tiny-reasoner">
    <p>Prompt <code>${state.problem}=</code> (right answer ${correct}), temperature
      <span data-readout="temperature" data-value=${state.temperature}>${state.temperature}</span>.</p>
    ${list}
    ${chart}
    <p>Vote after <span data-readout="finished" data-value=${finished.length}>${finished.length}</span> chains:
      <b data-readout="vote" data-value=${vote ?? ""}>${vote ?? "—"}</b>${verdict};
      <span data-readout="right" data-value=${nRight}>${nRight}</span> chains right.
      <span data-readout="done" data-value=${state.done ? 1 : 0}>${status}</span>
      <span data-readout="ms-per-chain" data-value=${state.msPerChain} hidden></span></p>
  </div>`;
}
