# session 26, call 1: f0f81d8 (inner product in one pass) on a GPU; the per-call series; on an H200 the record's prims
set -u
OUT=${OUT:-/tmp/out}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $gpu" > $OUT/gpu.txt
t0=$(date +%s)
export GRAPHBLAST_DATA=$PWD/tests/data
# the reductions' and inner products' differential files, beside retest (which has tests/cuda)
( sleep 40; PYTHONPATH=$PWD/.site:$PWD/src timeout 300 python3 -m pytest -q -rfE -p no:cacheprovider --device cuda \
    tests/core/test_diff_reduce.py tests/core/test_diff_misc.py > $OUT/reduce_inner.txt 2>&1 ) &
bash benchmarks/h200/run.sh retest
wait
echo "retest done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
export PYTHONPATH=$PWD/.site:$PWD/src
timeout 90 python3 benchmarks/h200/percall_series.py > $OUT/percall_series.txt 2>&1
echo "series done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
case "$gpu" in
  *H200*) DEADLINE=180 STAGE_TIMEOUT=230 REFRESH=1 bash benchmarks/h200/run.sh prims ;;
esac
echo "all done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
tar czf /tmp/out1.tgz -C $OUT . && rm -rf $OUT/* && mv /tmp/out1.tgz $OUT/
