"""The ``graphblast`` command: ``info``, ``run``, ``generate``, ``convert`` and ``bench``.

    graphblast info                          devices, CUDA, versions, GPU memory
    graphblast run bfs kron:16 --source 3    run an algorithm on a file or a generated graph
    graphblast generate kron:20 g20.gbl      make a graph and write it
    graphblast convert web.mtx web.gbl       change a graph's file format
    graphblast bench --smoke --out results   the benchmark suite (graphblast.bench)

A GRAPH is a file (Matrix Market ``.mtx``, an edge list ``.el .wel .txt .tsv .csv .edges``,
any of them compressed with gzip, bzip2 or xz, or graphblast's binary format, recognized by its
first bytes) or a generator spec: ``kron:SCALE[:DEGREE]``, ``urand:SCALE[:DEGREE]``,
``g500:SCALE[:EDGE_FACTOR]``, ``rgg:SCALE`` (2^SCALE points) or ``grid:ROWSxCOLS``.

Progress appears on stderr, for steps that last over a second, when stdout is a terminal;
results go to stdout.  A mistake in the input (a missing file, a bad spec, a malformed file)
prints one line starting with ``error:`` and exits with status 1; usage errors exit with 2.
See docs/cli.md.
"""

import contextlib
import functools
import json
import os
import platform
import re
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Annotated

try:
    import typer
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
    from rich.table import Table
    from rich.text import Text
except ImportError as _missing:  # the command line is the optional "cli" extra
    typer = None
    _MISSING = _missing

__all__ = ["app", "main"]

ALGORITHMS = ("bfs", "sssp", "pagerank", "cc", "tc")
_ALIASES = {"connected_components": "cc", "components": "cc", "triangle_count": "tc",
            "triangles": "tc", "pr": "pagerank"}
# What each algorithm's result vector holds, for the output files' header.
_VALUE_NAMES = {"bfs": "level", "sssp": "distance", "pagerank": "rank", "cc": "component"}

_SPEC = re.compile(r"^(kron|urand|g500|graph500|rgg|grid):(.+)$", re.IGNORECASE)
_COMPRESSION = (".gz", ".bz2", ".xz")
_MATRIX_MARKET = (".mtx", ".mm")
_EDGE_LISTS = (".el", ".wel", ".txt", ".tsv", ".csv", ".edges", ".edgelist")
_BINARY = (".gbl",)
_BINARY_MAGIC = b"GBLAST\x00"


class UserError(Exception):
    """A mistake in what the user asked for: reported in one line, exit status 1."""


# -- output ----------------------------------------------------------------------------------
class _Output:
    """Where results and progress go: results on stdout, progress and errors on stderr."""

    def __init__(self):
        # No markup: file names, specs and messages may hold brackets.
        self.out = Console(markup=False)
        self.err = Console(stderr=True, markup=False)

    @property
    def show_progress(self):
        # Progress bars would end up in a pipe or a log file as control characters.
        return sys.stdout.isatty() and self.err.is_terminal

    @contextlib.contextmanager
    def step(self, description):
        """Show a spinner and the elapsed time for a step, once it has lasted a second."""
        if not self.show_progress:
            yield
            return
        progress = Progress(SpinnerColumn(), TextColumn("{task.description}"),
                            TimeElapsedColumn(), console=self.err, transient=True)
        progress.add_task(description, total=None)
        timer = threading.Timer(1.0, progress.start)
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            timer.cancel()
            progress.stop()


def _fail(message):
    raise UserError(message)


