// The in-browser trainer's Web Worker: it owns the model being trained, so the page's main
// thread only draws. The page (rl_trainer.js, trainerSession) sends
//   {type: "load", url}                       fetch and check the cold-start checkpoint
//   {type: "configure", cfg, seed, evalSet, evalSamples, evalEvery, problem, nChains}
//                                             a new run from the checkpoint (paused, step 0)
//   {type: "train"} / {type: "pause"}         step until paused
//   {type: "step"}                            one step
//   {type: "reset"}                           back to the checkpoint, same settings (step 0)
//   {type: "problem", problem}                the reader's problem for the before/after chains
// and the worker answers with small messages only (statistics, the engine's ratio histogram, a
// few chains, never weights or per-token arrays):
//   {type: "loaded"}, {type: "state", run, step, running, history, evals, hist, ...}, or
//   {type: "error", kind, message} (kind "load" for the checkpoint, "step" for a failed step).
// A message it does not know is a bug in the page: it throws, and the page's onerror reports it.
//
// The training itself is rl_trainer_math.js's createTrainer (the engine, tested against
// rl_reasoner in PyTorch); the reader's chains and the held-out check-ups sample with the
// engine's own sampler (sampleGroups, trainer.evaluate), seeded, so a check-up's draws are the
// same at every step and only the model changes.
import {loadTinyGPT, mulberry32} from "./tiny_gpt_forward.js";
import {nextTurn} from "./worker_turn.js"; // a pause or a new configuration runs between steps
import {answerOf, createTrainer, grade, sampleGroups} from "./rl_trainer_math.js";

const EVAL_SEED = 2024; // the held-out draws are the same at every check-up: a change is the model's
const CHAINS_SEED = 7; // the reader's chains, before and after, share their draws

let checkpoint = null; // the loaded cold start, never trained
let run = null; // {id, cfg, seed, trainer, step, history, evals, hist, before, after, ...}
let running = false;
let runId = 0;


const finite = (x) => (typeof x === "number" && Number.isFinite(x) ? x : null);

/** A few chains of `model` for the reader's problem, seeded so "before" never changes. */
function chainsFor(model, problem, n) {
  if (!problem) return [];
  const answer = answerOf(problem);
  return sampleGroups(model, [problem], n, 1, mulberry32(CHAINS_SEED)).map(({text}) => ({
    text, right: grade(problem, text) === 1, answer
  }));
}

/** The trust region's walls (eps_low, eps_high) as rl_reasoner.LOSSES[...].clip; none for REINFORCE. */
function clipWalls(cfg) {
  return [cfg.eps_low, cfg.eps_high]; // the checked config's: null on a side with no wall
}

function post() {
  if (!run) return;
  postMessage({
    type: "state", run: run.id, step: run.step, running, msPerStep: run.msPerStep,
    history: run.history, evals: run.evals, hist: run.hist, walls: clipWalls(run.cfg),
    before: run.before, after: run.after, problem: run.problem
  });
}

/** Held-out pass@1 of the current policy on the fixed set (the same seeded draws every time).
 * At step 0 the policy is the checkpoint whatever the settings, so its check-up is kept. */
const startCheckUps = new Map();
function evaluateNow() {
  const key = JSON.stringify([run.evalSet, run.evalSamples]);
  if (run.step === 0 && startCheckUps.has(key)) {
    run.evals.push(startCheckUps.get(key));
    return;
  }
  const t = performance.now();
  const {pass_at_1: pass1} = run.trainer.evaluate(run.evalSet, run.evalSamples, {seed: EVAL_SEED, temperature: 1});
  const checkUp = {step: run.step, pass1, ms: performance.now() - t};
  if (run.step === 0) startCheckUps.set(key, checkUp);
  run.evals.push(checkUp);
}

function start({cfg, seed, evalSet, evalSamples, evalEvery, problem, nChains}) {
  running = false;
  run = {id: ++runId, cfg, seed, trainer: null, evalSet, evalSamples, evalEvery, nChains, problem};
  restart();
}

/** Step 0 of the run: a fresh trainer from the checkpoint (weights, AdamW, seeded draws). */
function restart() {
  running = false;
  run.trainer = createTrainer(checkpoint, run.cfg, run.seed);
  Object.assign(run, {step: 0, history: [], evals: [], hist: null, msPerStep: null});
  evaluateNow();
  run.before = chainsFor(checkpoint, run.problem, run.nChains);
  run.after = run.before;
  post();
}

function stepOnce() {
  const t = performance.now();
  const stats = run.trainer.step();
  run.msPerStep = performance.now() - t;
  run.step += 1;
  run.history.push({
    step: run.step, reward: finite(stats.reward_mean), accuracy: finite(stats.accuracy),
    clip: finite(stats.clip_clipped), outside: finite(stats.clip_outside),
    kl: finite(stats.kl_start), loss: finite(stats.loss), length_right: finite(stats.len_right),
    length_wrong: finite(stats.len_wrong), groups: stats.groups, discarded: stats.discarded_groups
  });
  const h = stats.ratio_hist;
  run.hist = h && {
    lo: h.edges[0], hi: h.edges.at(-1), below: h.below, above: h.above,
    bins: h.counts.map((count, i) => ({x0: h.edges[i], x1: h.edges[i + 1], count}))
  };
  if (run.step % run.evalEvery === 0) evaluateNow();
  run.after = chainsFor(run.trainer.model, run.problem, run.nChains);
}

function guarded(action) {
  try {
    return action();
  } catch (error) {
    running = false;
    postMessage({type: "error", kind: "step", message: String(error?.message ?? error)});
    post();
  }
}

async function trainLoop() {
  if (running || !run) return;
  running = true;
  const id = run.id;
  post();
  while (running && run.id === id) {
    guarded(stepOnce);
    if (!running) break; // a step that threw stopped the run (guarded posted why)
    post();
    await nextTurn(); // a pause or a new configuration gets its turn here
  }
}

self.onmessage = ({data}) => {
  switch (data?.type) {
    case "load":
      loadTinyGPT(data.url).then((model) => {
        checkpoint = model;
        postMessage({type: "loaded"});
      }, (error) => postMessage({type: "error", kind: "load", message: String(error?.message ?? error)}));
      return;
    case "configure":
      guarded(() => start(data));
      return;
    case "train":
      trainLoop();
      return;
    case "pause":
      running = false;
      post();
      return;
    case "step":
      if (!running && run) guarded(() => { stepOnce(); post(); });
      return;
    case "reset":
      if (run) guarded(restart);
      return;
    case "problem":
      if (run) {
        run.problem = data.problem;
        guarded(() => {
          run.before = chainsFor(checkpoint, run.problem, run.nChains);
          run.after = run.step === 0 ? run.before : chainsFor(run.trainer.model, run.problem, run.nChains);
          post();
        });
      }
      return;
    default:
      throw new Error(`the trainer's worker got a message it does not know: ${JSON.stringify(data?.type)}`);
  }
};
