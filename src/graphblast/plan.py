"""Cost models behind the backends' and the algorithms' choices.

Each decision is one function returning ``(choice, reason)``; the choice can be forced through
``gb.config`` and every decision is logged at debug level on the ``graphblast`` logger.
"""

import logging
import math

from .config import config

logger = logging.getLogger("graphblast")


def _log(decision, choice, reason):
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("%s: %s (%s)", decision, choice, reason)
    return choice, reason


def direction(push_work, pull_work, nu=None, n=None, *, previous=None, bound=False,
              push_weight=1, miss_weight=1, first_hit_rows=None, nvals=0):
    """Push (expand the vector's entries) or pull (visit every allowed row) for mxv/vxm.

    Beamer's direction optimization, for any semiring.  ``push_work`` is the exact number of
    products push makes (the vector's degree sum, summed on the device); ``pull_work`` the
    entries pull may visit (the matrix's entries in the rows the mask allows, or fewer when
    each row stops at its first product: ``first_hit_rows`` of a matrix of ``nvals``
    entries, see ``first_hit_work``).  Push wins when it does at
    most ``config["direction_switch"]`` (1/alpha) of pull's work.
    Hysteresis: after a pull (``previous``), the next step pushes again only once the vector
    has fewer than ``n / config["direction_beta"]`` of the ``n`` outputs' entries, so that
    a frontier that grows and shrinks does not flap.  ``bound``: ``push_work`` is an upper
    bound (entries x the largest degree), not the exact sum.  ``push_weight``: what one
    pushed product costs over BFS's (a fold by compare-and-swap under contention costs more;
    the backend says), multiplying ``push_work`` before the comparison and ``beta`` after a
    pull.  ``miss_weight``: what one pushed product costs over one whose writes stay in the
    cache (the backend says, from the output's size), in the comparison only: after a pull
    the count rule holds, as push's output is then small.
    """
    forced = config["direction"]
    if forced != "auto":
        return _log("direction", forced, "forced by gb.config")
    choice = choose_direction(push_work, pull_work, first_hit_rows, nvals, nu, n, previous,
                              bound, push_weight, miss_weight)
    pull_work = first_hit_work(pull_work, push_work, nvals, first_hit_rows)
    return choice, _direction_reason(choice, push_work, pull_work, nu, n, previous, bound,
                                     push_weight, miss_weight)


def choose_direction(push_work, pull_work, first_hit_rows, nvals, nu, n, previous, bound,
                     push_weight, miss_weight):
    """:func:`direction`'s rule alone, for a caller that has found the direction not forced:
    the choice, its reason formatted only for the debug log.  ``pull_work`` is the entries
    of the rows the mask allows; with ``first_hit_rows`` (not None: an "any" monoid, whose
    rows stop at their first product; ``nvals``: the matrix's entries) the rule lowers it to
    :func:`first_hit_work` itself.  A ``bound`` that does not settle push is not a decision
    (the caller then finds the exact sum) and is not logged.

    This is the backends' per-call path (every planned product): positional arguments, the
    settings read by the dict's own lookup, the rule and the early stop in one frame
    (formatting the reason cost several microseconds a product; a keyword call, the forced
    check, a second frame for the rule and one for the early stop each cost a tenth of a
    microsecond or more in a loop, and about three times that inside a real call, whose
    GPU wait leaves the host's caches cold: benchmarks/hostpath/ and an H100's host)."""
    setting = config.lookup
    if previous == "pull" and nu is not None and n:  # the hysteresis: the count decides
        choice = "pull" if nu * (setting("direction_beta") * push_weight) >= n else "push"
    else:
        if first_hit_rows is not None and push_work > 0:
            work = first_hit_rows * nvals / push_work  # first_hit_work, inlined
            if work < pull_work:
                pull_work = work
        choice = ("pull" if push_work * (push_weight * miss_weight)
                  > setting("direction_switch") * pull_work else "push")
    if logger.isEnabledFor(logging.DEBUG) and not (bound and choice == "pull"):
        logger.debug("%s: %s (%s)", "direction", choice, _direction_reason(
            choice, push_work, pull_work, nu, n, previous, bound, push_weight, miss_weight))
    return choice