def _reported(command):
    """Report the user's mistakes in one line (exit status 1) instead of a traceback.

    UserError comes from this module; graphblast raises its exceptions, OSError and ValueError
    on bad input (a malformed file, a vertex out of range), with messages that say what to do.
    Anything else is a bug and keeps its traceback.
    """
    from graphblast.exceptions import GraphblasException

    @functools.wraps(command)
    def reported(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except (UserError, GraphblasException, OSError, ValueError) as exc:
            # Text, not markup: messages hold brackets such as graphblast[cuda13].
            Console(stderr=True).print(Text.assemble(("error:", "red"), " ", _one_line(exc)),
                                       soft_wrap=True)
            raise typer.Exit(code=1) from None

    return reported


# -- graphs ----------------------------------------------------------------------------------
def _device(device):
    from graphblast.backends import default_device, parse_device
    from graphblast.exceptions import InvalidValue

    if device is None:
        return default_device()
    try:
        return parse_device(device)
    except InvalidValue as err:
        _fail(str(err))


def _integer(text, what, spec):
    try:
        value = int(text)
    except ValueError:
        _fail(f"bad graph spec {spec!r}: {what} must be an integer, not {text!r}")
    if value < 0:
        _fail(f"bad graph spec {spec!r}: {what} must be >= 0, not {value}")
    return value


def is_spec(text):
    """Whether ``text`` names a generator (``kron:20``) rather than a file."""
    return bool(_SPEC.match(text)) and not os.path.exists(text)


def generate(spec, *, device, seed=None, weighted=False):
    """The Matrix a generator spec describes (see the module docstring for the forms)."""
    from graphblast import generators

    match = _SPEC.match(spec)
    if not match:
        _fail(f"bad graph spec {spec!r}: use one of kron:SCALE, urand:SCALE, g500:SCALE, "
              "rgg:SCALE or grid:ROWSxCOLS")
    family, args = match.group(1).lower(), match.group(2)
    family = "g500" if family == "graph500" else family
    if family == "grid":
        dims = re.fullmatch(r"(\d+)(?:[xX](\d+))?", args)
        if not dims:
            _fail(f"bad graph spec {spec!r}: use grid:ROWSxCOLS (for example grid:512x512)")
        rows = int(dims.group(1))
        cols = int(dims.group(2)) if dims.group(2) else rows
        return generators.grid2d(rows, cols, weights="random" if weighted else None,
                                 seed=seed, device=device)
    parts = args.split(":")
    if len(parts) > (1 if family == "rgg" else 2):
        _fail(f"bad graph spec {spec!r}: too many ':' fields")
    scale = _integer(parts[0], "SCALE", spec)
    second = _integer(parts[1], "the second field", spec) if len(parts) == 2 else None
    if family in ("kron", "urand"):
        make = generators.kron if family == "kron" else generators.urand
        return make(scale, 16 if second is None else second, seed=seed, weighted=weighted,
                    device=device)
    if weighted:
        _fail(f"{family} graphs have no weights; --weighted works with kron, urand and grid")
    if family == "g500":
        return generators.graph500(scale, 16 if second is None else second, seed=seed,
                                   device=device)
    if scale > 40:
        _fail(f"bad graph spec {spec!r}: rgg:SCALE makes 2^SCALE points; {scale} is too large")
    return generators.rgg(2 ** scale, seed=seed, device=device)


def _sniff_delimiter(path, suffix):
    """"," for a .csv file whose first data line has a comma, else None (blanks): files named
    .csv are often space-separated (SNAP, cuGraph's datasets)."""
    if suffix != ".csv":
        return None
    with open(path, "rb") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith(b"#"):
                return "," if b"," in line else None
    return None


def _suffix(path):
    """The format suffix of ``path``: its extension, after any compression suffix."""
    name = Path(path).name.lower()
    for ext in _COMPRESSION:
        if name.endswith(ext):
            name = name[: -len(ext)]
            break
    return Path(name).suffix


def read_graph(path, *, device, undirected=False, relabel=False):
    """Read a graph file (Matrix Market, edge list or graphblast binary) into a Matrix.

    An edge list's vertex ids are the matrix indices (so ``--source 5`` is the vertex written
    5) unless ``relabel`` numbers the distinct ids 0..n-1 in increasing order.
    """
    from graphblast import Matrix, io

    if not os.path.exists(path):
        hint = (" (a generator spec is family:args, for example kron:16)"
                if ":" in path else "")
        _fail(f"no such file: {path}{hint}")
    if os.path.isdir(path):
        _fail(f"{path} is a directory, not a graph file")
    with open(path, "rb") as f:
        magic = f.read(len(_BINARY_MAGIC))
    suffix = _suffix(path)
    if magic == _BINARY_MAGIC:
        obj = io.load(path, device=device)
        if not isinstance(obj, Matrix):
            _fail(f"{path} holds a {type(obj).__name__}, not a graph (a Matrix)")
        return obj
    if suffix in _MATRIX_MARKET:
        return io.mmread(path, device=device)
    if suffix in _EDGE_LISTS:
        return io.read_edgelist(path, directed=not undirected, relabel=relabel,
                                delimiter=_sniff_delimiter(path, suffix), device=device)
    _fail(f"cannot tell the format of {path} from its name: use .mtx (Matrix Market), "
          f"{', '.join(_EDGE_LISTS)} (edge lists) or a graphblast binary file (.gbl)")


def load_graph(graph, *, device, output, seed=None, weighted=False, undirected=False,
               relabel=False):
    """A generator spec or a file, as a Matrix; returns (matrix, seconds)."""
    start = time.perf_counter()
    if is_spec(graph):
        with output.step(f"generating {graph}"):
            A = generate(graph, device=device, seed=seed, weighted=weighted)
    else:
        if weighted:
            _fail("--weighted applies to generated graphs; a file's weights are its own")
        with output.step(f"reading {graph}"):
            A = read_graph(graph, device=device, undirected=undirected, relabel=relabel)
    return A, time.perf_counter() - start


def _write_text(path, columns, header):
    """Write columns of numbers as text lines, compressed by the path's suffix."""
    import bz2
    import gzip
    import lzma

    opener = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}.get(
        Path(path).suffix.lower(), open)
    sep = {".csv": ",", ".tsv": "\t"}.get(_suffix(path), " ")
    texts = [map(repr if col.dtype.kind == "f" else str, col.tolist()) for col in columns]
    with opener(path, "wt") as f:
        if header:
            f.write(header + "\n")
        f.writelines(sep.join(fields) + "\n" for fields in zip(*texts))


