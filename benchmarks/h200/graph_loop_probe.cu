// What a device-side traversal loop would cost on the H200 (design.md, "The CUDA mechanism
// for it"): BFS from a corner of the n x n 4-neighbour grid (the record's grid-2048: 4,095
// levels), the same two kernels per level run
//   host:  launched level by level, the next frontier's count read back after each (what
//          graphblast does today, without its Python);
//   replay: each level's pair captured once as a graph (one per queue parity), replayed
//          level by level with the count read back after each;
//   while: captured once into the body of a conditional WHILE node of a CUDA graph (CUDA
//          12.4 and later), the loop's test set on the device (cudaGraphSetConditional), the
//          whole BFS one graph launch.
// Each level's frontier is a queue; two levels per loop iteration swap the two queues, so the
// captured pointers never change.  Prints microseconds per level for each, and checks the
// levels of the three against each other and the corner's distance, 2 (n - 1).
//
//   nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/graph_loop_probe benchmarks/h200/graph_loop_probe.cu
//   /tmp/graph_loop_probe 2048
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_check.h"

struct State {
    const int* ptr;
    const int* col;
    int* level;
    int* queue[2];
    unsigned* count[2];  // count[0]: the frontier's size, count[1]: the next one's
    int* depth;
};

// The frontier's vertices claim their unvisited neighbours (a CAS on the level) and append
// them to the next queue.
__global__ void expand(State s, int from) {
    const unsigned n_in = *s.count[from];
    const int d = *s.depth;
    const int* q_in = s.queue[from];
    int* q_out = s.queue[1 - from];
    for (unsigned t = blockIdx.x * blockDim.x + threadIdx.x; t < n_in;
         t += blockDim.x * gridDim.x) {
        const int v = q_in[t];
        for (int e = s.ptr[v]; e < s.ptr[v + 1]; ++e) {
            const int j = s.col[e];
            if (s.level[j] == -1 && atomicCAS(&s.level[j], -1, d) == -1)
                q_out[atomicAdd(s.count[1 - from], 1u)] = j;
        }
    }
}

// One thread: the used queue's count back to zero, the depth up, and (in the graph) the
// loop's test: go on while the new frontier has a vertex.
__global__ void step(State s, int from, cudaGraphConditionalHandle handle, int in_graph) {
    *s.count[from] = 0;
    *s.depth += 1;
    if (in_graph) cudaGraphSetConditional(handle, *s.count[1 - from] > 0 ? 1u : 0u);
}

