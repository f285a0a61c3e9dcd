// Train it yourself: RL on chapter 12's cold-start tiny reasoner, in the reader's tab.
//
// The training runs in a Web Worker (rl_trainer_worker.js, over rl_trainer_math.js's engine),
// so the page's main thread only draws; the worker posts statistics, a 24-bin ratio histogram
// and a few chains after every step, never weights. In a chapter, five cells:
//
//   viewof rt_settings = trainerInputs({Inputs, html}, {objective: "grpo"})   // the controls
//   rt_session = trainerSession(new URL("../data/r1_cold_start.json", document.baseURI), rt_setup)
//   rt_state = rt_session.states(rt_settings)         // a new snapshot whenever the worker posts
//   trainerButtons({html}, rt_session)                 // Train / Pause / Step / Reset
//   rlTrainerView({Plot, html, width}, rt_state, rt_setup)
//
// `rt_setup` is r1_runs.trainer_setup: the book's recorded PyTorch run of each objective (drawn
// dashed beside the reader's) and a fixed set of held-out problems with their answers. Changing
// a setting starts a new run from the checkpoint; the problem box only changes the chains shown.
// rlTrainerView is a pure function of the snapshot and the setup.
import {TRAINER_EPS, answerOf, requireProblem} from "./rl_trainer_math.js";
import {labelRange, markGroups} from "./a11y.js";
import {chartWidth} from "./layout.js";
import {ink} from "./ink.js";

/** The objectives a reader can train: objectives.py's five, and REINFORCE with a group-mean baseline. */
export const TRAINER_OBJECTIVES = [
  ["grpo", "GRPO"], ["dr_grpo", "Dr. GRPO"], ["dapo", "DAPO"], ["gspo", "GSPO"],
  ["cispo", "CISPO"], ["reinforce", "REINFORCE (group-mean baseline)"]
];
const LABELS = Object.fromEntries(TRAINER_OBJECTIVES);
export const CHAINS_SHOWN = 4; // chains before and after, for the reader's problem
/** The widget's defaults, chosen by measurement (scripts/bench_rl_trainer.py, CONTRIBUTING's
 * trainer section): from this checkpoint in PyTorch, 8 x 16 chains at lr 1e-4 gains ~9 points of
 * held-out pass@1 in 20 steps; 4 x 8 stays flat for 30 (two inner steps as here) and lr 3e-4
 * collapses it. 20 steps at 8 x 16 fit in 3 minutes only where a step takes under 9 s. */
export const DEFAULTS = Object.freeze({prompts: 8, group: 16, lr: "1e-4"});
const MAX_CHAINS = 512; // prompts x G a step may sample: the page stays a page

const perMille = (x) => +(x * 1e3).toFixed(1); // GSPO's sliders count in units of 1e-3

/** The controls, one Inputs.form whose value is the raw settings (checked by trainerConfig). */
export function trainerInputs({Inputs}, {objective = "grpo"} = {}) {
  const dapo = objective === "dapo";
  return Inputs.form({
    objective: Inputs.select(new Map(TRAINER_OBJECTIVES.map(([k, l]) => [l, k])), {label: "Objective to train", value: objective, width: 330}),
    prompts: labelRange(Inputs.range([1, 32], {step: 1, value: DEFAULTS.prompts, label: "Prompts per step"})),
    group: labelRange(Inputs.range([1, 32], {step: 1, value: DEFAULTS.group, label: "Chains per prompt G"})),
    lr: Inputs.text({label: "Learning rate", value: DEFAULTS.lr}),
    clipEps: labelRange(Inputs.range([0.05, 0.5], {step: 0.01, value: TRAINER_EPS.grpo[0], label: "Clip ε"})),
    clipHigher: Inputs.toggle({label: "Clip-higher (DAPO)", value: true}),
    clipHigh: labelRange(Inputs.range([0.05, 0.5], {step: 0.01, value: TRAINER_EPS.dapo[1], label: "ε_high of clip-higher"})),
    dynamic: Inputs.toggle({label: "Dynamic sampling (DAPO)", value: dapo}),
    gspoLow: labelRange(Inputs.range([0.5, 10], {step: 0.5, value: perMille(TRAINER_EPS.gspo[0]), label: "GSPO clip low (×10⁻³)"})),
    gspoHigh: labelRange(Inputs.range([0.5, 10], {step: 0.5, value: perMille(TRAINER_EPS.gspo[1]), label: "GSPO clip high (×10⁻³)"})),
    cispoCap: labelRange(Inputs.range([0.05, 0.95], {step: 0.01, value: TRAINER_EPS.cispo[1], label: "CISPO cap ε_high"})),
    beta: labelRange(Inputs.range([0, 0.2], {step: 0.01, value: dapo ? 0 : 0.05, label: "KL leash β"})),
    temperature: labelRange(Inputs.range([0.1, 1.5], {step: 0.1, value: 1, label: "Training temperature"})),
    seed: labelRange(Inputs.range([0, 99], {step: 1, value: 0, label: "Run seed"})),
    problem: Inputs.text({label: "Your problem", value: "7+5-3-6+7"})
  });
}