def write_graph(A, path):
    """Write a Matrix as Matrix Market, edge list (0-based ids) or graphblast binary."""
    from graphblast import io

    suffix = _suffix(path)
    if suffix in _BINARY:
        if Path(path).suffix.lower() in _COMPRESSION:
            _fail(f"{path}: graphblast's binary format is not compressed; drop the suffix")
        io.save(A, path)
    elif suffix in _MATRIX_MARKET:
        io.mmwrite(path, A)
    elif suffix in _EDGE_LISTS:
        rows, cols, values = A.to_coo()
        weighted = A.dtype.name != "BOOL"
        columns = [rows, cols] + ([values] if weighted else [])
        # A comment, so that read_edgelist (and graphblast run) reads the file back.
        header = f"# {A.nrows} vertices, {A.nvals} edges: source target" + (
            " weight" if weighted else "")
        _write_text(path, columns, header)
    else:
        _fail(f"cannot tell which format to write from {path}: use .gbl (graphblast binary), "
              f".mtx (Matrix Market) or {', '.join(_EDGE_LISTS)} (edge lists)")


def _write_result(result, path, algo):
    """Write an algorithm's result: a Vector (index, value) or tc's single count."""
    import numpy as np

    from graphblast import Matrix, io

    suffix = _suffix(path)
    if algo == "tc":
        if suffix not in (".txt", ".csv", ".tsv"):
            _fail("tc's result is a single number; write it to a .txt file")
        _write_text(path, [np.array([result])],
                    "triangles" if suffix == ".csv" else "# triangles")
        return
    name = _VALUE_NAMES[algo]
    if suffix in _BINARY:
        io.save(result, path)
    elif suffix in _MATRIX_MARKET:
        idx, values = result.to_coo()
        column = Matrix.from_coo(idx, idx * 0, values, result.dtype, nrows=result.size, ncols=1,
                                 device=result.device)
        io.mmwrite(path, column, comment=f"{algo}: {name} of each vertex")
    elif suffix in (".txt", ".csv", ".tsv"):
        idx, values = result.to_coo()
        header = f"vertex,{name}" if suffix == ".csv" else f"# vertex {name}"
        _write_text(path, [idx, values], header)
    else:
        _fail(f"cannot tell which format to write from {path}: use .txt, .csv, .tsv, .mtx or "
              ".gbl")