def _direction_reason(choice, push_work, pull_work, nu, n, previous, bound, push_weight,
                      miss_weight):
    """The numbers behind choose_direction's ``choice``, in words."""
    pull = choice == "pull"
    if previous == "pull" and nu is not None and n:
        beta = config["direction_beta"] * push_weight
        return f"after a pull, vector entries {nu} {'>=' if pull else '<'} {n} / {beta:g}"
    weight = push_weight * miss_weight
    return (f"push work {'at most ' if bound and not pull else ''}{push_work}"
            f"{'' if weight == 1 else f' x {weight:.3g}'} {'>' if pull else '<='} "
            f"{config['direction_switch']:g} x pull work {pull_work:.0f}")


def first_hit_work(pull_work, push_work, nvals, rows):
    """The entries a pull visits when each row stops at its first product (an "any" monoid):
    an entry falls in the vector's set with probability ``push_work / nvals`` (the vector's
    degree sum counts exactly the entries whose column it holds), so each of the ``rows``
    rows that may be visited scans about ``nvals / push_work`` entries before it stops; never
    more than ``pull_work``.  ``rows`` None: no early stop, ``pull_work`` itself.
    (:func:`choose_direction` computes the same in its own frame.)"""
    if rows is None or push_work <= 0:
        return pull_work
    work = rows * nvals / push_work
    return work if work < pull_work else pull_work



# Masked mxm's direction (C<M> = A (+.x) B, A a batch of frontiers): the costs of the two
# ways in units of one entry a pull visits.  Push expands every product (an entry of A times a
# row of B: a key and a value written, sorted and reduced) at MXM_PUSH_COST units a product;
# pull walks, for each output the mask allows, B's column (a row of B') until the monoid's
# terminal, and pays MXM_PULL_POSITION_COST for each of the nrows(A) x ncols(B) positions it
# must mark, test and compact.  Measured on an H100 over every step of kron-22's 64-source BFS
# (bench --batched direction): push 0.20 ns a product, pull 0.014 ns a visit and 0.058 ns a
# position, hence 15 and 4.  After a pull, push again only once it is MXM_HYSTERESIS times
# cheaper than pull, so a frontier near the balance does not flap.
MXM_PUSH_COST = 15.0
MXM_PULL_POSITION_COST = 4.0
MXM_HYSTERESIS = 2.0


def mxm_direction(push_work, pull_work, positions, *, first_hit_rows=None, nvals=0, rows=1,
                  previous=None):
    """("push" or "pull", reason) for a masked mxm ``C<M> = A (+.x) B`` whose A is a batch of
    ``rows`` frontiers (see the constants above).

    ``push_work``: the products push makes, exactly (the degree sum over B of A's entries,
    summed on the device); ``pull_work``: the entries of B' that pull may visit (the in-degree
    sum over the outputs the mask allows); ``positions``: the outputs pull must lay out
    (nrows(A) x ncols(B)).  ``first_hit_rows`` (an "any" monoid, whose outputs stop at their
    first product): the outputs the mask allows, with ``nvals`` the entries of B, lower
    pull's work to :func:`first_hit_work` per frontier.  ``previous``: the direction of the
    last step of this traversal (hysteresis).  ``pull_work`` None: push was settled by
    :func:`mxm_push_settled` without it.  ``config["direction"]`` forces either."""
    forced = config["direction"]
    if forced != "auto":
        return _log("mxm direction", forced, "forced by gb.config")
    margin = MXM_HYSTERESIS if previous == "pull" else 1.0
    push_cost = push_work * MXM_PUSH_COST
    if pull_work is None:  # settled by pull's positions alone (mxm_push_settled)
        return _log("mxm direction", "push", (
            f"push {push_work} products x {MXM_PUSH_COST:g}"
            f"{f' x {margin:g} after a pull' if margin != 1 else ''} <= pull's {positions} "
            f"positions x {MXM_PULL_POSITION_COST:g} alone"))
    if first_hit_rows is not None and rows:
        pull_work = first_hit_work(pull_work, push_work / rows, nvals, first_hit_rows)
    pull_cost = pull_work + positions * MXM_PULL_POSITION_COST
    choice = "push" if push_cost * margin <= pull_cost else "pull"
    return _log("mxm direction", choice, (
        f"push {push_work} products x {MXM_PUSH_COST:g}"
        f"{f' x {margin:g} after a pull' if margin != 1 else ''} "
        f"{'<=' if choice == 'push' else '>'} pull {pull_work:.0f} visits + {positions} "
        f"positions x {MXM_PULL_POSITION_COST:g}"))