/**
 * Raw settings -> {cfg (rl_reasoner.RLConfig's field names), seed, errors}. Every setting the
 * trainer cannot use gives a message instead of a run: a learning rate that is not a positive
 * number, one chain per prompt (no baseline), an empty or inverted clip range, a batch too big.
 */
export function trainerConfig(s) {
  const errors = [];
  const lr = typeof s.lr === "string" && s.lr.trim() !== "" ? Number(s.lr) : NaN;
  if (!Number.isFinite(lr) || lr <= 0) {
    errors.push({key: "lr", message: `The learning rate must be a positive number (like 1e-4), got "${s.lr}".`});
  } else if (lr > 0.1) {
    errors.push({key: "lr", message: `A learning rate of ${lr} throws the model's weights away in one step: use at most 0.1.`});
  }
  if (!(Number.isInteger(s.group) && s.group >= 2)) {
    errors.push({key: "group", message: `G must be at least 2: with G = ${s.group} a chain is its group's own baseline and every advantage is 0.`});
  }
  if (!(Number.isInteger(s.prompts) && s.prompts >= 1)) {
    errors.push({key: "prompts", message: `Prompts per step must be at least 1, got ${s.prompts}.`});
  } else if (s.prompts * s.group > MAX_CHAINS) {
    errors.push({key: "prompts", message: `${s.prompts} prompts × ${s.group} chains is ${s.prompts * s.group} chains a step; this page samples at most ${MAX_CHAINS}.`});
  }
  for (const [key, name, v] of [["clipEps", "Clip ε", s.clipEps], ["clipHigh", "ε_high", s.clipHigh], ["cispoCap", "CISPO's cap", s.cispoCap]]) {
    if (!(Number.isFinite(v) && v > 0 && v < 1)) errors.push({key, message: `${name} must lie strictly between 0 and 1, got ${v}.`});
  }
  if (!(Number.isFinite(s.gspoLow) && Number.isFinite(s.gspoHigh) && s.gspoLow > 0 && s.gspoHigh > 0)) {
    errors.push({key: "gspo", message: "GSPO's clip range must be two positive numbers."});
  }
  if (!(Number.isFinite(s.beta) && s.beta >= 0)) errors.push({key: "beta", message: `β must be 0 or more, got ${s.beta}.`});
  if (!(Number.isFinite(s.temperature) && s.temperature > 0)) {
    errors.push({key: "temperature", message: `The temperature must be above 0 (training samples its chains), got ${s.temperature}.`});
  }
  if (!Number.isInteger(s.seed) || s.seed < 0) errors.push({key: "seed", message: `The seed must be a whole number, got ${s.seed}.`});
  if (!LABELS[s.objective]) errors.push({key: "objective", message: `Unknown objective ${s.objective}.`});
  // The chosen objective's trust region, as every loss names it: [eps_low, eps_high].
  const eps = {
    grpo: [s.clipEps, s.clipEps], dr_grpo: [s.clipEps, s.clipEps],
    // Clip-higher off: DAPO's ceiling falls back to the symmetric 1 + ε.
    dapo: [s.clipEps, s.clipHigher ? s.clipHigh : s.clipEps],
    gspo: [s.gspoLow * 1e-3, s.gspoHigh * 1e-3], cispo: [null, s.cispoCap], reinforce: [null, null]
  }[s.objective] ?? [null, null];
  const cfg = {
    objective: s.objective, prompts_per_step: s.prompts, group_size: s.group, lr,
    beta: s.beta, temperature: s.temperature, inner_steps: 2, eps_low: eps[0], eps_high: eps[1],
    format_weight: 0.1, dynamic_sampling: Boolean(s.dynamic), max_sampling_rounds: 4,
    grad_clip: 1.0, dr_grpo_max_len: 64
  };
  return {cfg, seed: s.seed, errors};
}

