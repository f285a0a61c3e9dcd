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
// which draws the empty chains at once, then each state of sampleInWorker (the chains, as a
// Web Worker writes them: tiny_reasoner_worker.js) with tinyReasonerView, at most once a frame.
// The page's main thread only draws, so a slider never waits for the forward passes. Where no
// module worker can start, sampleLive does the same work on the page, a slice per frame.
import {extractAnswer, loadTinyGPT, mulberry32, startChains} from "./tiny_gpt_forward.js";
import {majorityVote, voteDistribution} from "./voting.js";
import {chartWidth} from "./layout.js";
import {ink} from "./ink.js";
import {markGroups} from "./a11y.js";

let worker = null; // the sampler's worker, started on first use; undefined if none can start
let nextId = 0;
const listeners = new Map(); // request id -> callback for that request's messages

function samplerWorker() {
  if (worker === null) {
    try {
      worker = new Worker(new URL("./tiny_reasoner_worker.js", import.meta.url), {type: "module"});
      worker.onmessage = ({data}) => listeners.get(data.id)?.(data);
      worker.onerror = (event) => {
        event.preventDefault?.();
        for (const listen of listeners.values()) {
          listen({type: "error", message: `the sampler's worker failed: ${event.message ?? "unknown error"}`});
        }
      };
    } catch {
      worker = undefined;
    }
  }
  return worker;
}

/**
 * The states of sampleLive, computed in the worker: {problem, temperature, n, chains, done,
 * msPerChain}. Only the newest state is kept while the page is busy, so a slow page skips
 * states rather than falling behind; the last state (done) is always delivered.
 */
export async function* sampleInWorker(jsonUrl, problem, {temperature = 1, n = 10, seed = 1, topP = 1} = {}) {
  const w = samplerWorker();
  const id = ++nextId;
  let latest = null;
  let wake = null;
  listeners.set(id, (message) => {
    latest = message;
    wake?.();
  });
  let finished = false;
  try {
    const url = String(new URL(jsonUrl, document.baseURI));
    w.postMessage({type: "sample", id, url, problem, temperature, n, seed, topP});
    while (!finished) {
      if (latest === null) await new Promise((resolve) => (wake = resolve));
      const message = latest;
      latest = wake = null;
      if (message.type === "error") throw new Error(message.message);
      finished = message.done;
      yield {problem, temperature, n, done: message.done, chains: message.chains, msPerChain: message.msPerChain};
    }
  } finally {
    listeners.delete(id);
    if (!finished) w.postMessage({type: "cancel", id}); // the inputs moved on
  }
}

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
export async function* tinyReasonerLive({Plot, html, width}, jsonUrl, {problem, answer}, options) {
  const {temperature = 1, n = 10} = options;
  const empty = {text: "", done: false, answer: null};
  yield tinyReasonerView({Plot, html, width}, {problem, temperature, n, done: false, msPerChain: 0,
    chains: Array.from({length: n}, () => empty)}, answer);
  const states = samplerWorker()
    ? sampleInWorker(jsonUrl, problem, options)
    : sampleLive(await loadTinyReasoner(jsonUrl), problem, options);
  for await (const state of states) yield tinyReasonerView({Plot, html, width}, state, answer);
}

const now = () => (globalThis.performance ? performance.now() : Date.now());

/**
 * Sample n chains for `problem` in lockstep (every chain gains a character per step), yielding
 * the state about once a frame (every ~8 ms of compute) and whenever a chain finishes, so the
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
    if (now() - slice > 8 || finishedNow > finishedBefore) {
      computeMs += now() - slice;
      if (!decoder.done) yield snapshot(false);
      slice = now();
    }
  }
  computeMs += now() - slice;
  yield snapshot(true);
}

// The multi-path reasoner opens each chain with its route's token and ";" (arithmetic_task.
// ROUTE_TOKENS); the single-path one never does, so its chains show no route.
const ROUTE_NAMES = {"1": "left", "2": "signs", "3": "pairs"};

/** The route a chain announces (arithmetic_task.route_of), or null. */
export function routeOf(text) {
  return text.length >= 2 && text[1] === ";" ? ROUTE_NAMES[text[0]] ?? null : null;
}

