# Session 30's call, from main: main's PageRank (one vertex standing for those without an
# edge) tested on the GPU, then the branch hubsplit's files laid over it and its tests; where
# they pass, pr_split_ab.py on kron-22 and kron-27 decides which code the record measures (the split
# where kron-27's step is 1 % shorter, else main's files are put back).  On an H200 the
# record's kron27 stage and its prims stage (REFRESH=1) follow.  Everything is skipped by
# CALL_S, the call's seconds.  Before the call, here (overlay/ is not committed):
#   for f in $(git diff --name-only main hubsplit -- src tests benchmarks/h200); do
#     mkdir -p $HERE/overlay/$(dirname $f); git show hubsplit:$f > $HERE/overlay/$f; done
set -u
OUT=${OUT:-/tmp/out}
CALL_S=${CALL_S:-580}
HERE=benchmarks/results/h200/profiles/session30
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $gpu" > $OUT/gpu.txt
t0=$(date +%s)
pack() { tar czf /tmp/out.tgz -C $OUT --exclude out.tgz . && cp /tmp/out.tgz $OUT/out.tgz; }
left() { echo $(( CALL_S - 15 - ($(date +%s) - t0) )); }
note() { echo "$* $(( $(date +%s) - t0 )) s" >> $OUT/gpu.txt; }
bash benchmarks/h200/run.sh  # its set-up alone (the peer wheels, the compiled parts, setup.log)
export PYTHONPATH=$PWD/.site:$PWD/src GRAPHBLAST_DATA=$PWD/tests/data
main_ok=0  # MAIN_TESTS=0: PageRank's GPU tests passed earlier in the session (h100_call1/)
if [ "${MAIN_TESTS:-1}" != 0 ]; then
  timeout 100 python3 -m pytest -q -rfE -p no:cacheprovider --device cuda \
    tests/algorithms/test_pagerank.py > $OUT/tests_main.txt 2>&1
  main_ok=$?
  note "main's tests (exit $main_ok)"
fi
files=$(cd $HERE/overlay && find . -type f)
mkdir -p /tmp/main_files
for f in $files; do [ -f "$f" ] && install -D "$f" "/tmp/main_files/$f"; done
(cd $HERE/overlay && for f in $files; do install -D "$f" "$OLDPWD/$f"; done)
timeout 120 python3 -m pytest -q -rfE -p no:cacheprovider --device cuda \
  tests/cuda/test_hub_split.py > $OUT/tests_split.txt 2>&1
split_ok=$?
note "the split's tests (exit $split_ok)"
pack
wins=no
if [ $split_ok -eq 0 ] && [ $(left) -ge 200 ]; then
  graphs=kron-22; [ $(left) -ge 330 ] && graphs=kron-22,kron-27
  (cd benchmarks/h200 && timeout 200 python3 pr_split_ab.py --graphs $graphs --out $OUT/ab \
     > $OUT/ab.txt 2>&1)
  wins=$(python3 -c "
import json, sys
recs = [r for r in json.load(open('$OUT/ab/pr_split_ab.json')) if 'split_wins' in r]
print('yes' if recs and recs[-1]['split_wins'] else 'no')" 2>>$OUT/ab.txt || echo no)
  note "a/b done (split wins: $wins)"
  pack
fi
if [ "$wins" != yes ]; then  # main's code for the record
  (cd /tmp/main_files && for f in $(find . -type f); do install -D "$f" "$OLDPWD/$f"; done)
  for f in $files; do [ -f "/tmp/main_files/$f" ] || rm -f "$f"; done
fi
echo "record measured with: $([ "$wins" = yes ] && echo hubsplit || echo main)" >> $OUT/gpu.txt
case "$gpu" in
*H200*)
  if [ $main_ok -eq 0 ] && [ $(left) -ge 200 ]; then
    bash benchmarks/h200/run.sh kron27; pack
    note "kron27 done"
  fi
  if [ $(left) -ge 160 ]; then
    DEADLINE=110 STAGE_TIMEOUT=150 REFRESH=1 bash benchmarks/h200/run.sh prims; pack
    note "prims done"
  fi ;;
esac
note "all done"
pack
cd $OUT && find . -mindepth 1 -maxdepth 1 ! -name out.tgz ! -name gpu.txt -exec rm -rf {} +