/** The reader's problem, checked: {problem, answer} or {error}. */
export function readerProblem(text) {
  const problem = String(text ?? "").trim();
  const outside = [...new Set(problem)].filter((ch) => !"0123456789+-".includes(ch));
  if (outside.length) {
    return {error: `Your problem uses ${outside.map((ch) => JSON.stringify(ch)).join(", ")}, outside the task's alphabet (the digits, + and -).`};
  }
  try {
    requireProblem("Your problem", problem);
    return {problem, answer: answerOf(problem)};
  } catch (error) {
    return {error: `${error.message}.`};
  }
}

/**
 * The page's end of the worker: holds the latest snapshot, sends the reader's commands, and
 * reports every failure (a checkpoint that does not load, a step that throws, a worker that
 * dies) in the snapshot, where the view shows it.
 */
export function trainerSession(jsonUrl, setup) {
  const {eval_samples: evalSamples, eval_every: evalEvery} = setup;
  const url = String(new URL(jsonUrl, document.baseURI));
  // `charts` keeps this session's last drawn chart of each kind and the data it drew (see drawn()).
  const snap = {status: "loading", message: null, errors: [], problemError: null, run: null, objective: null, charts: new Map()};
  const wakers = new Set();
  let worker = null;
  let wanted = null; // {key, message} of the run the settings ask for
  let sent = null; // the key of the run the worker has
  let runs = 0; // runs configured on this worker (the worker numbers its runs the same way)
  let accepted = 0; // the run whose states the page shows; 0: none (the settings are refused)
  let problem = null;

  const notify = () => {
    for (const wake of wakers) wake();
  };
  const send = (message) => worker?.postMessage(message);

  function configure() {
    if (snap.status !== "ready" || !wanted || wanted.key === sent) return;
    sent = wanted.key;
    snap.run = null;
    accepted = ++runs;
    send({...wanted.message, ...problem});
  }

  function spawn() {
    snap.status = "loading";
    snap.message = null;
    snap.run = null;
    sent = null;
    runs = accepted = 0;
    try {
      worker = new Worker(new URL("./rl_trainer_worker.js", import.meta.url), {type: "module"});
    } catch (error) {
      snap.status = "dead";
      snap.message = `This browser could not start the trainer's Web Worker (${error.message}).`;
      notify();
      return;
    }
    worker.onmessage = ({data}) => {
      if (data.type === "loaded") {
        snap.status = "ready";
        configure();
      } else if (data.type === "state") {
        if (data.run !== accepted) return; // an older run's last word, or refused settings
        snap.run = data;
        if (snap.message?.startsWith("A step failed")) snap.message = null;
      } else if (data.type === "error" && data.kind === "load") {
        snap.status = "load-error";
        snap.message = `The checkpoint did not load: ${data.message}`;
      } else if (data.type === "error") {
        snap.message = `A step failed and training stopped: ${data.message}`;
      }
      notify();
    };
    worker.onerror = (event) => {
      event.preventDefault?.();
      worker.terminate();
      worker = null;
      snap.status = "dead";
      snap.message = `The trainer's worker stopped (${event.message || "no reason given"}). Press Reset to start it again from the checkpoint.`;
      notify();
    };
    send({type: "load", url});
  }

  const session = {
    /** Apply the reader's settings, then yield a snapshot every time something changes. */
    async* states(settings) {
      const {cfg, seed, errors} = trainerConfig(settings);
      snap.errors = errors;
      snap.objective = LABELS[cfg.objective] ?? cfg.objective;
      const p = readerProblem(settings.problem);
      snap.problemError = p.error ?? null;
      problem = p.error ? {problem: null, answer: null} : p;
      if (errors.length) {
        wanted = sent = null; // fixing the settings starts a new run
        accepted = 0;
        snap.run = null;
        send({type: "pause"});
      } else {
        const key = JSON.stringify([cfg, seed]);
        if (!wanted || wanted.key !== key) {
          wanted = {key, message: {type: "configure", cfg, seed, evalSet: setup.eval, evalSamples, evalEvery, nChains: CHAINS_SHOWN}};
          configure();
        }
      }
      if (snap.status === "ready" && sent === wanted?.key && snap.run && snap.run.problem !== problem.problem) {
        send({type: "problem", ...problem});
      }
      let changed = true;
      const wake = () => (changed = true, resolve?.());
      let resolve = null;
      wakers.add(wake);
      try {
        while (true) {
          if (!changed) await new Promise((r) => (resolve = r));
          // At most one redraw a frame: the worker's messages that arrive before the next frame
          // fold into one snapshot, and the page's other inputs keep their frames.
          if (typeof requestAnimationFrame === "function") await new Promise((r) => requestAnimationFrame(r));
          changed = false;
          resolve = null;
          yield {...snap, errors: [...snap.errors], evalSamples, evalEvery, evalProblems: setup.eval.length};
        }
      } finally {
        wakers.delete(wake);
      }
    },
    /** Whether a command can run now; if not, the view already says why. */
    ready: () => snap.status === "ready" && snap.errors.length === 0 && snap.run !== null,
    train() { if (session.ready()) send({type: "train"}); },
    pause() { send({type: "pause"}); },
    step() { if (session.ready() && !snap.run.running) send({type: "step"}); },
    reset() {
      if (snap.status === "dead" || snap.status === "load-error") {
        worker?.terminate();
        spawn();
        notify();
      } else if (session.ready()) {
        send({type: "reset"});
      }
    },
    /** The worker, for the tests' eyes only (they make it fail). */
    get worker() { return worker; }
  };
  spawn();
  return session;
}

