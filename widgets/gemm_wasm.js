// The backward pass's matrix product in WebAssembly SIMD: C = A B^T (+ bias), or C += A B^T,
// the contract of tiny_gpt_backward.js's gemmNT, about 4-7x faster than the plain JavaScript
// loops in Chromium on this machine (scripts/bench_rl_trainer.py). The module is
// widgets/gemm_wasm.wat (four rows of A by two of B per block, f32x4 along K: eight vector
// sums), assembled with wabt (`npx wabt`'s wat2wasm, SIMD on) and inlined below as base64, so
// the page fetches nothing more. Where WebAssembly SIMD is missing, hasWasmGemm is false and
// tiny_gpt_backward.js keeps its JavaScript loops.
//
// Operands are copied into the module's memory, zero-padded to M % 4 = N % 2 = K % 4 = 0 (the
// only shapes the kernel knows), and the result copied out: O(MK + NK + MN) against O(MNK).
const BYTES = Uint8Array.from(atob("AGFzbQEAAAABCgFgBn9/f39/fwADAgEABQMBAAEHEQIGbWVtb3J5AgAEZ2VtbQAACvAGAe0GAgt/C3sgBUECdCEJQQAhBgJAA0AgBiADTw0BIAAgBiAJbGohCyALIAlqIQwgDCAJaiENIA0gCWohDkEAIQcCQANAIAcgBE8NASABIAcgCWxqIQ8gDyAJaiEQ/QwAAAAAAAAAAAAAAAAAAAAAIRH9DAAAAAAAAAAAAAAAAAAAAAAhEv0MAAAAAAAAAAAAAAAAAAAAACET/QwAAAAAAAAAAAAAAAAAAAAAIRT9DAAAAAAAAAAAAAAAAAAAAAAhFf0MAAAAAAAAAAAAAAAAAAAAACEW/QwAAAAAAAAAAAAAAAAAAAAAIRf9DAAAAAAAAAAAAAAAAAAAAAAhGEEAIQgCQANAIAggCU8NASAPIAhq/QAEACEaIBAgCGr9AAQAIRsgCyAIav0ABAAhGSARIBkgGv3mAf3kASERIBIgGSAb/eYB/eQBIRIgDCAIav0ABAAhGSATIBkgGv3mAf3kASETIBQgGSAb/eYB/eQBIRQgDSAIav0ABAAhGSAVIBkgGv3mAf3kASEVIBYgGSAb/eYB/eQBIRYgDiAIav0ABAAhGSAXIBkgGv3mAf3kASEXIBggGSAb/eYB/eQBIRggCEEQaiEIDAALCyACIAZBAGogBGwgB0EAampBAnRqIQogCiAR/R8AIBH9HwGSIBH9HwIgEf0fA5KSOAIAIAIgBkEAaiAEbCAHQQFqakECdGohCiAKIBL9HwAgEv0fAZIgEv0fAiAS/R8DkpI4AgAgAiAGQQFqIARsIAdBAGpqQQJ0aiEKIAogE/0fACAT/R8BkiAT/R8CIBP9HwOSkjgCACACIAZBAWogBGwgB0EBampBAnRqIQogCiAU/R8AIBT9HwGSIBT9HwIgFP0fA5KSOAIAIAIgBkECaiAEbCAHQQBqakECdGohCiAKIBX9HwAgFf0fAZIgFf0fAiAV/R8DkpI4AgAgAiAGQQJqIARsIAdBAWpqQQJ0aiEKIAogFv0fACAW/R8BkiAW/R8CIBb9HwOSkjgCACACIAZBA2ogBGwgB0EAampBAnRqIQogCiAX/R8AIBf9HwGSIBf9HwIgF/0fA5KSOAIAIAIgBkEDaiAEbCAHQQFqakECdGohCiAKIBj9HwAgGP0fAZIgGP0fAiAY/R8DkpI4AgAgB0ECaiEHDAALCyAGQQRqIQYMAAsLCw=="), (c) => c.charCodeAt(0));

function instantiate() {
  try {
    return new WebAssembly.Instance(new WebAssembly.Module(BYTES));
  } catch {
    return null; // no SIMD (or no WebAssembly): the caller falls back
  }
}

const instance = instantiate();
export const hasWasmGemm = instance !== null;
let memory = instance ? new Float32Array(instance.exports.memory.buffer) : null;

function reserve(floats) {
  const missing = floats * 4 - instance.exports.memory.buffer.byteLength;
  if (missing > 0) instance.exports.memory.grow(Math.ceil(missing / 65536));
  if (memory.buffer !== instance.exports.memory.buffer) memory = new Float32Array(instance.exports.memory.buffer);
}

/** C (M x N) = A (M x K) . B (N x K)^T (+ bias), or C += it with accumulate (row-major). */
export function gemmNTWasm(A, B, C, M, N, K, bias = null, accumulate = false) {
  const Mp = (M + 3) & ~3, Np = (N + 1) & ~1, Kp = (K + 3) & ~3;
  const a = 0, b = Mp * Kp, c = b + Np * Kp;
  reserve(c + Mp * Np);
  if (Kp === K) {
    memory.set(A.subarray(0, M * K), a);
    memory.fill(0, a + M * K, b);
    memory.set(B.subarray(0, N * K), b);
    memory.fill(0, b + N * K, c);
  } else {
    memory.fill(0, 0, c);
    for (let m = 0; m < M; m++) memory.set(A.subarray(m * K, m * K + K), a + m * Kp);
    for (let n = 0; n < N; n++) memory.set(B.subarray(n * K, n * K + K), b + n * Kp);
  }
  instance.exports.gemm(a * 4, b * 4, c * 4, Mp, Np, Kp);
  for (let m = 0; m < M; m++) {
    const src = c + m * Np, dst = m * N;
    if (accumulate) for (let n = 0; n < N; n++) C[dst + n] += memory[src + n];
    else if (bias) for (let n = 0; n < N; n++) C[dst + n] = bias[n] + memory[src + n];
    else for (let n = 0; n < N; n++) C[dst + n] = memory[src + n];
  }
}