# -- algorithms ------------------------------------------------------------------------------
def _algorithm(name):
    key = _ALIASES.get(name.lower(), name.lower())
    if key not in ALGORITHMS:
        _fail(f"unknown algorithm {name!r}: use one of {', '.join(ALGORITHMS)}")
    return key


def _default_source(A):
    """The smallest vertex with an out-edge (vertex 0 of a generated graph may be isolated)."""
    from graphblast import monoid

    idx, _ = A.reduce_rowwise(monoid.any).new().to_coo()
    return int(idx[0]) if idx.size else 0


def _synchronize(device):
    # GPU work is asynchronous; the clock stops only once it is done.
    if device.startswith("cuda"):
        import cupy

        cupy.cuda.Device(int(device.split(":")[1])).synchronize()


def _run_once(algo, A, source):
    from graphblast import algorithms

    if algo == "bfs":
        return algorithms.bfs(A, source)
    if algo == "sssp":
        return algorithms.sssp(A, source)
    if algo == "pagerank":
        return algorithms.pagerank(A)
    if algo == "cc":
        return algorithms.connected_components(A)
    return algorithms.triangle_count(A, symmetrize=True)


def _summary(algo, result, A, source):
    """What a result says, as ``(key, label, value, text)``: ``value`` for JSON, ``text``
    for the table."""
    import numpy as np

    if algo == "tc":
        return [("triangles", "triangles", int(result), f"{result:,}")]
    idx, values = result.to_coo()
    if algo in ("bfs", "sssp"):
        rows = [("source", "source", source, str(source)),
                ("reached", "reached vertices", int(idx.size), f"{idx.size:,} of {A.nrows:,}")]
        if values.size:
            largest = values.max().item()
            label = "depth (largest level)" if algo == "bfs" else "largest distance"
            rows.append(("largest", label, largest, str(largest)))
        if algo == "sssp" and A.dtype.name == "BOOL":
            rows.append(("unweighted", "weights", True, "none in the graph: every edge counts 1"))
        return rows
    if algo == "pagerank":
        top = np.argsort(values, kind="stable")[::-1][:5]
        return [("sum", "sum of ranks", float(values.sum()), f"{values.sum():.6f}"),
                ("top", "top vertices", [[int(idx[i]), float(values[i])] for i in top],
                 ", ".join(f"{idx[i]} ({values[i]:.3g})" for i in top))]
    _, sizes = np.unique(values, return_counts=True)
    largest = int(sizes.max()) if sizes.size else 0
    return [("components", "components", int(sizes.size), f"{sizes.size:,}"),
            ("largest", "largest component", largest, f"{largest:,} vertices")]


# -- info ------------------------------------------------------------------------------------
def _version(dist):
    import importlib.metadata  # here: only `info` asks, and the import costs every command

    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _cuda_report():
    """What CuPy sees: a dict with ``available``, the reason when not, and the devices."""
    try:
        import cupy
    except Exception as err:  # noqa: BLE001 - any import failure means "no CuPy"
        return {"available": False, "reason": f"CuPy is not importable ({err.__class__.__name__}"
                f": {err}); install graphblast[cuda13] or graphblast[cuda12]"}
    report = {"cupy": cupy.__version__}
    try:
        runtime = cupy.cuda.runtime
        count = runtime.getDeviceCount()
        report["driver"] = runtime.driverGetVersion()
        report["runtime"] = runtime.runtimeGetVersion()
        devices = []
        for i in range(count):
            props = runtime.getDeviceProperties(i)
            with cupy.cuda.Device(i):
                free, total = runtime.memGetInfo()
            name = props["name"]
            devices.append({
                "id": f"cuda:{i}",
                "name": name.decode() if isinstance(name, bytes) else str(name),
                "compute_capability": f"{props['major']}.{props['minor']}",
                "memory_total": int(total), "memory_free": int(free),
                "multiprocessors": int(props["multiProcessorCount"]),
            })
    except Exception as err:  # noqa: BLE001 - a missing driver shows up here
        report.update(available=False, reason=f"CUDA is not usable: {err}")
        return report
    report.update(available=bool(devices), devices=devices)
    if not devices:
        report["reason"] = "CuPy found no GPU"
    return report


