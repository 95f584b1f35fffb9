# session 26, call 4 (main after the revert): on an H200 the record's prims and the per-call
# series; on an H100 the whole GPU suite
set -u
OUT=${OUT:-/tmp/out}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $gpu" > $OUT/gpu.txt
t0=$(date +%s)
case "$gpu" in
  *H200*) DEADLINE=190 STAGE_TIMEOUT=240 REFRESH=1 bash benchmarks/h200/run.sh prims
          export PYTHONPATH=$PWD/.site:$PWD/src GRAPHBLAST_DATA=$PWD/tests/data
          timeout 90 python3 benchmarks/h200/percall_series.py > $OUT/percall_series.txt 2>&1 ;;
  *) TEST_TIMEOUT=330 bash benchmarks/h200/run.sh tests ;;
esac
echo "all done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
tar czf /tmp/out4.tgz -C $OUT . && rm -rf $OUT/* && mv /tmp/out4.tgz $OUT/
