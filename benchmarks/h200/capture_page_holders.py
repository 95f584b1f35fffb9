"""Whether a captured graph finds its counter page free (loops.py, vectors.capture_page), and
if not, who holds its slots: ``algorithms.sssp`` on each graph (one warm call, then one
counted), every request for a capture page that would make a new one reported with the
referrers of the Counters still on the old page.

    python3 benchmarks/h200/capture_page_holders.py --graphs grid-2048,rgg-22

Fifteenth session: with a page looked up again for each counter of a capture, every capture
after the first made one (60 on grid-2048, 30 on rgg-22); with the page taken once per graph,
none (benchmarks/results/h200/profiles/session15/capture_page_holders_*.txt).
"""

import argparse
import gc

import cupy as cp

from graphblast import algorithms
from graphblast.backends.cuda import loops, vectors
from graphblast.bench import graphs


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--graphs", default="grid-2048,rgg-22")
    args = p.parse_args()
    real = vectors.capture_page
    renewals = []

    def capture_page():
        page = vectors._capture_pages.get(cp.cuda.runtime.getDevice())
        if page is not None and len(page.zeroed) + len(page.used) < vectors.PAGE_SLOTS:
            held = [o for o in gc.get_objects() if isinstance(o, vectors.Counters)
                    and getattr(o, "page", None) is page]
            renewals.append([[type(r).__name__ for r in gc.get_referrers(c)
                              if r is not held] for c in held[:3]])
        return real()

    vectors.capture_page = loops.capture_page = capture_page
    for name in args.graphs.split(","):
        g = graphs.build(graphs.parse_graphs(name)[0], "cuda:0")
        algorithms.sssp(g.Aw, g.source).wait()
        renewals.clear()
        algorithms.sssp(g.Aw, g.source).wait()
        print(f"{name}: new capture pages {len(renewals)}", flush=True)
        for holders in renewals[:2]:
            print("  held by", holders)
        g = None
        gc.collect()


if __name__ == "__main__":
    main()