def mxm_pull_settled(push_work, most_visits, positions, previous=None):
    """Whether pull wins :func:`mxm_direction` whatever the mask leaves out: push costs more
    than pull would if it visited ``most_visits`` (under a complemented mask, every entry of
    B for every frontier: ``nrows(A) x nvals(B)``).  Then :func:`mxm_direction` is called
    with that bound as ``pull_work`` (the dense steps of a traversal skip the pass over the
    mask that counts pull's visits exactly)."""
    margin = MXM_HYSTERESIS if previous == "pull" else 1.0
    return push_work * MXM_PUSH_COST * margin > most_visits + positions * MXM_PULL_POSITION_COST


def mxm_push_settled(push_work, positions, previous=None):
    """Whether push wins :func:`mxm_direction` whatever pull's visits: its cost is within
    what pull pays for its ``positions`` alone.  The backends ask this first, so that a
    small frontier's step costs no pass over the mask (pull's visits are the in-degrees of
    every output the mask allows); then they call :func:`mxm_direction` with ``pull_work``
    None.  Not asked when the direction is forced."""
    margin = MXM_HYSTERESIS if previous == "pull" else 1.0
    return push_work * MXM_PUSH_COST * margin <= positions * MXM_PULL_POSITION_COST


# The masked mxm over bitmaps by column (the GPU's batched traversals, backends/cuda/bitmap.py),
# in units of one pushed product (a claimed byte and a folded value, a warp's lanes side by
# side): pull pays MXM_BITMAP_VISIT_COST for each entry of B's columns an allowed output
# scans (32 outputs of a column read each entry once), and both pay about the same pass over
# the positions (push tests the frontier's byte at each, pull the mask's and writes the
# result's), which cancels out.  After a pull, push must be MXM_BITMAP_HYSTERESIS times
# cheaper.
MXM_BITMAP_VISIT_COST = 0.25
MXM_BITMAP_HYSTERESIS = 1.25
# A push from a list frontier under a list mask expands, sorts and reduces its products into a
# list (0.20 ns a product on an H100, above); into bitmaps it pays about four bytes a
# position instead (the frontier laid out, the result's bytes zeroed and read: about 0.0016
# ns a position at an H100's bandwidth).  The list push is taken while its products are at
# most MXM_LIST_PUSH_SHARE of the positions.
MXM_LIST_PUSH_SHARE = 1 / 128


def mxm_bitmap_direction(push_work, pull_visits, positions, *, previous=None):
    """("push" or "pull", reason) for ``C<!M> = F (+.x) B`` over bitmaps: ``push_work`` the
    products push makes (the degree sum of F's entries, exact), ``pull_visits`` the entries
    of B' the allowed outputs scan (see ``first_hit_work`` for an "any" monoid),
    ``positions`` nrows(F) x ncols(B) (in the reason only).  ``config["direction"]`` forces
    either."""
    forced = config["direction"]
    if forced != "auto":
        return _log("mxm direction", forced, "forced by gb.config")
    margin = MXM_BITMAP_HYSTERESIS if previous == "pull" else 1.0
    pull_cost = pull_visits * MXM_BITMAP_VISIT_COST
    choice = "push" if push_work * margin <= pull_cost else "pull"
    return _log("mxm direction", choice, (
        f"bitmaps of {positions} positions: push {push_work} products"
        f"{f' x {margin:g} after a pull' if margin != 1 else ''} "
        f"{'<=' if choice == 'push' else '>'} pull {pull_visits:.0f} visits x "
        f"{MXM_BITMAP_VISIT_COST:g}"))


