# session 27, call 1 (main at d5ecacb): on an H200 the record's prims and kron27 stages
# (REFRESH=1) and the per-call series; on an H100 the whole GPU suite and the per-call series
set -u
OUT=${OUT:-/tmp/out}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $gpu" > $OUT/gpu.txt
t0=$(date +%s)
pack() { tar czf /tmp/out1.tgz -C $OUT --exclude out1.tgz . && cp /tmp/out1.tgz $OUT/out1.tgz; }
case "$gpu" in
  *H200*) DEADLINE=190 STAGE_TIMEOUT=235 REFRESH=1 bash benchmarks/h200/run.sh prims; pack
          echo "prims done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
          DEADLINE=215 STAGE_TIMEOUT=280 REFRESH=1 bash benchmarks/h200/run.sh kron27; pack
          echo "kron27 done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
          left=$(( 585 - ($(date +%s) - t0) ))
          if [ $left -gt 40 ]; then
            export PYTHONPATH=$PWD/.site:$PWD/src GRAPHBLAST_DATA=$PWD/tests/data
            timeout $((left - 5)) python3 benchmarks/h200/percall_series.py > $OUT/percall_series.txt 2>&1
          fi ;;
  *) TEST_TIMEOUT=360 bash benchmarks/h200/run.sh tests; pack
     export PYTHONPATH=$PWD/.site:$PWD/src GRAPHBLAST_DATA=$PWD/tests/data
     timeout 120 python3 benchmarks/h200/percall_series.py > $OUT/percall_series.txt 2>&1 ;;
esac
echo "all done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
pack
cd $OUT && find . -mindepth 1 -maxdepth 1 ! -name out1.tgz ! -name gpu.txt -exec rm -rf {} +
