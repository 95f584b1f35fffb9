#!/usr/bin/env bash
# Which problem keys do the demo, the command line, the benchmark (its kron-22 first calls
# among them), the generators and the GPU tests ask for, and what do they still compile at
# run time?  Each command runs in a fresh process with an empty CuPy cache, under the
# recorder (python -m graphblast.backends.cuda.catalogue RECORD MODULE ARGS): RECORD gets
# every problem key in the manifest's form, RECORD.compiles every kernel compiled at run time
# (catalogue misses and CuPy's own kernels) with the graphblast lines that asked for it.
#
#   benchmarks/gpu/record_keys.sh OUT [TEST_SECONDS]
#
# RECORD_ONLY="cli_bfs five" runs only the named commands; RECORD_DEVICE=cpu checks the script
# itself without a GPU; RECORD_BENCH_GRAPH (default kron-22) is first_calls' graph.
# writes OUT/keys.txt (all keys, one block per command), OUT/compiles.txt and OUT/record.txt
# (per command: exit status, wall seconds, files left in its empty cache, keys, compilations).
# `python -m graphblast.backends.cuda.catalogue_build --merge OUT/keys.txt` folds the keys
# into src/graphblast/backends/cuda/catalogue_keys.txt.
set -uo pipefail
out=${1:?usage: record_keys.sh OUT [TEST_SECONDS]}
test_seconds=${2:-90}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

record() {  # record NAME TIMEOUT MODULE ARGS...
    local name=$1 limit=$2
    shift 2
    if [ -n "${RECORD_ONLY:-}" ] && [[ " $RECORD_ONLY " != *" $name "* ]]; then return; fi
    local cache="$work/cache-$name" rec="$work/$name.keys"
    mkdir -p "$cache"
    local t0 t1 rc
    t0=$(date +%s%N)
    CUPY_CACHE_DIR=$cache timeout "$limit" python3 -m graphblast.backends.cuda.catalogue \
        "$rec" "$@" > "$work/$name.log" 2>&1
    rc=$?
    t1=$(date +%s%N)
    touch "$rec" "$rec.compiles"
    printf '%-14s rc=%-3s wall=%6.1fs cache_files=%-4s keys=%-4s compiled=%s\n' "$name" "$rc" \
        "$(( (t1 - t0) / 1000000 ))e-3" "$(find "$cache" -type f | wc -l)" \
        "$(grep -vc '^#' "$rec")" "$(grep -c '^compiled' "$rec.compiles")" | tee -a "$out/record.txt"
    { echo "# ---- $name"; cat "$rec"; } >> "$out/keys.txt"
    { echo "==== $name (rc=$rc)"; cat "$rec.compiles"; echo "---- tail of its output"; tail -n 15 "$work/$name.log"; } >> "$out/compiles.txt"
}

cat > "$work/five_algorithms.py" <<'EOF'
import os

from graphblast import algorithms, generators

DEV = os.environ.get("RECORD_DEVICE", "cuda")

for A, W in ((generators.kron(12, device=DEV), generators.kron(12, weighted=True, device=DEV)),
             (generators.grid2d(64, 64, device=DEV),
              generators.grid2d(64, 64, weights="random", device=DEV))):
    algorithms.bfs(A, 0)
    algorithms.bfs(A, 0, parents=True)
    algorithms.sssp(W, 0)
    algorithms.pagerank(A)
    algorithms.connected_components(A)
    algorithms.triangle_count(A)
for make in (lambda: generators.urand(12, device=DEV),
             lambda: generators.graph500(12, device=DEV),
             lambda: generators.rgg(4096, device=DEV),
             lambda: generators.erdos_renyi(2000, 0.01, device=DEV)):
    algorithms.bfs(make(), 0)
print("five: done")
EOF
cat > "$work/bench_first_calls.py" <<'EOF'
# the benchmark's first-call workload (graphblast.bench.first_call): kron-22, its weights, the
# five algorithms as the benchmark's tasks call them (paths small graphs never take: the
# device loops' rounds, PageRank's degree order)
import os

from graphblast.bench import graphs
from graphblast.bench.peers import AlgorithmParams, Graphblast

DEV = os.environ.get("RECORD_DEVICE", "cuda")
DEV = "cuda:0" if DEV == "cuda" else DEV
graph = graphs.build(graphs.parse_graphs(os.environ.get("RECORD_BENCH_GRAPH", "kron-22"))[0], DEV)
ours = Graphblast(DEV)
for name in ("bfs", "sssp", "pagerank", "cc", "tc"):
    ours.task(name, ours.prepare(graph, name == "sssp"), graph, AlgorithmParams())()
    ours.sync()
print("bench_first_calls: done")
EOF
export PYTHONPATH="${PYTHONPATH:-}:$work"

record unit 45 pytest -q -p no:cacheprovider --device ${RECORD_DEVICE:-cuda} \
    tests/cuda/test_arrays.py tests/cuda/test_catalogue.py tests/generators
record cli_bfs 30 graphblast.cli run bfs kron:16 --device ${RECORD_DEVICE:-cuda}
record cli_cc 30 graphblast.cli run cc kron:16 --device ${RECORD_DEVICE:-cuda}
record five 40 five_algorithms
record first_calls 60 bench_first_calls
record demo 50 graphblast.demo
record tests "$test_seconds" pytest -q -p no:cacheprovider --device ${RECORD_DEVICE:-cuda} \
    tests/algorithms
record bench 30 graphblast.bench --out "$work/bench" --graphs kron-12,grid-64 \
    --peers none --device ${RECORD_DEVICE:-cuda} --repeat 1 --first-call none --no-plots
