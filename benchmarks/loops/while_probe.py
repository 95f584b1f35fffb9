"""Whether the conditional WHILE node path of ``graphblast.repeat`` works on this machine, step
by step, every CUDA error printed (backends/cuda/loops.py):

1. cuda.bindings' runtime, the driver's version;
2. a graph with a conditional WHILE node (cudaGraphConditionalHandleCreate, cudaGraphAddNode);
3. a CuPy-captured round - an NVRTC kernel that counts a word down and sets the condition with
   cudaGraphSetConditional (declared by hand: NVRTC has no runtime headers) - added as the
   node's body (cudaGraphAddChildGraphNode), instantiated, launched once: the word must reach 0
   in exactly its starting count of rounds;
4. graphblast.repeat with the round counter on a path of 2,000 vertices under each loop mode:
   the mode the loop ran in, its graph launches, the host reads and the time.

    python benchmarks/loops/while_probe.py
"""

import time
import traceback

import cupy as cp
import numpy as np

KERNEL = r"""
extern "C" __device__ void cudaGraphSetConditional(unsigned long long handle, unsigned int value);
extern "C" __global__ void count_down(long long* word, long long* rounds,
                                      unsigned long long handle) {
    const long long left = *word - 1;
    *word = left;
    *rounds += 1;
    cudaGraphSetConditional(handle, left > 0 ? 1u : 0u);
}
"""


def step(what, fn):
    try:
        out = fn()
        print(f"ok   {what}")
        return out
    except Exception as e:  # noqa: BLE001 - a probe: every failure printed
        print(f"FAIL {what}: {type(e).__name__}: {e}")
        traceback.print_exc()
        return None


def ok(result, what):
    err, *rest = result
    if int(err) != 0:
        raise RuntimeError(f"{what}: {getattr(err, 'name', err)}")
    return rest[0] if len(rest) == 1 else rest


def raw_probe():
    from cuda.bindings import runtime as rt

    print("driver", ok(rt.cudaDriverGetVersion(), "cudaDriverGetVersion"),
          "runtime", ok(rt.cudaRuntimeGetVersion(), "cudaRuntimeGetVersion"))
    graph = ok(rt.cudaGraphCreate(0), "cudaGraphCreate")
    handle = ok(rt.cudaGraphConditionalHandleCreate(graph, 1, 1),
                "cudaGraphConditionalHandleCreate")
    print("handle", int(handle))
    params = rt.cudaGraphNodeParams()
    params.type = rt.cudaGraphNodeType.cudaGraphNodeTypeConditional
    params.conditional.handle = handle
    params.conditional.type = rt.cudaGraphConditionalNodeType.cudaGraphCondTypeWhile
    params.conditional.size = 1
    ok(rt.cudaGraphAddNode(graph, None, None, 0, params), "cudaGraphAddNode")
    body = params.conditional.phGraph_out[0]
    fn = cp.RawModule(code=KERNEL).get_function("count_down")
    word = cp.full(1, 1000, dtype=cp.int64)
    rounds = cp.zeros(1, dtype=cp.int64)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        fn((1,), (1,), (word, rounds, np.uint64(int(handle))))
        captured = stream.end_capture()
    ok(rt.cudaGraphAddChildGraphNode(body, None, 0, captured.graph),
       "cudaGraphAddChildGraphNode")
    exe = ok(rt.cudaGraphInstantiate(graph, 0), "cudaGraphInstantiate")
    for _ in range(2):
        word.fill(1000)
        rounds.fill(0)
        stream.synchronize()
        t0 = time.perf_counter()
        ok(rt.cudaGraphLaunch(exe, stream.ptr), "cudaGraphLaunch")
        stream.synchronize()
        dt = time.perf_counter() - t0
    print(f"word {int(word.get()[0])} (want 0), rounds {int(rounds.get()[0])} (want 1000), "
          f"{dt * 1e6:.0f} us, {dt * 1e3:.3f} us a round")
    assert int(word.get()[0]) == 0 and int(rounds.get()[0]) == 1000


def repeat_probe():
    import graphblast as gb
    from graphblast import Matrix, Vector, semiring
    from graphblast.backends.cuda import blocks, loops
    from graphblast.dtypes import BOOL, INT64

    n = 2000
    A = Matrix.from_coo(np.arange(n - 1), np.arange(1, n), True, BOOL, nrows=n, ncols=n,
                        device="cuda")
    for mode in ("persistent", "while", "replay", "never"):
        for rep in range(2):
            levels = Vector(INT64, n, device="cuda")

            def level(frontier, depth):
                levels(frontier.S) << depth
                return frontier.vxm(A, semiring.any_pair[BOOL]).new(mask=~levels.S,
                                                                   replace=True)

            with gb.config.set(device_loops=mode):
                r0 = blocks.host_reads()
                cp.cuda.get_current_stream().synchronize()
                t0 = time.perf_counter()
                gb.repeat(level, Vector.from_coo([0], True, BOOL, size=n, device="cuda"),
                          counter=True)
                cp.cuda.get_current_stream().synchronize()
                dt = time.perf_counter() - t0
                reads = blocks.host_reads() - r0
            vals = levels.to_coo()[1]
            right = np.array_equal(cp.asnumpy(vals), np.arange(n))
            print(f"repeat {mode:6s} run {rep}: {dt * 1e3:8.2f} ms, {dt * 1e6 / n:6.2f} us a "
                  f"round, host reads {reads}, stats {loops.stats}, levels right: {right}")


if __name__ == "__main__":
    import logging

    logging.basicConfig(level=logging.WARNING)
    step("conditional WHILE node through cuda.bindings", raw_probe)
    logger = logging.getLogger("graphblast")
    logger.setLevel(logging.DEBUG)
    logger.addFilter(lambda record: record.getMessage().startswith("repeat:"))
    step("graphblast.repeat in each mode", repeat_probe)
