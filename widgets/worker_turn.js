// One turn of a Web Worker's event loop, for a worker that runs a long job in steps: awaiting
// nextTurn() between steps lets queued messages (a pause, a newer request, a cancel) run first.
// A MessageChannel turn, not setTimeout(0), which browsers clamp to 4 ms once timeouts nest.
// Used by tiny_reasoner_worker.js (the sampler) and rl_trainer_worker.js (the trainer).
const channel = new MessageChannel();
const turns = [];
channel.port1.onmessage = () => turns.shift()?.();

/** A promise that resolves on the worker's next event-loop turn, after queued messages. */
export const nextTurn = () => new Promise((resolve) => {
  turns.push(resolve);
  channel.port2.postMessage(0);
});