/** The four commands, as buttons that call the session (drawn once: a redraw never steals focus). */
export function trainerButtons({html}, session) {
  const button = (text, action, hint) => {
    const b = html`<button type="button" style="margin-right: 0.4em" title="${hint}">${text}</button>`;
    b.onclick = action;
    return b;
  };
  return html`<div data-widget="rl-trainer-buttons" role="group" aria-label="Run the trainer" style="margin: 0.4em 0">
    ${button("Train", () => session.train(), "Step again and again until paused")}
    ${button("Pause", () => session.pause(), "Stop after the current step")}
    ${button("Step", () => session.step(), "One RL step")}
    ${button("Reset", () => session.reset(), "Back to the cold-start checkpoint")}
  </div>`;
}

// --------------------------------------------------------------------------- the view

const fmt = (x, digits = 3) => (x === null || x === undefined ? "—" : x.toFixed(digits));
const SERIES = {reward: ink.blue, accuracy: ink.good, length_right: ink.good, length_wrong: ink.bad, pass1: ink.blue, clip: ink.warn, kl: ink.blue};

/** A 95% normal interval half-width for a share p of n draws (definitional: 1.96 sqrt(p(1-p)/n)). */
const halfWidth = (p, n) => 1.96 * Math.sqrt(p * (1 - p) / n);