/** Draw one state of sampleLive: the chains so far, the live tally and the vote. */
export function tinyReasonerView({Plot, html, width}, state, correct) {
  const finished = state.chains.filter((c) => c.done);
  const answers = finished.map((c) => c.answer);
  const vote = majorityVote(answers);
  const tally = voteDistribution(answers).map((r) => ({...r, right: r.answer === correct}));
  const nRight = answers.filter((a) => a === correct).length;
  const colour = (c) => (!c.done ? ink.muted : c.answer === correct ? ink.good : ink.bad);

  const list = html`<ol class="tr-chains" style="font-family: monospace; font-size: 0.85em; padding-left: 4ch; margin: 0.3em 0">
    ${state.chains.map((c) => html`<li data-chain="${c.text}" data-done="${c.done ? 1 : 0}" data-route="${routeOf(c.text) ?? ""}" style="color: ${colour(c)}">
      ${routeOf(c.text) ? html`<span style="color: ${ink.muted}">[${routeOf(c.text)}]</span> ` : ""}${c.text}${c.done ? html`&nbsp;<b>→ ${c.answer ?? "no answer"}</b>` : html`<span style="color: ${ink.muted}">▌</span>`}</li>`)}
  </ol>`;

  const chart = markGroups(Plot.plot({
    ariaLabel: "Votes for each answer of the tiny reasoner",
    ariaDescription: `One bar per answer the finished chains gave, its length the number of votes; the right answer (${correct}) is marked with a check.`,
    width: chartWidth(width),
    height: 50 + 26 * Math.max(tally.length, 1),
    marginLeft: 60,
    marginRight: 72, // room for the longest bar's label ("10 ✓ right") beyond the bar's end
    x: {label: "votes", domain: [0, Math.max(5, ...tally.map((r) => r.votes))], grid: true},
    y: {label: "answer", domain: tally.map((r) => r.answer)},
    color: {domain: [true, false], range: ["#2a9d8f", "#e76f51"]},
    marks: [
      Plot.barX(tally, {x: "votes", y: "answer", fill: "right"}),
      Plot.text(tally, {x: "votes", y: "answer", text: (r) => `${r.votes}${r.right ? " ✓ right" : ""}`, dx: 10, textAnchor: "start"}),
      Plot.ruleX([0])
    ]
  }));

  const routes = Object.values(ROUTE_NAMES).map((r) => [r, finished.filter((c) => routeOf(c.text) === r).length]);
  const routeLine = routes.some(([, k]) => k > 0)
    ? html` Routes: <span data-readout="routes" data-value="${routes.map(([r, k]) => `${r}:${k}`).join(",")}">${routes.map(([r, k]) => `${r} ${k}`).join(", ")}</span>.`
    : "";
  const verdict = vote === null ? "" : vote === correct ? " (right)" : " (wrong)";
  const status = state.done
    ? `Done: ${finished.length} chains, ${state.msPerChain.toFixed(1)} ms per chain in this browser.`
    : `Sampling ${state.n} chains: ${finished.length} finished…`;
  return html`<div data-widget="tiny-reasoner">
    <p aria-live="polite">Prompt <code>${state.problem}=</code> (right answer ${correct}), temperature
      <span data-readout="temperature" data-value="${state.temperature}">${state.temperature}</span>.</p>
    ${list}
    ${chart}
    <p aria-live="polite">Vote after <span data-readout="finished" data-value="${finished.length}">${finished.length}</span> chains:
      <b data-readout="vote" data-value="${vote ?? ""}">${vote ?? "—"}</b>${verdict};
      <span data-readout="right" data-value="${nRight}">${nRight}</span> chains right.${routeLine}
      <span data-readout="done" data-value="${state.done ? 1 : 0}">${status}</span>
      <span data-readout="ms-per-chain" data-value="${state.msPerChain}" hidden></span></p>
  </div>`;
}