static void reset(State s, int source, size_t nv) {
    CHECK(cudaMemset(s.level, 0xff, nv * sizeof(int)));
    const int zero = 0, one = 1;
    const unsigned count_one = 1, count_zero = 0;
    CHECK(cudaMemcpy(s.level + source, &zero, sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(s.queue[0], &source, sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(s.count[0], &count_one, sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(s.count[1], &count_zero, sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(s.depth, &one, sizeof(int), cudaMemcpyHostToDevice));
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 2048;
    const size_t nv = (size_t)n * n;
    std::vector<int> ptr(nv + 1), col;
    col.reserve(4 * nv);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const size_t v = (size_t)i * n + j;
            ptr[v] = (int)col.size();
            if (i > 0) col.push_back((int)(v - n));
            if (j > 0) col.push_back((int)(v - 1));
            if (j + 1 < n) col.push_back((int)(v + 1));
            if (i + 1 < n) col.push_back((int)(v + n));
        }
    ptr[nv] = (int)col.size();

    State s;
    int *d_ptr, *d_col;
    CHECK(cudaMalloc(&d_ptr, ptr.size() * sizeof(int)));
    CHECK(cudaMalloc(&d_col, col.size() * sizeof(int)));
    CHECK(cudaMemcpy(d_ptr, ptr.data(), ptr.size() * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_col, col.data(), col.size() * sizeof(int), cudaMemcpyHostToDevice));
    s.ptr = d_ptr;
    s.col = d_col;
    CHECK(cudaMalloc(&s.level, nv * sizeof(int)));
    CHECK(cudaMalloc(&s.queue[0], nv * sizeof(int)));
    CHECK(cudaMalloc(&s.queue[1], nv * sizeof(int)));
    CHECK(cudaMalloc(&s.count[0], sizeof(unsigned)));
    CHECK(cudaMalloc(&s.count[1], sizeof(unsigned)));
    CHECK(cudaMalloc(&s.depth, sizeof(int)));
    State swapped = s;  // the same state with the two queues' roles exchanged
    swapped.count[0] = s.count[1];
    swapped.count[1] = s.count[0];
    swapped.queue[0] = s.queue[1];
    swapped.queue[1] = s.queue[0];
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const int blocks = 264, threads = 256;  // two blocks a multiprocessor: frontiers are small
    const int source = 0;

    // The microseconds of a BFS run by `bfs` from a fresh state (the last of three), and the
    // levels it left.
    auto timed = [&](auto bfs, std::vector<int>& levels_out) {
        double us = 0;
        for (int rep = 0; rep < 3; ++rep) {
            reset(s, source, nv);
            CHECK(cudaDeviceSynchronize());
            auto t0 = std::chrono::steady_clock::now();
            bfs();
            CHECK(cudaStreamSynchronize(stream));
            us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now()
                                                           - t0).count();
        }
        CHECK(cudaMemcpy(levels_out.data(), s.level, nv * sizeof(int), cudaMemcpyDeviceToHost));
        return us;
    };
    // The loop on the host: `level(parity)` queues one level, then the next frontier's count
    // is read back; the number of levels run.
    auto host_loop = [&](auto level) {
        int levels = 0;
        for (int parity = 0;; parity ^= 1) {
            level(parity);
            unsigned next = 0;
            CHECK(cudaMemcpyAsync(&next, (parity ? swapped : s).count[1], sizeof(unsigned),
                                  cudaMemcpyDeviceToHost, stream));
            CHECK(cudaStreamSynchronize(stream));
            ++levels;
            if (!next) return levels;
        }
    };
    auto launch_level = [&](int parity) {
        const State& cur = parity ? swapped : s;
        expand<<<blocks, threads, 0, stream>>>(cur, 0);
        step<<<1, 1, 0, stream>>>(cur, 0, 0, 0);
    };

    // -- host: a launch pair per level and a read of the next count --------------------------
    int levels = 0;
    std::vector<int> level_host(nv), level_replay(nv), level_graph(nv);
    const double host_us = timed([&] { levels = host_loop(launch_level); }, level_host);

    // -- replay: a captured level per parity, launched by the host level by level ------------
    cudaGraphExec_t level_exec[2];
    for (int parity = 0; parity < 2; ++parity) {
        cudaGraph_t g;
        CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
        launch_level(parity);
        CHECK(cudaStreamEndCapture(stream, &g));
        CHECK(cudaGraphInstantiate(&level_exec[parity], g, 0));
    }
    const double replay_us = timed([&] {
        host_loop([&](int parity) { CHECK(cudaGraphLaunch(level_exec[parity], stream)); });
    }, level_replay);

    // -- while: the levels as the body of a conditional WHILE node ----------------------------
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphConditionalHandle handle;
    CHECK(cudaGraphConditionalHandleCreate(&handle, graph, 1, cudaGraphCondAssignDefault));
    cudaGraphNodeParams params = {};
    params.type = cudaGraphNodeTypeConditional;
    params.conditional.handle = handle;
    params.conditional.type = cudaGraphCondTypeWhile;
    params.conditional.size = 1;
    cudaGraphNode_t node;
    CHECK(cudaGraphAddNode(&node, graph, nullptr, nullptr, 0, &params));
    cudaGraph_t body = params.conditional.phGraph_out[0];
    CHECK(cudaStreamBeginCaptureToGraph(stream, body, nullptr, nullptr, 0,
                                        cudaStreamCaptureModeRelaxed));
    expand<<<blocks, threads, 0, stream>>>(s, 0);        // queue 0 -> queue 1
    step<<<1, 1, 0, stream>>>(s, 0, handle, 1);
    expand<<<blocks, threads, 0, stream>>>(swapped, 0);  // queue 1 -> queue 0
    step<<<1, 1, 0, stream>>>(swapped, 0, handle, 1);
    CHECK(cudaStreamEndCapture(stream, &body));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    const double graph_us = timed([&] { CHECK(cudaGraphLaunch(exec, stream)); }, level_graph);

    size_t differ = 0;
    for (size_t v = 0; v < nv; ++v)
        differ += level_host[v] != level_graph[v] || level_host[v] != level_replay[v];
    const int corner = level_host[nv - 1];
    std::printf("grid %d x %d: %d levels\n", n, n, levels);
    std::printf("host loop:  %.0f us, %.2f us a level\n", host_us, host_us / levels);
    std::printf("replay:     %.0f us, %.2f us a level\n", replay_us, replay_us / levels);
    std::printf("while node: %.0f us, %.2f us a level\n", graph_us, graph_us / levels);
    std::printf("levels differ at %zu vertices; corner level %d (want %d): %s\n", differ,
                corner, 2 * (n - 1), differ == 0 && corner == 2 * (n - 1) ? "ok" : "WRONG");
    return differ == 0 && corner == 2 * (n - 1) ? 0 : 1;
}