# A structural product (pair under any or lor, BOOL) over packed bitmaps (a bit a position,
# one 64-bit word a column for 64 rows: backends/cuda/packed.py) costs an 8-byte word a
# visited entry of B either way: push reads the rows of B of the frontier's nonzero words and
# ORs into the result's words (atomics, skipped where the word has the bits already), pull
# reads the columns of B of the words with an allowed bit, stopping once all are found.  The
# allowed positions counted are those of B's columns with an entry: a column without one
# (an isolated vertex) is never reached and costs pull no scan (kron-22's 64-source BFS reaches 2.4 of its 4.2 million vertices).  Three rules, in
# order:
#
# * A push of at most MXM_PACKED_THIN_PUSH entries a result word pushes: its few rows cost
#   less than pull's own pass over the words (an index pair read for each allowed word).
#   An H100's 64-source BFS on kron-22 (the record's batched-direction/): at step 6 push
#   walked 1,123 entries in 0.175 ms where pull took 0.195; at step 5 it walked 370,544 in
#   0.233 ms (latency-bound: a lane walks a short row entry by entry) where pull took 0.184.
#   Push's extra time per entry (0.19 ns) meets pull's extra pass (20 us for 4.2 million
#   words) at about one entry for 40 words.
# * Where the frontier holds at least MXM_PACKED_PULL_DENSITY of the allowed positions (half
#   that after a pull), pull: most allowed bits are found within a few entries (a 64-source
#   BFS on kron-18, simulated: at 6.8%, 49% and 28% of the allowed positions pull visits 3.9
#   million, 0.19 million and 8,600 entries where push walks 7.5, 7.6 and 2.1 million;
#   kron-22's step 5 above, its frontier about all of the allowed positions left, pulls).
# * Below it, pull's scans mostly run to the end: push is taken where its entries times
#   MXM_PACKED_PUSH_COST are at most the allowed words' entries (an atomic against a plain
#   read); after a pull, push must also win by MXM_BITMAP_HYSTERESIS.  On kron-22: push 15.2
#   ps an entry at step 2 (125 million entries, 1.90 ms), a full pull 13.0 ps an estimated
#   entry at step 1 (128 million, 1.67 ms), and at step 2, where the frontier holds 2% of
#   the allowed positions, pull's early stops bring it to 1.41 ms: push costs 1.3 times pull
#   an entry there.
MXM_PACKED_THIN_PUSH = 1 / 40
MXM_PACKED_PULL_DENSITY = 0.05
MXM_PACKED_PUSH_COST = 1.3


def mxm_packed_direction(push_edges, pull_edges, positions, *, frontier=0, allowed=0,
                         words=0, previous=None):
    """("push" or "pull", reason) for a structural ``C<M> = F (+.x) B`` over packed bitmaps:
    ``push_edges`` the entries of B the frontier's nonzero words push along (their degree
    sum), ``pull_edges`` those the allowed words' columns hold (an estimate: the words with
    an allowed bit times the average degree of B's columns with an entry), ``frontier`` F's
    entries, ``allowed`` the positions the mask allows in B's columns with an entry,
    ``words`` the result's words (pull's pass), ``positions`` nrows(F) x ncols(B) (in the
    reason only).  ``config["direction"]`` forces either."""
    forced = config["direction"]
    if forced != "auto":
        return _log("mxm direction", forced, "forced by gb.config")
    if push_edges <= words * MXM_PACKED_THIN_PUSH:
        return _log("mxm direction", "push", (
            f"packed bitmaps of {positions} positions: push {push_edges} entries <= "
            f"{MXM_PACKED_THIN_PUSH:g} x {words} words"))
    density = MXM_PACKED_PULL_DENSITY * (0.5 if previous == "pull" else 1.0)
    if allowed and frontier >= density * allowed:
        return _log("mxm direction", "pull", (
            f"packed bitmaps of {positions} positions: frontier {frontier} >= {density:g} x "
            f"{allowed} allowed"))
    margin = MXM_BITMAP_HYSTERESIS if previous == "pull" else 1.0
    choice = "push" if push_edges * MXM_PACKED_PUSH_COST * margin <= pull_edges else "pull"
    return _log("mxm direction", choice, (
        f"packed bitmaps of {positions} positions: push {push_edges} entries"
        f"{f' x {margin:g} after a pull' if margin != 1 else ''} "
        f"{'<=' if choice == 'push' else '>'} pull {pull_edges:.0f} entries"))