def _cuda_version(code):
    return f"{code // 1000}.{code % 1000 // 10}"


def info_report():
    """Everything ``graphblast info`` shows, as a dict."""
    import graphblast
    from graphblast.backends import default_device

    versions = {"graphblast": graphblast.__version__, "python": platform.python_version()}
    for dist in ("numpy", "scipy", "networkx", "cupy-cuda13x", "cupy-cuda12x",
                 "python-graphblas", "typer", "rich"):
        if (v := _version(dist)) is not None:
            versions[dist] = v
    env_device = os.environ.get("GRAPHBLAST_DEVICE")
    cuda = _cuda_report()
    device = default_device()
    if graphblast.config["device"]:
        why = "set by graphblast.config"
    elif env_device:
        why = "set by GRAPHBLAST_DEVICE"
    elif device.startswith("cuda"):
        why = "a usable GPU and CuPy were found"
    else:
        why = "no usable GPU"
    memory = None
    with contextlib.suppress(ValueError, OSError, AttributeError):
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return {
        "versions": versions,
        "default_device": device, "default_device_reason": why,
        "cpu": {"machine": platform.machine(), "system": platform.system(),
                "cores": os.cpu_count(), "memory_total": memory},
        "cuda": cuda,
    }


def graph_report(name, A):
    """What ``graphblast info GRAPH`` says of a loaded graph."""
    data = A._data
    index_bits = 8 * data.stored_indices.dtype.itemsize if hasattr(data, "stored_indices") \
        else 64
    return {"graph": name, "nrows": A.nrows, "ncols": A.ncols, "nvals": A.nvals,
            "dtype": A.dtype.name, "device": A.device, "symmetric": A.is_symmetric,
            "index_bits": index_bits, "pattern": getattr(data, "iso_value", None) is not None,
            "memory_bytes": A.memory_usage()}


def _gib(n):
    return "?" if n is None else f"{n / 2**30:.1f} GiB"


