# session 29's call for main (never started this session: the next session's first call):
# PageRank's degree order with one vertex standing for all those without an edge, and its
# 32-bit sort keys.  PageRank's GPU tests first; on an H200, if they pass, the record's kron27
# stage (GAP's kron-27: pagerank_gap_kron_27_iter_ms), then its prims stage (REFRESH=1:
# per_call_overhead_us, auto_direction_worst_level_ratio); with the time left (or on an H100)
# pr_phases.py on kron-22 (and kron-27) and the renumbering's variants (renumber_probe.py),
# in CALL_S s
set -u
OUT=${OUT:-/tmp/out}
CALL_S=${CALL_S:-580}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $gpu" > $OUT/gpu.txt
t0=$(date +%s)
pack() { tar czf /tmp/out3.tgz -C $OUT --exclude out3.tgz . && cp /tmp/out3.tgz $OUT/out3.tgz; }
left() { echo $(( CALL_S - 15 - ($(date +%s) - t0) )); }
bash benchmarks/h200/run.sh  # its set-up alone (the peer wheels, the compiled parts, setup.log)
export PYTHONPATH=$PWD/.site:$PWD/src GRAPHBLAST_DATA=$PWD/tests/data
timeout 120 python3 -m pytest -q -rfE -p no:cacheprovider --device cuda \
  tests/algorithms/test_pagerank.py > $OUT/tests.txt 2>&1
passed=$?
pack
echo "tests done (exit $passed) $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
case "$gpu" in
*H200*)
  if [ $passed -eq 0 ] && [ $(left) -ge 300 ]; then
    bash benchmarks/h200/run.sh kron27; pack
    echo "kron27 done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
  fi
  if [ $(left) -ge 160 ]; then
    DEADLINE=110 STAGE_TIMEOUT=150 REFRESH=1 bash benchmarks/h200/run.sh prims; pack
    echo "prims done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
  fi ;;
esac
if [ $(left) -ge 70 ]; then
  (cd benchmarks/h200 && timeout 60 python3 pr_phases.py --graphs kron-22 --out $OUT/phases \
     > $OUT/phases22.txt 2>&1); pack
  echo "phases done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
fi
if [ $(left) -ge 300 ]; then  # the step at scale where the kron27 stage did not run
  (cd benchmarks/h200 && timeout 150 python3 pr_phases.py --graphs kron-27 --out $OUT/phases27 \
     > $OUT/phases27.txt 2>&1); pack
  echo "phases kron-27 done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
fi
if [ $(left) -ge 40 ]; then
  graphs=kron-22; [ $(left) -ge 150 ] && graphs=kron-22,kron-27
  (cd benchmarks/h200 && timeout $(left) python3 renumber_probe.py --graphs $graphs \
     --out $OUT/renumber > $OUT/renumber.txt 2>&1)
  echo "renumber done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
fi
echo "all done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
pack
cd $OUT && find . -mindepth 1 -maxdepth 1 ! -name out3.tgz ! -name gpu.txt -exec rm -rf {} +