# A list frontier under a list mask (a traversal's first step) could push as a list instead
# (expand, sort, reduce: 0.20 ns a product) rather than over packed words (about five passes
# over the ncols x W words: 40 bytes a word, 0.013 ns at an H100's 3 TB/s, and five launches).
# The list's own steps wait for the GPU three times (the products' count, the runs' count):
# on kron-22 a 64-source BFS's first step took 1.2 ms as a list for 4,756 products
# (profiled, every primitive synchronized), where its words (4.2 million) cost about 0.1 ms.
# The list push is taken where its products and that fixed cost are cheaper than the words.
MXM_LIST_PRODUCT_NS = 0.20
MXM_LIST_FIXED_NS = 1_000_000
MXM_PACKED_WORD_NS = 0.013
MXM_PACKED_FIXED_NS = 25_000


def mxm_packed_list_push(products, words):
    """Whether a structural product of ``products`` products from a list frontier under a
    list mask pushes as a list rather than over ``words`` packed words."""
    return (products * MXM_LIST_PRODUCT_NS + MXM_LIST_FIXED_NS
            < words * MXM_PACKED_WORD_NS + MXM_PACKED_FIXED_NS)


# SpGEMM (mxm without a mask) on the GPU: rows of at most HASH_ROW_PRODUCTS products fold
# them in a hash table in shared memory, a warp per row (GBK_HASH_TABLE / 2 in spgemm.cuh);
# otherwise every product is expanded, sorted and reduced.  The hash's atomics fold the
# products in no fixed order, so it takes only monoids whose result does not depend on it:
# min and max, and plus or times on integers (any keeps the smallest k, and a float sum
# rounds by its order, on the sorted path).
HASH_ROW_PRODUCTS = 256
ORDER_FREE_MONOIDS = frozenset({"min", "max"})
ORDER_FREE_ON_INTEGERS = frozenset({"plus", "times"})


def spgemm_method(monoid_name, integer, longest_row_products):
    """("hash" or "sort", reason) for an mxm without a mask (see the constants above), from
    the monoid's name, whether its type is an integer, and the most products a row of the
    result makes.  ``config["spgemm"] = "sort"`` keeps every product on the sorted path."""
    if not (monoid_name in ORDER_FREE_MONOIDS
            or (integer and monoid_name in ORDER_FREE_ON_INTEGERS)):
        return _log("spgemm", "sort", f"{monoid_name}'s fold depends on the products' order")
    if config["spgemm"] == "sort":
        return _log("spgemm", "sort", "forced by gb.config")
    if longest_row_products > HASH_ROW_PRODUCTS:
        return _log("spgemm", "sort", f"a row of {longest_row_products} products > "
                                      f"{HASH_ROW_PRODUCTS}")
    return _log("spgemm", "hash", f"at most {longest_row_products} products a row <= "
                                  f"{HASH_ROW_PRODUCTS}")


# Vectors up to this size may always be held as a bitmap on the GPU (n bytes of presence and
# n values: 2.25 GiB for an FP64 vector of 2^28 entries); larger ones only when dense enough.
BITMAP_ALWAYS = 1 << 28
BITMAP_DENSITY = 1 / 16


def vector_format(size, nvals):
    """"bitmap" or "sparse" for a vector about to be updated in place on the GPU (``nvals``:
    its entry count if the host knows it, else None)."""
    if size <= BITMAP_ALWAYS:
        return _log("vector format", "bitmap", f"size {size} <= {BITMAP_ALWAYS}")
    if nvals is not None and nvals >= BITMAP_DENSITY * size:
        return _log("vector format", "bitmap",
                    f"{nvals} entries >= {BITMAP_DENSITY:g} of size {size}")
    return _log("vector format", "sparse",
                f"size {size} > {BITMAP_ALWAYS} and entries {nvals} below "
                f"{BITMAP_DENSITY:g} of it (or not known)")


# Matrices of at most MATRIX_BITMAP_POSITIONS positions may be held as bitmaps by column on
# the GPU (a batched traversal's ns x n state: 2^28 positions for 64 sources over kron-22's 4
# million vertices).
MATRIX_BITMAP_POSITIONS = 1 << 30


