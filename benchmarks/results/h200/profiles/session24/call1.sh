# session 24, call 1: the device-resident scalar (PageRank's sinks' mass) tested, A/B timed
set -u
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "GPU: $gpu"
export PYTHONUNBUFFERED=1 GRAPHBLAST_DATA=$PWD/tests/data
bash benchmarks/h200/run.sh  # setup: wheels into .site, build_ext
tail -4 $OUT/setup.log
for f in $(cd src && find . -name "*.so"); do cp src/$f ab/base/src/$f; done
mkdir -p /tmp/xl
opts="-q -rfE -p no:cacheprovider --device cuda"
(PYTHONPATH=$PWD/.site:$PWD/src timeout 300 python3 -m pytest $opts tests/core/test_diff_apply_select.py tests/core/test_diff_reduce.py tests/core/test_scalar_device_value.py > /tmp/xl/x0.log 2>&1) &
(PYTHONPATH=$PWD/.site:$PWD/src timeout 300 python3 -m pytest $opts tests/core/test_diff_extract_assign.py > /tmp/xl/x1.log 2>&1) &
bash benchmarks/h200/run.sh retest
wait
for f in /tmp/xl/x*.log; do echo "== $f"; grep -E "^(FAILED|ERROR)|passed|failed|error" $f | tail -20; done > $OUT/extra_tests.txt
cat $OUT/retest.txt $OUT/extra_tests.txt
case "$gpu" in
  *H200*) REFRESH=1 bash benchmarks/h200/run.sh prims; tail -5 $OUT/prims.log ;;
  *) cd benchmarks/h200
     for r in 1; do for t in base new; do
       s=$PWD/../../src; [ $t = base ] && s=$PWD/../../ab/base/src
       PYTHONPATH=$PWD/../../.site:$s timeout 150 python3 pr_phases.py --graphs kron-18,kron-22 --out $OUT/pr_${t}_$r > $OUT/pr_${t}_$r.log 2>&1
       python3 -c "import json,sys; [print(sys.argv[2], r.get('graph'), {k: round(v, 4) for k, v in r.items() if k.startswith('pagerank_')} or r) for r in json.load(open(sys.argv[1]))]" $OUT/pr_${t}_$r/pr_phases.json "$t $r"
     done; done
     cd ../.. ;;
esac
cd $OUT && tar czf /tmp/all.tgz . && rm -rf $OUT/* && mv /tmp/all.tgz $OUT/all.tgz && echo packed
