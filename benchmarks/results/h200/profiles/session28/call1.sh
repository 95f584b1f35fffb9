# session 28, call 1 (main at 53936c5): the whole GPU suite (the first GPU run of 290a5a1's
# device-held Scalars), the per-call series held on each of four host CPUs, and on an H200 the
# record's prims stage (REFRESH=1) in what time is left
set -u
OUT=${OUT:-/tmp/out}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $gpu" > $OUT/gpu.txt
t0=$(date +%s)
pack() { tar czf /tmp/out1.tgz -C $OUT --exclude out1.tgz . && cp /tmp/out1.tgz $OUT/out1.tgz; }
TEST_TIMEOUT=330 bash benchmarks/h200/run.sh tests; pack
echo "tests done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
( export PYTHONPATH=$PWD/.site:$PWD/src GRAPHBLAST_DATA=$PWD/tests/data
  timeout 60 python3 benchmarks/h200/percall_series.py --pin 3,7,12,0 > $OUT/percall_pin.txt 2>&1 )
pack
echo "percall done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
left=$(( 580 - ($(date +%s) - t0) ))
case "$gpu" in
  *H200*) if [ $left -gt 200 ]; then
            DEADLINE=$((left - 50)) STAGE_TIMEOUT=$((left - 5)) REFRESH=1 bash benchmarks/h200/run.sh prims; pack
            echo "prims done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
          fi ;;
esac
echo "all done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
pack
cd $OUT && find . -mindepth 1 -maxdepth 1 ! -name out1.tgz ! -name gpu.txt -exec rm -rf {} +
