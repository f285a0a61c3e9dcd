// The live sampler's Web Worker: chapter 2's tiny reasoner writes its chains here, off the
// page's main thread, so that moving a slider never waits for the forward passes. The page
// (tiny_reasoner.js, sampleInWorker) sends {type: "sample", id, url, problem, temperature, n,
// seed, topP}; the worker answers with {type: "state", id, done, chains, msPerChain} about once
// a frame and when the last chain ends, or {type: "error", id, message}. A newer request (or
// {type: "cancel", id}) stops an older one at its next step.
//
// The chains are exactly those the page would sample itself: the same startChains and
// mulberry32(seed) from tiny_gpt_forward.js (tested against PyTorch), one draw per chain per
// step in row order, however the work is cut into messages.
import {extractAnswer, loadTinyGPT, mulberry32, startChains} from "./tiny_gpt_forward.js";
import {nextTurn} from "./worker_turn.js"; // a newer request or a cancel runs between steps

const models = new Map();
let current = 0; // the request being served; any other id stops at its next step

function model(url) {
  if (!models.has(url)) {
    const loading = loadTinyGPT(url);
    loading.catch(() => models.delete(url)); // a failed fetch is retried next time
    models.set(url, loading);
  }
  return models.get(url);
}


async function sample({id, url, problem, temperature, n, seed, topP}) {
  current = id;
  const m = await model(url);
  if (id !== current) return;
  let computeMs = 0;
  let t = performance.now();
  const decoder = startChains(m, `${problem}=`, n, {temperature, topP, rand: mulberry32(seed)});
  computeMs += performance.now() - t;
  const state = (done) => ({
    type: "state", id, done, msPerChain: computeMs / n,
    chains: decoder.chains.map((c) => ({text: c.text, done: c.done, answer: c.done ? extractAnswer(c.text) : null}))
  });
  let posted = -Infinity;
  while (!decoder.done) {
    t = performance.now();
    decoder.step();
    computeMs += performance.now() - t;
    if (decoder.done) break;
    if (performance.now() - posted > 16) {
      postMessage(state(false));
      posted = performance.now();
    }
    await nextTurn();
    if (id !== current) return;
  }
  postMessage(state(true));
}

self.onmessage = ({data}) => {
  if (data?.type === "cancel") {
    if (data.id === current) current = 0;
  } else if (data?.type === "sample") {
    sample(data).catch((error) => postMessage({type: "error", id: data.id, message: String(error?.message ?? error)}));
  }
};