# -- the commands ----------------------------------------------------------------------------
def _make_app():
    app = typer.Typer(
        name="graphblast", no_args_is_help=True, add_completion=False,
        pretty_exceptions_enable=False,
        help="GraphBLAS on NVIDIA GPUs and NumPy/SciPy: run graph algorithms, make and "
             "convert graphs, benchmark.")
    output = _Output()
    # Options shared by several commands.
    DeviceOption = Annotated[str | None, typer.Option(
        help="cpu, cuda or cuda:N (default: graphblast's default device, see "
             "'graphblast info').")]
    SeedOption = Annotated[int | None, typer.Option(
        help="Seed of a generated graph (default: the generator's fixed default).")]
    WeightedOption = Annotated[bool, typer.Option(
        help="Generate edge weights (kron, urand, grid).")]
    UndirectedOption = Annotated[bool, typer.Option(help="Read an edge list as undirected.")]
    RelabelOption = Annotated[bool, typer.Option(
        help="Number an edge list's vertex ids 0..n-1 (default: the ids are the indices).")]
    JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
    OutArgument = Annotated[Path, typer.Argument(
        help="Output file: .gbl, .mtx or an edge list (.el, .txt, .csv, ...).")]

    @app.command()
    @_reported
    def info(
        graph: Annotated[str | None, typer.Argument(
            help="Also load this graph (a file or a spec such as kron:16) and report the "
                 "memory it occupies on its device.")] = None,
        device: DeviceOption = None,
        seed: SeedOption = None,
        weighted: WeightedOption = False,
        as_json: JsonOption = False,
    ):
        """Devices, CUDA, GPU memory and versions; with a graph, its size and memory."""
        report = info_report()
        if graph is not None:
            A, _ = load_graph(graph, device=_device(device), seed=seed, weighted=weighted,
                              output=output)
            report["graph"] = graph_report(graph, A)
        if as_json:
            output.out.print_json(json.dumps(report))
            return
        table = Table(title="graphblast", show_header=False)
        table.add_column(style="bold")
        table.add_column()
        if graph is not None:
            g = report["graph"]
            table.add_row("graph", f"{g['graph']}: {g['nrows']:,} x {g['ncols']:,}, "
                                   f"{g['nvals']:,} entries, {g['dtype']}, on {g['device']}"
                                   + (", symmetric (its own transpose)"
                                      if g["symmetric"] else ""))
            table.add_row("graph memory", f"{g['memory_bytes']:,} bytes "
                                          f"({_gib(g['memory_bytes'])}) on {g['device']}: "
                                          f"{g['index_bits']}-bit column indices, "
                                          + ("no value array (a pattern: every value 1)"
                                             if g["pattern"] else "a value array"))
        table.add_row("default device", f"{report['default_device']} "
                                        f"({report['default_device_reason']})")
        cpu = report["cpu"]
        table.add_row("CPU", f"{cpu['cores']} cores, {_gib(cpu['memory_total'])} memory, "
                             f"{cpu['system']} {cpu['machine']}")
        cuda = report["cuda"]
        if "driver" in cuda:
            table.add_row("CUDA", f"driver {_cuda_version(cuda['driver'])}, runtime "
                                  f"{_cuda_version(cuda['runtime'])}, CuPy {cuda['cupy']}")
        if not cuda.get("available"):
            table.add_row("GPU", cuda.get("reason", "none"))
        for gpu in cuda.get("devices", []):
            table.add_row(gpu["id"], f"{gpu['name']} (compute {gpu['compute_capability']}, "
                                     f"{gpu['multiprocessors']} SMs), "
                                     f"{_gib(gpu['memory_free'])} free of "
                                     f"{_gib(gpu['memory_total'])}")
        for name, version in report["versions"].items():
            table.add_row(name, version)
        output.out.print(table)

    @app.command(no_args_is_help=True)
    @_reported
    def run(
        algo: Annotated[str, typer.Argument(help="bfs, sssp, pagerank, cc or tc.")],
        graph: Annotated[str, typer.Argument(help="A graph file or a spec such as kron:16.")],
        device: DeviceOption = None,
        source: Annotated[int | None, typer.Option(
            help="Start vertex of bfs and sssp (default: the smallest vertex with an "
                 "out-edge).")] = None,
        out: Annotated[Path | None, typer.Option(
            help="Write the result: .txt, .csv, .tsv (vertex value lines), .mtx or "
                 ".gbl.")] = None,
        seed: SeedOption = None,
        weighted: WeightedOption = False,
        undirected: UndirectedOption = False,
        relabel: RelabelOption = False,
        repeat: Annotated[int, typer.Option(
            min=1, help="Run this many times; report the median.")] = 1,
        as_json: JsonOption = False,
    ):
        """Run an algorithm on a graph file or a generated graph."""
        algo = _algorithm(algo)
        dev = _device(device)
        A, load_seconds = load_graph(graph, device=dev, seed=seed, weighted=weighted,
                                     undirected=undirected, relabel=relabel, output=output)
        if algo in ("bfs", "sssp"):
            source = _default_source(A) if source is None else source
        elif source is not None:
            _fail(f"--source applies to bfs and sssp, not {algo}")
        times = []
        with output.step(f"running {algo} on {A.nrows:,} vertices, {A.nvals:,} edges"):
            for _ in range(repeat):
                start = time.perf_counter()
                result = _run_once(algo, A, source)
                _synchronize(dev)
                times.append(time.perf_counter() - start)
        seconds = statistics.median(times)
        if out is not None:
            with output.step(f"writing {out}"):
                _write_result(result, os.fspath(out), algo)
        lines = _summary(algo, result, A, source)
        report = {"algorithm": algo, "graph": graph, "device": dev, "vertices": A.nrows,
                  "stored_edges": A.nvals, "load_seconds": load_seconds, "seconds": seconds,
                  "runs": repeat, "gteps": A.nvals / seconds / 1e9 if seconds > 0 else None,
                  "result": {key: value for key, _, value, _ in lines},
                  "out": None if out is None else os.fspath(out)}
        if as_json:
            output.out.print_json(json.dumps(report))
            return
        table = Table(title=f"{algo} on {graph}", show_header=False)
        table.add_column(style="bold")
        table.add_column()
        table.add_row("graph", f"{A.nrows:,} vertices, {A.nvals:,} stored edges ({A.dtype.name})")
        table.add_row("device", dev)
        table.add_row("load", f"{load_seconds:.3f} s")
        timing = f"{seconds * 1e3:.3f} ms" + (f" (median of {repeat})" if repeat > 1 else "")
        table.add_row("time", timing)
        if report["gteps"] is not None:
            table.add_row("GTEPS", f"{report['gteps']:.3f} (stored edges / time)")
        for _, label, _, text in lines:
            table.add_row(label, text)
        if out is not None:
            table.add_row("written to", os.fspath(out))
        output.out.print(table)

    @app.command("generate", no_args_is_help=True)
    @_reported
    def generate_command(
        spec: Annotated[str, typer.Argument(
            help="kron:SCALE[:DEGREE], urand:SCALE[:DEGREE], g500:SCALE[:EDGE_FACTOR], "
                 "rgg:SCALE or grid:ROWSxCOLS.")],
        out: OutArgument,
        device: DeviceOption = None,
        seed: SeedOption = None,
        weighted: WeightedOption = False,
    ):
        """Generate a graph and write it to a file."""
        if not _SPEC.match(spec):
            _fail(f"bad graph spec {spec!r}: use one of kron:SCALE, urand:SCALE, g500:SCALE, "
                  "rgg:SCALE or grid:ROWSxCOLS")
        dev = _device(device)
        with output.step(f"generating {spec}"):
            A = generate(spec, device=dev, seed=seed, weighted=weighted)
        with output.step(f"writing {out}"):
            write_graph(A, os.fspath(out))
        output.out.print(f"wrote {out}: {A.nrows:,} vertices, {A.nvals:,} stored edges "
                         f"({A.dtype.name})")

    @app.command(no_args_is_help=True)
    @_reported
    def convert(
        source: Annotated[str, typer.Argument(
            help="Input graph file (or a generator spec).")],
        out: OutArgument,
        undirected: UndirectedOption = False,
        relabel: RelabelOption = False,
    ):
        """Convert a graph file to another format (chosen by the output's extension)."""
        A, _ = load_graph(source, device="cpu", undirected=undirected, relabel=relabel,
                          output=output)
        with output.step(f"writing {out}"):
            write_graph(A, os.fspath(out))
        output.out.print(f"wrote {out}: {A.nrows:,} vertices, {A.nvals:,} stored edges "
                         f"({A.dtype.name})")

    @app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True,
                                   "help_option_names": []})
    @_reported
    def bench(ctx: typer.Context):
        """The benchmark suite: arguments go to graphblast.bench (try 'graphblast bench -h')."""
        try:
            from graphblast.bench import main as bench_main
        except ImportError as err:
            _fail(f"graphblast bench is not available in this installation ({err})")
        status = bench_main(list(ctx.args))
        raise typer.Exit(code=status or 0)

    return app


app = _make_app() if typer is not None else None


def main(argv=None):
    """The ``graphblast`` entry point: runs the command line and exits with its status."""
    if typer is None:
        print(f"error: graphblast's command line needs typer and rich ({_MISSING}); install "
              "them with: pip install 'graphblast[cli]'", file=sys.stderr)
        sys.exit(1)
    app(args=argv, prog_name="graphblast")


def _one_line(exc):
    text = str(exc).strip() or exc.__class__.__name__
    if isinstance(exc, OSError) and exc.filename and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}"
    return " ".join(text.split())


if __name__ == "__main__":
    main()