// A chart is redrawn only when what it shows changed: `key` is its data and size, and the
// session's last chart of that kind is reused while the key is the same (moved, not cloned:
// one session draws one view at a time).
function drawn(charts, kind, key, draw) {
  const last = charts?.get(kind);
  if (last && last.key === key) return last.node;
  const node = draw();
  charts?.set(kind, {key, node});
  return node;
}

/** A y domain from zero to the drawn values, at least ``floor`` tall. Set here rather than with
 * Plot's `zero: true`: Quarto's Plot 0.6.11 turns one positive value's domain upside down
 * ([v, 0]) and leaves an all-zero series a domain of no height. */
function zeroDomain(values, floor) {
  const lo = Math.min(0, ...values), hi = Math.max(0, ...values);
  return [lo, Math.max(hi, lo + floor)];
}

function curve(Plot, width, {label, description, y, mine, book, keys, names, domain, yDomain, floor = 1}) {
  const rows = (data, who) => keys.flatMap((k) => data.filter((d) => d[k] !== null && d[k] !== undefined && d.step <= domain)
    .map((d) => ({step: d.step, value: d[k], series: names[k], key: k, who})));
  const you = rows(mine, "your run");
  const theirs = rows(book, "the book's run");
  const yd = yDomain ?? zeroDomain([...you, ...theirs].map((d) => d.value), floor);
  return markGroups(Plot.plot({
    ariaLabel: label,
    ariaDescription: description,
    width: chartWidth(width, 560),
    height: 150,
    marginLeft: 48,
    x: {label: "RL step", domain: [0, domain]},
    y: {label: y, grid: true, domain: yd, nice: !yDomain},
    marks: [
      Plot.line(theirs, {x: "step", y: "value", z: "key", stroke: (d) => SERIES[d.key], strokeDasharray: "5,4", strokeOpacity: 0.8}),
      Plot.line(you, {x: "step", y: "value", z: "key", stroke: (d) => SERIES[d.key], strokeWidth: 2}),
      Plot.dot(you, {x: "step", y: "value", fill: (d) => SERIES[d.key], r: 2.5, title: (d) => `${d.series}, step ${d.step}: ${d.value.toFixed(3)}`}),
      ...(keys.length > 1 ? [Plot.text(you.filter((d, i, a) => a.findLast((e) => e.key === d.key) === d), {x: "step", y: "value", text: "series", fill: (d) => SERIES[d.key], dx: 6, textAnchor: "start", fontSize: 11})] : [])
    ]
  }));
}

function histogramChart(Plot, width, hist, walls, objective) {
  const unit = objective === "gspo" ? "chains' sequence ratios s_i" : "tokens' ratios";
  const rules = [walls[0] === null ? null : 1 - walls[0], walls[1] === null ? null : 1 + walls[1]].filter((x) => x !== null);
  const outside = hist.below + hist.above;
  return markGroups(Plot.plot({
    ariaLabel: "Ratios of the last step",
    ariaDescription: `Histogram of the ${unit} on the last step's second, off-policy pass${rules.length ? `, with the trust region's walls at ${rules.map((r) => r.toPrecision(4)).join(" and ")}` : " (this objective has no trust region)"}; ${outside} fell outside the drawn range.`,
    width: chartWidth(width, 560),
    height: 140,
    marginLeft: 48,
    x: {label: `ratio (${unit})`, domain: [hist.lo, hist.hi]},
    y: {label: "count", grid: true},
    marks: [
      Plot.rectY(hist.bins, {x1: "x0", x2: "x1", y: "count", fill: ink.blue, fillOpacity: 0.7, insetLeft: 0.5, insetRight: 0.5}),
      Plot.ruleX(rules, {stroke: ink.bad, strokeDasharray: "3,3"}),
      Plot.ruleY([0])
    ]
  }));
}

