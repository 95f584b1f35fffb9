# session 28, call 3 (never started: this session's device time went to failed starts; the
# next session's first call): PageRank's product split at the hubs (pr_hubsplit.py) against the
# library's degree-ordered pull, kron-22 then kron-27, in CALL_S seconds; on an H200 first the
# record's prims stage (REFRESH=1)
set -u
OUT=${OUT:-/tmp/out}
CALL_S=${CALL_S:-400}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $gpu" > $OUT/gpu.txt
t0=$(date +%s)
pack() { tar czf /tmp/out3.tgz -C $OUT --exclude out3.tgz . && cp /tmp/out3.tgz $OUT/out3.tgz; }
stages=  # the prims stage takes about 150 s: only on an H200, in a call of 300 s or more
case "$gpu@$CALL_S" in *H200*@[3-9][0-9][0-9]) stages=prims ;; esac
# run.sh's set-up (the peer wheels, the compiled parts, setup.log with the tree's hash), and
# the stage if any
DEADLINE=110 STAGE_TIMEOUT=150 REFRESH=1 bash benchmarks/h200/run.sh $stages; pack
echo "set-up${stages:+ and $stages} done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
export PYTHONPATH=$PWD/.site:$PWD/src GRAPHBLAST_DATA=$PWD/tests/data
t22=$(( CALL_S - 20 - ($(date +%s) - t0) )); [ $t22 -gt 120 ] && t22=120
(cd benchmarks/h200 && timeout $t22 python3 pr_hubsplit.py --graphs kron-22 --out $OUT \
   --deadline $((t22 - 15)) > $OUT/hubsplit22.txt 2>&1); pack
echo "hubsplit kron-22 done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
left=$(( CALL_S - 15 - ($(date +%s) - t0) ))
if [ $left -gt 90 ]; then
  mkdir -p $OUT/k27
  (cd benchmarks/h200 && timeout $((left - 5)) python3 pr_hubsplit.py --graphs kron-27 \
     --tiers 12288,24576,262144 --repeat 5 --out $OUT/k27 > $OUT/hubsplit27.txt 2>&1)
  echo "hubsplit kron-27 done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
fi
echo "all done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
pack
cd $OUT && find . -mindepth 1 -maxdepth 1 ! -name out3.tgz ! -name gpu.txt -exec rm -rf {} +
