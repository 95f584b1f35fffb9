"""Each algorithm stays as short as the GraphBLAST paper's appendix: at most 40 logic lines
per module (code lines outside docstrings and comments, its helpers included)."""

import ast
import pathlib

import pytest

import graphblast.algorithms as algorithms

MODULES = ["bfs", "sssp", "pagerank", "connected_components", "triangle_count",
           "core_number", "k_truss", "label_propagation", "local_clustering_coefficient",
           "hits", "katz_centrality", "eigenvector_centrality",
           "strongly_connected_components", "maximal_independent_set", "jaccard", "louvain",
           "leiden", "_rows", "_moves", "_modularity", "bfs_batch", "betweenness",
           "edge_betweenness", "betweenness_weighted", "_loops", "greedy_coloring",
           "semisynchronous_label_propagation", "_gains"]


def logic_lines(path):
    src = path.read_text()
    tree = ast.parse(src)
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Module)) and \
                ast.get_docstring(node):
            doc = node.body[0]
            docstrings.update(range(doc.lineno, doc.end_lineno + 1))
    lines = src.splitlines()
    count = 0
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            for number in range(node.lineno, node.end_lineno + 1):
                text = lines[number - 1].strip()
                if text and not text.startswith("#") and number not in docstrings:
                    count += 1
    return count


@pytest.mark.parametrize("name", MODULES)
def test_at_most_40_logic_lines(name):
    path = pathlib.Path(algorithms.__file__).parent / f"{name}.py"
    assert logic_lines(path) <= 40, f"{name}: {logic_lines(path)} logic lines"
