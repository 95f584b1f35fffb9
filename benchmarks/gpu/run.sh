#!/usr/bin/env bash
# The GPU record and the GPU test run, one or more stages per call, from the repository root on
# a machine with an NVIDIA GPU (CuPy installed, or the peer wheels in .whl/):
#   bash benchmarks/gpu/run.sh STAGE...
# stages: tests (the whole suite with --device cuda), algos-a, algos-b, prims, kron27 (the
# record: graphblast.bench against its peers), breadth-GRAPH (the breadth stage), gen, mm (generators.txt, mmread.txt), multi
# (several GPUs), profile, profile27, ncu (where the time goes: development instruments).
# Logs and results go to $OUT (one archive, out.tgz, past 8 files); the record's stages resume
# from benchmarks/results/<gpu>/parts/<stage>/, where <gpu> is h100 or h200 by the GPU's name
# (RESULTS overrides the folder).  benchmarks/results/h200/README.md says how each file of the
# committed record was made.
set -uo pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
# SETUP_DONE=1: the wheels and the compiled parts are in place already (other processes of the
# same call may be using them: installing or copying them again under those would break them)
if [ -z "${SETUP_DONE:-}" ] && ls .whl/*.whl > /dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl > "$OUT/setup.log" 2>&1
fi
export PYTHONPATH=$PWD/.site:$PWD/src
# BENCH_DRY=1 (with PYTHON=.venv/bin/python, on a machine without a GPU): the record's stages on
# the CPU with tiny graphs, to check the script before spending GPU time on it.
if [ -n "${BENCH_DRY:-}" ]; then
  dev=cpu; g_a=kron-10,g500-10; g_b=urand-10,rgg-10,grid-32; g_k=kron-10; g_gap=kron-12
else
  dev=cuda; g_a=kron-22,g500-21; g_b=urand-22,rgg-22,grid-2048; g_k=kron-22; g_gap=kron-27
fi
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
case $gpu_name in
  *H200*) gpu=h200 ;;
  *H100*) gpu=h100 ;;
  "") gpu=cpu ;;
  *) gpu=$(echo "$gpu_name" | tr 'A-Z ' 'a-z_' | tr -cd 'a-z0-9_-') ;;
esac
RESULTS=${RESULTS:-benchmarks/results/$gpu}
export GRAPHBLAST_DATA=$PWD/tests/data  # the real graphs (the package itself has karate only)
# The compiled parts (setup.py): the kernel launcher is in every GPU call's path (without it,
# launches go through CuPy and the record would measure that); the mmread fast path matters
# to the tests and to mm.
[ -n "${SETUP_DONE:-}" ] || python3 setup.py build_ext --inplace -q >> "$OUT/setup.log" 2>&1 \
  || echo "build_ext failed" >> "$OUT/setup.log"
python3 -c "import graphblast.io._mmfast" >> "$OUT/setup.log" 2>&1 && echo "fast path built" >> "$OUT/setup.log"
python3 -c "import graphblast.backends.cuda._launch" >> "$OUT/setup.log" 2>&1 \
  && echo "kernel launcher built" >> "$OUT/setup.log"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >> "$OUT/setup.log" 2>&1
# Which code ran: a copy of the tree may carry its changes uncommitted, so the commit alone
# does not say; the tracked sources' content hash (git's own, of the working tree) does.
{ echo "commit: $(git log -1 --format=%h 2>/dev/null), modified: $(git status --short src 2>/dev/null | wc -l) files under src/"
  echo "src content: $(git ls-files -z src | xargs -0 git hash-object 2>/dev/null | sha256sum | cut -c1-16)"
  echo "results folder: $RESULTS"
} >> "$OUT/setup.log" 2>&1

for stage in "$@"; do
  case $stage in
  tests)
    # The suite on the GPU in parallel processes (16 cores, one CUDA context each), so that
    # it fits one 10-minute call: the heaviest files in groups of their own (the mxm file in
    # five, about 170 s each), then everything else in a last group that ignores what the
    # others run, so a new test file is never left out.
    mkdir -p /tmp/logs
    groups=(
      "tests/core/test_diff_mxm.py -k 'vxm and catalogue'"
      "tests/core/test_diff_mxm.py -k 'vxm and not catalogue'"
      "tests/core/test_diff_mxm.py -k 'mxv and catalogue'"
      "tests/core/test_diff_mxm.py -k 'mxv and not catalogue'"
      "tests/core/test_diff_mxm.py -k 'not (mxv or vxm) and catalogue'"
      "tests/core/test_diff_mxm.py -k 'not (mxv or vxm or catalogue)'"
      "tests/core/test_diff_ewise.py -k 'catalogue or combinations'"
      "tests/core/test_diff_ewise.py -k 'special_values'"
      "tests/core/test_diff_ewise.py -k 'not (catalogue or combinations or special_values)'"
      "tests/core/test_diff_extract_assign.py tests/core/test_extract_permutation.py tests/core/test_vector_index.py"
      "tests/core/test_diff_apply_select.py -k combinations"
      "tests/core/test_diff_apply_select.py tests/core/test_diff_reduce.py tests/core/test_masked_dot.py tests/core/test_diff_agg.py -k 'not (test_diff_apply_select and combinations)'"
      "tests/core/test_diff_udf.py"
      "tests/core/test_udt.py tests/core/test_pgb_semantics.py tests/ops"
      "tests/algorithms"
      "tests/cuda/test_engine.py"
      "tests/cuda --ignore=tests/cuda/test_engine.py"
      "tests/compat"
      "tests/nx tests/io tests/generators"
      "tests/bench"
      "tests/group"
    )
    rest="tests"
    for g in "${groups[@]}"; do
      for path in $g; do
        case $path in tests/*) rest+=" --ignore=$path" ;; esac
      done
    done
    groups+=("$rest")
    # TEST_GROUPS="5 7 20": only those groups (by their number in the list, the last one the
    # catch-all), as after a run in which they failed or ran out of time
    i=0
    for g in "${groups[@]}"; do
      case " ${TEST_GROUPS:-$i} " in *" $i "*) ;; *) i=$((i + 1)); continue ;; esac
      # a group's -k expression is quoted inside its string (eval in a subshell: the stage
      # list in this script's own arguments stays as it is)
      # SIGINT at the time limit: pytest stops and still prints what failed so far
      (eval "set -- $g"; exec timeout -s INT -k 20 "${TEST_TIMEOUT:-400}" python3 -m pytest -q -rfE \
        -p no:cacheprovider --durations=8 --device cuda "$@") > /tmp/logs/group$(printf %02d $i).log 2>&1 &
      i=$((i + 1))
    done
    wait
    for f in /tmp/logs/group*.log; do
      echo "== $f: $(head -c 300 "$f" | head -1)"; grep -E "^(FAILED|ERROR)|passed|failed|error" "$f" | tail -40
    done > "$OUT/tests.txt"
    tar czf "$OUT/test-logs.tar.gz" -C /tmp logs
    ;;
  profile)
    # Where the time goes (development instruments, not the record): the host cost of a
    # launch and of one small call; each backend primitive of BFS and PageRank on kron-22,
    # SSSP and TC on g500-21, SSSP on the long-diameter graphs by both methods.  About 5
    # minutes.
    mkdir -p "$OUT/profile"
    timeout 40 python3 benchmarks/profiling/launch_cost.py --out "$OUT/profile" \
      > "$OUT/profile/launch_overhead.log" 2>&1
    timeout 70 python3 benchmarks/profiling/call_overhead.py --out "$OUT/profile" \
      > "$OUT/profile/percall.log" 2>&1
    timeout 60 python3 benchmarks/profiling/algorithm_primitives.py --out "$OUT/profile" \
      --graphs kron-22 --algos bfs,pagerank >> "$OUT/profile/algos.log" 2>&1
    # GPU time per kernel (BFS per level, SpMV against cuSPARSE, PageRank per iteration)
    timeout 120 python3 benchmarks/profiling/engine_kernels.py --out "$OUT/profile" --graphs kron-22 \
      > "$OUT/profile/engine.log" 2>&1
    timeout 60 python3 benchmarks/profiling/algorithm_primitives.py --out "$OUT/profile" \
      --graphs g500-21 --algos sssp,tc >> "$OUT/profile/algos.log" 2>&1
    # delta-stepping's rounds against its bucket width (wider: fewer buckets, more work)
    timeout 100 python3 benchmarks/profiling/algorithm_primitives.py --out "$OUT/profile" \
      --graphs grid-2048,rgg-22 --algos sssp --sssp-method bellman-ford \
      >> "$OUT/profile/algos.log" 2>&1
    timeout 150 python3 benchmarks/profiling/algorithm_primitives.py --out "$OUT/profile" \
      --graphs grid-2048,rgg-22 --algos sssp --sssp-method auto --sssp-delta-scales 1,4,16 \
      >> "$OUT/profile/algos.log" 2>&1
    # one archive: the device tool brings back a few files per call
    tar czf "$OUT/profile.tar.gz" -C "$OUT" profile && rm -r "$OUT/profile"
    ;;
  profile27)
    # Where kron-27's time goes: each backend primitive of BFS, CC and PageRank synchronized
    # around it, and GPU time per kernel of BFS and PageRank.  About 3 minutes (the graph is
    # built twice, 40 s each).
    mkdir -p "$OUT/profile27"
    timeout 200 python3 benchmarks/profiling/algorithm_primitives.py --out "$OUT/profile27" \
      --graphs kron-27 --algos bfs,cc,pagerank > "$OUT/profile27/algos.log" 2>&1
    # (no SpMV against cuSPARSE: its 32-bit indices stop short of 4.2 billion entries)
    timeout 200 python3 benchmarks/profiling/engine_kernels.py --out "$OUT/profile27" --graphs kron-27 \
      --skip overhead,spmv > "$OUT/profile27/engine.log" 2>&1
    tar czf "$OUT/profile27.tar.gz" -C "$OUT" profile27 && rm -r "$OUT/profile27"
    ;;
  ncu)
    # Nsight Compute on every kernel of one SpMV on kron-22, ours and cuSPARSE's
    # (spmv_nsight.py's profiled range: our FP32 plus_times, cuSPARSE's, PageRank's FP64
    # product): a table of the metrics that tell L2- from DRAM- from latency-bound, then the
    # sections.
    metrics=gpu__time_duration.sum,launch__grid_size,launch__block_size
    metrics+=,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
    metrics+=,lts__throughput.avg.pct_of_peak_sustained_elapsed
    metrics+=,l1tex__throughput.avg.pct_of_peak_sustained_elapsed
    metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed
    metrics+=,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum
    metrics+=,lts__t_sectors_op_write.sum,lts__t_sector_hit_rate.pct
    metrics+=,l1tex__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
    timeout 150 ncu --profile-from-start off --clock-control none --csv --metrics "$metrics" \
      python3 benchmarks/profiling/spmv_nsight.py > "$OUT/ncu.csv" 2> "$OUT/ncu.err"
    timeout 200 ncu --profile-from-start off --clock-control none --section SpeedOfLight \
      --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats \
      --section LaunchStats python3 benchmarks/profiling/spmv_nsight.py > "$OUT/ncu.txt" 2>&1
    ;;
  gen)
    timeout 300 python3 benchmarks/gpu/generators.py > "$OUT/generators.txt" 2>&1 ;;
  mm)
    timeout 200 python3 benchmarks/files/mmread_speed.py /tmp/mm --write > "$OUT/mmread.txt" 2>&1 ;;
  algos-a|algos-b|prims|kron27)
    # Timed runs: up to 5 after one warm-up, at most BUDGET s per participant and (algorithm,
    # graph) (a slow CPU peer gets one run; graphblast always two after its warm-up); a
    # participant whose warm pilot predicts one run over LIMIT s is skipped.
    common=(--device $dev --repeat 5 --warmup 1 --no-plots)
    peers=suitesparse,networkit,scipy
    case $stage in
    algos-a) args=(--graphs $g_a --peers $peers --first-call none
                   --time-limit 240 --budget "${BUDGET:-6}" --deadline "${DEADLINE:-400}")
             limit=${STAGE_TIMEOUT:-545} ;;
    algos-b) args=(--graphs $g_b --peers $peers --first-call none
                   --time-limit 240 --budget "${BUDGET:-6}" --deadline "${DEADLINE:-400}")
             limit=${STAGE_TIMEOUT:-545} ;;
    prims)   args=(--algorithms none --primitives "${PRIMS:-all}" --graphs $g_k --peers cusparse
                   --first-call $g_k --budget 10 --deadline "${DEADLINE:-200}")
             limit=${STAGE_TIMEOUT:-260} ;;
    # kron27: one timed run after the warm-up (CC alone is tens of seconds a run there);
    # SSSP last, as its weighted copy is a second matrix of 4.2 billion entries.
    kron27)  args=(--graphs $g_gap --algorithms bfs,cc,pagerank,sssp --peers $peers
                   --first-call none --time-limit inf --repeat 1 --budget 20
                   --deadline "${DEADLINE:-220}")
             limit=${STAGE_TIMEOUT:-290} ;;
    esac
    part=$RESULTS/parts/$stage/results.json
    [ -f "$part" ] && args+=(--resume "$part")
    # REFRESH=1: graphblast measured again on the resumed records, the peers' kept
    [ -f "$part" ] && [ -n "${REFRESH:-}" ] && args+=(--refresh)
    mkdir -p "$OUT/$stage"
    timeout --kill-after=10 "$limit" $PY -m graphblast.bench "${common[@]}" "${args[@]}" \
      --out "$OUT/$stage" > /dev/null 2> "$OUT/$stage.log"
    echo "$stage: exit status $?" >> "$OUT/$stage.log"
    ;;
  breadth-*)
    # The breadth stage (bench/breadth.py) on one graph, e.g. breadth-rgg-22: the new
    # algorithms against networkit, SciPy and SuiteSparse, each peer in a worker process
    # stopped at 5x graphblast's median (at most 8 s; igraph is left out: building its graph
    # of 64M edges takes about 45 s).  The stages' breadth.json merge with --merge.
    mkdir -p "$OUT/$stage"
    timeout -s INT --kill-after=10 "${STAGE_TIMEOUT:-115}" $PY -m graphblast.bench \
      --device $dev --no-plots --algorithms none --breadth --first-call none \
      --graphs "${stage#breadth-}" --peers suitesparse,networkit,scipy --repeat 3 \
      --time-limit 8 --peer-factor 5 --peer-setup-limit 15 --deadline "${DEADLINE:-100}" \
      --out "$OUT/$stage" > /dev/null 2> "$OUT/$stage.log"
    echo "$stage: exit status $?" >> "$OUT/$stage.log"
    ;;
  multi)
    # Several GPUs, on a machine with 2 or more: tests/group on GPU groups
    # (GRAPHBLAST_GROUP_KIND=cuda: cuda:0-1, cuda:0-2, cuda:0-3 and all GPUs, NCCL), one
    # process per test file and group size, then benchmarks/gpu/multi_gpu.py (answers
    # against one GPU, PageRank per iteration on kron-27 per group size, kron scale 30 on 4
    # GPUs).  MULTI_PARTS: "tests script" (default), "tests" or "script"; MULTI_STEPS: the
    # script's steps (default all: env,comm,gencheck,check,pagerank,big); DEADLINE: the
    # script's seconds (default 480).  Within a 10-minute call, for example:
    #   TEST_TIMEOUT=240 DEADLINE=270 MULTI_STEPS=env,comm,gencheck,check,pagerank bash ... multi
    #   MULTI_PARTS=script MULTI_STEPS=env,big DEADLINE=540 bash ... multi
    # Everything lands in $OUT/multi (multi_gpu.json, multi_gpu.log, tests.txt, ...).
    mkdir -p "$OUT/multi" /tmp/logs
    export NCCL_NVLS_ENABLE=0  # NVLink multicast stays off (KINDS.md)
    export NCCL_DEBUG=${NCCL_DEBUG:-WARN}
    # NCCL from its pip package, where the system has no libnccl for CuPy to load
    nccl_lib=$($PY -c "import os, nvidia.nccl as m; print(os.path.join(list(m.__path__)[0], 'lib'))" 2>/dev/null)
    [ -n "$nccl_lib" ] && export LD_LIBRARY_PATH="$nccl_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    { echo "nccl lib: ${nccl_lib:-none}"
      $PY -c "from cupy.cuda import nccl; print('nccl available:', nccl.available, nccl.get_version() if nccl.available else '')"
      nvidia-smi topo -m; df -h /dev/shm; } > "$OUT/multi/nccl.txt" 2>&1
    ngpu=$($PY -c "import cupy; print(cupy.cuda.runtime.getDeviceCount())" 2>/dev/null || echo 0)
    case " ${MULTI_PARTS:-tests script} " in *" tests "*)
      sizes=$(for n in 2 3 4 "$ngpu"; do [ "$n" -ge 2 ] && [ "$n" -le "$ngpu" ] && echo "$n"; done | sort -un)
      files=(tests/group/test_algorithms.py tests/group/test_elementwise.py
             tests/group/test_indexing.py tests/group/test_products.py
             "tests/group/test_nccl.py tests/group/test_placement.py tests/group/test_comm.py")
      for n in $sizes; do
        for f in "${files[@]}"; do
          tag=$(basename "${f%% *}" .py)
          GRAPHBLAST_GROUP_KIND=cuda GRAPHBLAST_GROUP_PARTS=$n timeout "${TEST_TIMEOUT:-300}" \
            $PY -m pytest -q -rfE -p no:cacheprovider $f > /tmp/logs/multi-N$n-$tag.log 2>&1 &
        done
      done
      wait
      for f in /tmp/logs/multi-*.log; do
        echo "== $f: $(head -c 300 "$f" | head -1)"; grep -E "^(FAILED|ERROR)|passed|failed|error" "$f" | tail -40
      done > "$OUT/multi/tests.txt"
      tar czf "$OUT/multi/test-logs.tar.gz" -C /tmp/logs $(cd /tmp/logs && ls multi-*.log)
    esac
    case " ${MULTI_PARTS:-tests script} " in *" script "*)
      timeout --kill-after=10 "${STAGE_TIMEOUT:-$(( ${DEADLINE:-480} + 45 ))}" $PY \
        benchmarks/gpu/multi_gpu.py --out "$OUT/multi" --deadline "${DEADLINE:-480}" \
        --steps "${MULTI_STEPS:-env,comm,gencheck,check,pagerank,big}" > "$OUT/multi/stdout.txt" 2>&1
      echo "multi_gpu.py: exit status $?" >> "$OUT/multi/stdout.txt"
    esac
    ;;
  *)
    echo "unknown stage $stage (tests, algos-a, algos-b, prims, kron27, gen, mm, multi, profile, profile27, ncu)" >&2
    exit 2 ;;
  esac
done

# A device call brings back at most 8 files: past that, everything goes back as one archive
# (unpack it with tar xzf out.tgz)
if [ "$(find "$OUT" -type f | wc -l)" -gt 8 ]; then
  tar czf /tmp/run-out.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete \
    && mv /tmp/run-out.tgz "$OUT/out.tgz"
fi
