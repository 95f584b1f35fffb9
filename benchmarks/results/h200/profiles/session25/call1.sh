# session 25, call 1: the 24th session's last commit (07cdb0c) retested; the record's prims on an H200, else the per-call figure on this host
set -u
OUT=${OUT:-/tmp/out}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $gpu" > $OUT/gpu.txt
t0=$(date +%s)
bash benchmarks/h200/run.sh retest
echo "retest done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
case "$gpu" in
  *H200*) REFRESH=1 bash benchmarks/h200/run.sh prims ;;
  *) export PYTHONPATH=$PWD/.site:$PWD/src GRAPHBLAST_DATA=$PWD/tests/data
     timeout 120 python3 benchmarks/h200/percall.py --quick --out $OUT/percall > $OUT/percall.log 2>&1 ;;
esac
echo "all done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
tar czf /tmp/out1.tgz -C $OUT . && rm -rf $OUT/* && mv /tmp/out1.tgz $OUT/
