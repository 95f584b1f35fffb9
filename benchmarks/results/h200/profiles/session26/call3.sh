# session 26, call 3: the binned products (propagation blocking) on a GPU: their tests, then
# PageRank stored / degree / binned (pr_binned.py) on kron-27 (H200) or kron-22 and kron-26
# (H100); on an H200 where binned wins, the record's kron27 stage
set -u
OUT=${OUT:-/tmp/out}
D=/tmp/o3; mkdir -p $D
pack() { tar czf $OUT/out3.tgz -C $D . ; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $gpu" > $D/gpu.txt
t0=$(date +%s)
python3 -m pip install -q --no-index --no-deps --target .site .whl/*.whl > $D/setup.log 2>&1
python3 setup.py build_ext --inplace -q >> $D/setup.log 2>&1 || echo "build_ext failed" >> $D/setup.log
echo "src content: $(git ls-files -z src | xargs -0 git hash-object 2>/dev/null | sha256sum | cut -c1-16)" >> $D/setup.log
export PYTHONPATH=$PWD/.site:$PWD/src GRAPHBLAST_DATA=$PWD/tests/data
opts="-q -rfE -p no:cacheprovider --device cuda"
timeout 150 python3 -m pytest $opts tests/cuda/test_binned.py > $D/t_binned.txt 2>&1 &
timeout 150 python3 -m pytest $opts tests/algorithms/test_pagerank.py > $D/t_pagerank.txt 2>&1 &
case "$gpu" in
  *H200*) ;;
  *) timeout 150 python3 -m pytest $opts tests/core/test_diff_mxm.py -k "vxm and not catalogue" \
       > $D/t_vxm.txt 2>&1 & ;;
esac
wait
echo "tests done $(( $(date +%s) - t0 )) s" >> $D/gpu.txt
pack
case "$gpu" in
  *H200*) G=kron-27; T=200 ;;
  *) G=kron-22,kron-26; T=330 ;;
esac
(cd benchmarks/h200 && timeout $T python3 pr_binned.py --graphs $G --out $D) > $D/pr_binned.log 2>&1
echo "probe done $(( $(date +%s) - t0 )) s" >> $D/gpu.txt
pack
case "$gpu" in
  *H200*)
    wins=$(python3 -c "
import json; r = json.load(open('$D/pr_binned.json'))[-1]
print(int(r.get('binned_taken', False) and r['binned_step_ms'] < r['degree_step_ms']))" 2>/dev/null)
    ok=$(grep -c " failed" $D/t_binned.txt $D/t_pagerank.txt | awk -F: '{s+=$2} END {print s}')
    left=$(( 585 - ($(date +%s) - t0) ))
    echo "binned wins: $wins, failed lines: $ok, left: $left s" >> $D/gpu.txt
    if [ "$wins" = 1 ] && [ "$ok" = 0 ] && [ $left -gt 200 ]; then
      OUT=$D DEADLINE=$(( left - 70 )) STAGE_TIMEOUT=$(( left - 10 )) REFRESH=1 \
        bash benchmarks/h200/run.sh kron27
    fi ;;
esac
echo "all done $(( $(date +%s) - t0 )) s" >> $D/gpu.txt
pack
