# session 29, call 3: the degree order's stand-in for the vertices without an edge, with the
# hub split merged; on an H200 first the record's kron27 stage (GAP's kron-27: BFS, CC,
# PageRank, SSSP), then PageRank's GPU tests, pr_phases.py on kron-22, and the renumbering's
# variants (renumber_probe.py) on kron-22 and kron-27, in CALL_S seconds
set -u
OUT=${OUT:-/tmp/out}
CALL_S=${CALL_S:-560}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $gpu" > $OUT/gpu.txt
t0=$(date +%s)
pack() { tar czf /tmp/out3.tgz -C $OUT --exclude out3.tgz . && cp /tmp/out3.tgz $OUT/out3.tgz; }
stages=
case "$gpu" in *H200*) stages=kron27 ;; esac
DEADLINE=200 STAGE_TIMEOUT=270 bash benchmarks/h200/run.sh $stages; pack
echo "set-up${stages:+ and $stages} done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
export PYTHONPATH=$PWD/.site:$PWD/src GRAPHBLAST_DATA=$PWD/tests/data
timeout 120 python3 -m pytest -q -rfE -p no:cacheprovider --device cuda \
  tests/algorithms/test_pagerank.py tests/cuda/test_hub_split.py > $OUT/tests.txt 2>&1; pack
echo "tests done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
(cd benchmarks/h200 && timeout 90 python3 pr_phases.py --graphs kron-22 --out $OUT/phases \
   > $OUT/phases22.txt 2>&1); pack
echo "phases done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
left=$(( CALL_S - 15 - ($(date +%s) - t0) ))
graphs=kron-22; [ $left -gt 120 ] && graphs=kron-22,kron-27
(cd benchmarks/h200 && timeout $left python3 renumber_probe.py --graphs $graphs --out $OUT/renumber \
   > $OUT/renumber.txt 2>&1)
echo "all done $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt
pack
cd $OUT && find . -mindepth 1 -maxdepth 1 ! -name out3.tgz ! -name gpu.txt -exec rm -rf {} +