function chainList(html, title, chains, answer) {
  return html`<div style="flex: 1 1 16em; min-width: 0">
    <div style="font-weight: 600">${title}</div>
    <ol style="font-family: monospace; font-size: 0.8em; padding-left: 2em; margin: 0.2em 0; overflow-wrap: anywhere">
      ${chains.map((c) => html`<li data-chain="${c.text}" data-right="${c.right ? 1 : 0}" style="color: ${c.right ? ink.good : ink.bad}">${c.text} <b>${c.right ? "✓" : "✗"}</b></li>`)}
    </ol>
    <div style="font-size: 0.85em; color: ${ink.muted}">${chains.filter((c) => c.right).length} of ${chains.length} right (answer ${answer}).</div>
  </div>`;
}

/** The widget: status, messages, readouts, the live curves beside the book's, the chains. */
export function rlTrainerView({Plot, html, width}, state, setup) {
  const run = state.run;
  const history = run?.history ?? [];
  const last = history.at(-1) ?? null;
  const evals = run?.evals ?? [];
  const lastEval = evals.at(-1) ?? null;
  const objectiveKey = TRAINER_OBJECTIVES.find(([, l]) => l === state.objective)?.[0];
  const record = setup.records[objectiveKey] ?? null;
  const book = record ? record.steps.step.map((step, i) => Object.fromEntries(Object.keys(record.steps).map((k) => [k, record.steps[k][i]]))) : [];
  const domain = Math.max(20, run?.step ?? 0, ...evals.map((e) => e.step));
  const draws = state.evalProblems * state.evalSamples;

  const messages = [
    ...(state.message ? [{key: state.status, message: state.message}] : []),
    ...state.errors,
    ...(state.problemError ? [{key: "problem", message: state.problemError}] : [])
  ];
  const status = state.status === "loading" ? "Loading the cold-start checkpoint…"
    : state.status !== "ready" ? "Stopped."
    : !run ? (state.errors.length ? "Waiting for settings it can use." : "Starting a run from the checkpoint…")
    : run.running ? `Training: step ${run.step}…` : run.step === 0 ? "At the checkpoint: press Step or Train." : `Paused after step ${run.step}.`;
  const readout = (key, value, text) => html`<b data-readout="${key}" data-value="${value ?? ""}">${text}</b>`;

  const pass1 = evals.map((e) => ({step: e.step, pass1: e.pass1}));
  const bookCurve = record ? record.curve : [];
  const legend = html`<p style="font-size: 0.85em; margin: 0.2em 0">
    <span data-swatch style="color: ${ink.blue}">━</span> your run, in this tab ·
    <span data-swatch style="color: ${ink.blue}">╌</span> ${record
      ? `the book's PyTorch run of ${record.label} (chapter 12: ${record.prompts} prompts × ${record.group} chains, lr ${record.lr}, seed 0)`
      : "no recorded PyTorch run: the book never trained REINFORCE on this model"}</p>`;

  // Each curve's key: the size, the objective and run, the steps drawn, and the rows it reads.
  const chart = (label, draw) => drawn(state.charts, label, JSON.stringify([width, objectiveKey, run?.run, domain, label === "Held-out pass@1" ? evals : history]), draw);
  const charts = html`<div>
    ${chart("Held-out pass@1", () => curve(Plot, width, {label: "Held-out pass@1", description: `Pass@1 on ${state.evalProblems} held-out problems (${state.evalSamples} chains each) every ${state.evalEvery} steps, your run solid, the book's dashed.`, y: "held-out pass@1", mine: pass1, book: bookCurve, keys: ["pass1"], names: {pass1: "pass@1"}, domain, yDomain: [0, 1]}))}
    ${chart("Reward and accuracy of the training groups", () => curve(Plot, width, {label: "Reward and accuracy of the training groups", description: "Mean reward and share of right chains in each step's training groups, your run solid, the book's dashed.", y: "share / reward", mine: history, book, keys: ["reward", "accuracy"], names: {reward: "reward", accuracy: "accuracy"}, domain, yDomain: [0, 1.1]}))}
    ${chart("Share of ratios clipped", () => curve(Plot, width, {label: "Share of ratios clipped", description: "Share of ratios where the trust region acted on the step's second pass, your run solid, the book's dashed.", y: "clipped share", mine: history, book, keys: ["clip"], names: {clip: "clipped"}, domain, floor: 0.05}))}
    ${chart("Mean length of right and wrong chains", () => curve(Plot, width, {label: "Mean length of right and wrong chains", description: "Mean length in tokens of the right chains and of the wrong ones, each curve labelled at its end (right, wrong), your run solid, the book's dashed.", y: "tokens", mine: history, book, keys: ["length_right", "length_wrong"], names: {length_right: "right", length_wrong: "wrong"}, domain, floor: 10}))}
    ${chart("KL to the starting model", () => curve(Plot, width, {label: "KL to the starting model", description: "The k3 estimate of the KL divergence from the checkpoint on the step's chains, your run solid, the book's dashed (where the book's run had a KL term).", y: "KL", mine: history, book: record?.beta > 0 ? book : [], keys: ["kl"], names: {kl: "KL"}, domain, floor: 0.01}))}
    ${run?.hist ? drawn(state.charts, "histogram", JSON.stringify([width, run.hist, run.walls, objectiveKey]), () => histogramChart(Plot, width, run.hist, run.walls, objectiveKey)) : html`<p style="color: ${ink.muted}; font-size: 0.85em">The ratio histogram appears after the first step.</p>`}
  </div>`;

  const chains = run?.problem && run.before?.length ? html`<div style="display: flex; flex-wrap: wrap; gap: 0.8em; margin-top: 0.4em">
    ${chainList(html, "The checkpoint (before)", run.before, answerOf(run.problem))}
    ${chainList(html, run.step === 0 ? "Now (no step yet)" : `Now, after step ${run.step}`, run.after ?? [], answerOf(run.problem))}
  </div>` : "";

  return html`<div data-widget="rl-trainer" data-status="${state.status}">
    <p aria-live="polite" style="margin: 0.3em 0"><b>${state.objective}</b> ·
      <span data-readout="status" data-value="${run?.running ? "training" : state.status}">${status}</span>
      ${run?.msPerStep ? html` (${(run.msPerStep / 1000).toFixed(1)} s a step in this browser)` : ""}
      <span hidden data-readout="step" data-value="${run?.step ?? ""}"></span>
      <span hidden data-readout="ms-per-step" data-value="${run?.msPerStep ?? ""}"></span>
      <span hidden data-readout="ms-per-check-up" data-value="${lastEval?.ms ?? ""}"></span></p>
    <div aria-live="polite" data-readout="messages" data-value="${messages.map((m) => m.key).join(",")}">
      ${messages.map((m) => html`<p data-message="${m.key}" style="color: ${ink.bad}; margin: 0.2em 0">${m.message}</p>`)}
    </div>
    <p aria-live="polite" style="margin: 0.3em 0">
      Held-out pass@1 ${readout("pass1", lastEval?.pass1, fmt(lastEval?.pass1))}${lastEval ? ` ± ${halfWidth(lastEval.pass1, draws).toFixed(3)}` : ""}
      ${lastEval ? `(step ${lastEval.step}, ${draws} chains on problems never trained on)` : ""};
      training groups: reward ${readout("reward", last?.reward, fmt(last?.reward))},
      accuracy ${readout("accuracy", last?.accuracy, fmt(last?.accuracy))};
      clipped ${readout("clip", last?.clip, fmt(last?.clip))};
      length right ${readout("length-right", last?.length_right, fmt(last?.length_right, 1))},
      wrong ${readout("length-wrong", last?.length_wrong, fmt(last?.length_wrong, 1))} tokens;
      KL ${readout("kl", last?.kl, fmt(last?.kl, 4))}.</p>
    ${legend}
    ${charts}
    ${chains}
  </div>`;
}