# SSSP's path doubling (algorithms/sssp.py): min(A, A min.+ A) holds for every pair the
# lightest path of at most two hops, so the distances over it are A's in half the rounds.  On
# a GPU a round costs about SQUARE_ROUND_SECONDS whatever its work (its launches and host
# steps), a square SQUARE_FIXED_SECONDS (the product's and the minimum's launches and reads)
# plus SQUARE_MULTIPLY_SECONDS a multiply, and a squaring multiplied the entries (and the
# longest row) by about SQUARE_GROWTH.  Measured on the H200
# (benchmarks/profiling/sssp_path_doubling.py): grid-2048 1,466 ms over A (about 4,500 rounds, 330 us each), 854 over its
# square (13.0 entries a row, built in 27 ms from 67 million multiplies), 346 over the
# square's square (40.9 a row, 163 ms from 708 million); rgg-22 491 ms over A and 275 over
# its square (44.6 entries a row from 14.5, built in 203 ms), each bucket a loop of its own.
# With delta-stepping one loop on the device a round is 15 kernels and the loop's end
# (docs/algorithms.md): SQUARE_ROUND_SECONDS prices their latency, 2-3 us a kernel; the H100
# measures 65 us a round with its work (grid-2048: 2,173 rounds in 141.7 ms), which makes the
# same choices on the default graphs: grid-2048 squared once, rgg-22 not.  On a CPU a round
# costs its work, which the square multiplies: it never squares by itself; nor on a group of
# devices, whose rounds and memory are not measured.
SQUARE_ROUND_SECONDS = 40e-6
SQUARE_FIXED_SECONDS = 1e-3
SQUARE_MULTIPLY_SECONDS = 0.25e-9
SQUARE_GROWTH = 3.2
MAX_SQUARINGS = 3
# A square may take up to this many bytes a multiply (the product's temporaries, the square,
# delta-stepping's light and heavy copies of it); it is made only within half the free memory.
SQUARE_BYTES_PER_MULTIPLY = 32


def sssp_squarings(A, rounds, reached):
    """(squarings, reason): how many times sssp squares its matrix ``A`` before
    delta-stepping, after ``rounds`` rounds of Bellman-Ford that reached ``reached`` vertices
    (see the constants above).

    The rounds left are estimated as for a graph that grows in two dimensions (grids, meshes,
    road and geometric graphs): ``rounds x (sqrt(n / reached) - 1)``.  A squaring makes at
    most ``nvals x`` the longest row's multiplies (a hub's row makes a square too costly to
    try).  A is squared while the rounds a squaring saves, half of those left, cost more than
    its multiplies, and its bytes fit in half the device's free memory.
    ``config["sssp_squarings"]`` forces a count."""
    forced = config["sssp_squarings"]
    if forced != "auto":
        return _log("sssp squarings", forced, "forced by gb.config")
    one_gpu = A.device.startswith("cuda:") and A.device[5:].isdigit()
    if not one_gpu or not rounds or not reached or A.nvals == 0:
        return _log("sssp squarings", 0, f"no squaring on {A.device} after {rounds} rounds")
    from .dtypes import INT64
    from .ops import monoid, unary

    longest = A.apply(unary.one[INT64]).new().reduce_rowwise(monoid.plus).new().reduce(
        monoid.max).new().value
    left = rounds * (math.sqrt(A.nrows / reached) - 1)
    return _log("sssp squarings", *squarings_rule(A.nrows, A.nvals, longest, left,
                                                  SQUARE_ROUND_SECONDS, _free_bytes(A.device)))


def _free_bytes(device):
    """Bytes that new arrays can take on a GPU ``device`` now."""
    import cupy

    from ._memory import available_bytes

    with cupy.cuda.Device(int(device.split(":")[1])):
        return available_bytes(cupy)


def squarings_rule(n, nvals, longest, left, per_round, free=None):
    """(squarings, reason) by the rule of :func:`sssp_squarings`, from numbers: ``n`` rows,
    ``nvals`` entries, the ``longest`` row, about ``left`` rounds left, ``per_round``
    seconds a round, ``free`` bytes of memory (None: not a bound)."""
    k = 0
    while k < MAX_SQUARINGS and left / 2 * per_round > (
            SQUARE_FIXED_SECONDS + nvals * longest * SQUARE_MULTIPLY_SECONDS) and (
            free is None or nvals * longest * SQUARE_BYTES_PER_MULTIPLY <= free / 2):
        k, left = k + 1, left / 2
        nvals, longest = min(n * n, nvals * SQUARE_GROWTH), min(n, longest * SQUARE_GROWTH)
    return k, (f"{k} squarings: then about {left:.0f} rounds left, and one more would cost up "
               f"to {nvals * longest:.3g} multiplies for {left / 2:.0f} rounds")
