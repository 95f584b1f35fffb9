"""Vectorized tokenizing and number parsing for the text readers (Matrix Market, edge lists).

The readers never hand untrusted bytes to a parser written in C that might crash on them
(SciPy's bundled reader dies on a NUL byte in a data line).  Every step here is NumPy:

1. :meth:`Text.check_alphabet` refuses any byte outside the small set a field may use (digits,
   signs, ``.eE`` and the letters of ``inf``/``nan`` for reals, blanks and newlines).
2. :meth:`Text.tokenize` finds every token, and :meth:`Tokens.entries` checks that every line
   holds the expected number of them.
3. :meth:`Text.parse_integers` and :meth:`Text.parse_floats` convert tokens, checking the whole
   token: ``1,5``, ``0x10``, ``1.5junk``, ``1.5.3`` and ``1e`` are errors, never a prefix read
   as a number.

Integers are converted eight digits at a time inside one uint64 (the "SWAR" technique of
simdjson); plain decimal reals from those digits with exactly rounded arithmetic
(:meth:`Text._decimals`), and the other reals by NumPy's bytes-to-float cast, which applies
Python's ``float()`` rules.
Problems raise :class:`TokenError` with a byte offset; the reader turns that into
:class:`~graphblast.exceptions.InvalidValue` naming the file and line.
"""

import decimal

import numpy as np
from numpy.lib.stride_tricks import as_strided

__all__ = [
    "DIGITS",
    "INTEGER_CHARS",
    "REAL_CHARS",
    "LineCountError",
    "Text",
    "TokenError",
    "Tokens",
    "blank_comments",
    "chunks",
]

DIGITS = b"0123456789"
BLANKS = b" \t\r"  # separators inside a line; "\n" ends it ("\r\n" line ends work)
INTEGER_CHARS = DIGITS + b"+-"
REAL_CHARS = INTEGER_CHARS + b".eE" + b"infatyINFATY"  # inf, infinity and nan, any case

_PAD = 64  # blank bytes around a chunk, so fixed-width windows never leave the buffer
_LONG_FLOAT = 48  # longer real tokens are rare; they are converted one by one
_FLOAT_BATCH = 1 << 18  # tokens per batch when gathering real text (bounds temporary memory)
_U64 = np.uint64
_ZEROS8 = _U64(0x3030303030303030)  # eight ASCII '0'
_HIGH_NIBBLES = _U64(0xF0F0F0F0F0F0F0F0)
_SIXES = _U64(0x0606060606060606)


class TokenError(Exception):
    """A problem at byte ``pos`` of a chunk of text."""

    def __init__(self, pos, message):
        super().__init__(message)
        self.pos = int(pos)
        self.message = message


class LineCountError(Exception):
    """A line (0-based, within the chunk) holds the wrong number of tokens."""

    def __init__(self, line, found):
        super().__init__(f"line {line} has {found} tokens")
        self.line = int(line)
        self.found = int(found)


CHUNK = 1 << 20  # bytes parsed at a time: small enough for the temporaries to stay in cache


def chunks(buf, start, first_line, size=None):
    """Pieces of ``buf[start:]`` that end at a line end, with the (1-based) file line each
    starts on."""
    size = CHUNK if size is None else size
    line = first_line
    n = len(buf)
    while start < n:
        end = min(start + size, n)
        if end < n:
            cut = buf.rfind(b"\n", start, end)
            end = cut + 1 if cut >= 0 else (buf.find(b"\n", end) + 1 or n)
        yield buf[start:end], line
        line += buf.count(b"\n", start, end)
        start = end


def describe_byte(c):
    return repr(chr(c)) if 32 < c < 127 else f"byte 0x{c:02x}"


def blank_comments(buf, char, *, anywhere):
    """``buf`` with comments replaced by blanks, so that line numbers stay right.

    A comment runs from ``char`` to the end of its line.  With ``anywhere=False`` only a ``char``
    that starts a line opens a comment (Matrix Market's ``%``); elsewhere it is left for the
    alphabet check to refuse.
    """
    if char.encode("latin-1") not in buf:
        return buf
    b = np.frombuffer(buf, dtype=np.uint8)
    n = b.shape[0]
    pos = np.flatnonzero(b == ord(char))
    if not anywhere:
        at_line_start = np.ones(pos.shape[0], dtype=bool)
        inner = pos > 0
        at_line_start[inner] = b[pos[inner] - 1] == 10
        pos = pos[at_line_start]
        if pos.shape[0] == 0:
            return buf
    newlines = np.flatnonzero(b == 10)
    line = np.searchsorted(newlines, pos)
    # Only the first comment character of a line matters: the ranges are then disjoint.
    first = np.ones(pos.shape[0], dtype=bool)
    first[1:] = line[1:] != line[:-1]
    pos = pos[first]
    line = line[first]
    ends = np.full(pos.shape[0], n, dtype=np.int64)
    has_end = line < newlines.shape[0]
    ends[has_end] = newlines[line[has_end]]
    # +1 where a comment starts, -1 where its line ends: the running sum marks comment bytes.
    step = np.zeros(n + 1, dtype=np.int8)
    step[pos] = 1
    step[ends] -= 1
    inside = np.cumsum(step[:n], dtype=np.int8).view(bool)
    out = b.copy()
    out[inside] = 32
    return out.tobytes()


class Tokens:
    """The tokens of a chunk: byte ``starts`` and ``ends``, and where its lines end."""

    __slots__ = ("ends", "newlines", "nlines", "size", "starts")

    def __init__(self, starts, ends, newlines, size):
        self.starts = starts
        self.ends = ends
        self.newlines = newlines
        self.size = size
        self.nlines = newlines.shape[0] + (1 if size and (not newlines.shape[0]
                                                          or newlines[-1] != size - 1) else 0)

    def __len__(self):
        return self.starts.shape[0]

    def line(self):
        """The 0-based line of each token."""
        return np.searchsorted(self.newlines, self.starts)

    def per_line(self):
        """How many tokens each line holds."""
        return np.bincount(self.line(), minlength=self.nlines)

    def entries(self, per_line):
        """Group the tokens ``per_line`` at a time, one group per non-blank line.

        Returns
        -------
        starts, ends : (n, per_line) arrays
        lines : (n,) array of the 0-based line of each group

        Raises :class:`LineCountError` for the first line holding another number of tokens.
        """
        count = self.starts.shape[0]
        if count == per_line * self.nlines and self._one_group_per_line(per_line):
            lines = np.arange(self.nlines, dtype=np.int64)
        else:
            line = self.line()
            per = np.bincount(line, minlength=self.nlines)
            bad = (per != 0) & (per != per_line)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise LineCountError(i, per[i])
            lines = line[0::per_line]
        return (self.starts.reshape(-1, per_line), self.ends.reshape(-1, per_line), lines)

    def _one_group_per_line(self, per_line):
        # With as many tokens as per_line times the lines, each line holds exactly per_line
        # tokens when every group starts after the previous line end and ends before its own.
        if self.nlines == 0:
            return True
        line_end = self.newlines
        if line_end.shape[0] < self.nlines:
            line_end = np.append(line_end, self.size)
        prev_end = np.concatenate(([-1], line_end[:-1]))
        return bool((self.starts[0::per_line] > prev_end).all()
                    and (self.ends[per_line - 1::per_line] <= line_end).all())


class Text:
    """One chunk of text being parsed, with a blank-padded copy for fixed-width windows."""

    def __init__(self, buf):
        self.buf = buf
        self.b = np.frombuffer(buf, dtype=np.uint8)
        self._padded = None

    def token_text(self, pos, limit=40):
        """The token around byte ``pos``, for messages (shortened, non-printables escaped)."""
        b = self.b
        start = pos
        while start > 0 and b[start - 1] > 32 and pos - start < limit:
            start -= 1
        end = pos + 1
        while end < b.shape[0] and b[end] > 32 and end - start < limit:
            end += 1
        shown = "".join(chr(c) if 32 < c < 127 else f"\\x{c:02x}" for c in b[start:end].tolist())
        longer = end < b.shape[0] and b[end] > 32
        return f"'{shown}...'" if longer else f"'{shown}'"

    def check_alphabet(self, allowed, what):
        """Raise at the first byte that is not in ``allowed``, a blank or a newline.

        ``bytes.translate`` deletes the allowed bytes at memory speed; only when something is
        left over is the first offending position looked for.
        """
        leftover = self.buf.translate(None, allowed + BLANKS + b"\n")
        if not leftover:
            return
        pos = min(self.buf.find(bytes([c])) for c in set(leftover))
        c = self.buf[pos]
        if c == 0:
            raise TokenError(pos, f"NUL byte in {what} (the file is binary or corrupt)")
        raise TokenError(pos, f"{self.token_text(pos)} is not valid in {what}: unexpected "
                              f"character {describe_byte(c)}")

    def tokenize(self):
        """Split the text (already checked by :meth:`check_alphabet`) into tokens.

        Blanks are spaces, tabs and carriage returns; newlines end lines.
        """
        b = self.b
        n = b.shape[0]
        newlines = np.flatnonzero(b == 10)
        if n == 0:
            empty = np.zeros(0, dtype=np.int64)
            return Tokens(empty, empty, newlines, 0)
        is_token = b > 32
        edges = np.flatnonzero(is_token[1:] != is_token[:-1]) + 1
        head = [0] if is_token[0] else []
        tail = [n] if is_token[-1] else []
        if head or tail:
            edges = np.concatenate((np.array(head, dtype=np.int64), edges,
                                    np.array(tail, dtype=np.int64)))
        return Tokens(edges[0::2], edges[1::2], newlines, n)

    def _rows(self, positions, width):
        """``width`` bytes from each of ``positions`` (which may lie up to _PAD bytes outside
        the text, where the bytes are blanks), as an (n, width) array."""
        if self._padded is None:
            padded = np.full(self.b.shape[0] + 2 * _PAD, 32, dtype=np.uint8)
            padded[_PAD:-_PAD] = self.b
            self._padded = padded
        p = self._padded
        windows = as_strided(p, shape=(p.shape[0] - width + 1, width), strides=(1, 1),
                             writeable=False)
        return windows[positions + _PAD]

    # -- integers ----------------------------------------------------------------------

    def parse_integers(self, starts, ends, *, signed, what):
        """The magnitude (uint64) and sign of integer tokens.

        A token is an optional sign (only when ``signed``) followed by decimal digits; anything
        else, and magnitudes of 2**64 or more, raise :class:`TokenError` at the first bad token.
        """
        count = starts.shape[0]
        if count == 0:
            return np.zeros(0, dtype=_U64), np.zeros(0, dtype=bool)
        first = self.b[starts]
        is_sign = (first == 43) | (first == 45)
        negative = first == 45
        if is_sign.any():
            if not signed:
                i = int(np.flatnonzero(is_sign)[0])
                raise TokenError(starts[i], f"{what} {self.token_text(starts[i])} must be a "
                                            "non-negative integer without a sign")
            digits_start = starts + is_sign
        else:
            digits_start = starts
        ndigits = ends - digits_start
        value = np.empty(count, dtype=_U64)
        ok = np.empty(count, dtype=bool)
        short = ndigits <= 8
        if short.all():
            value[:], ok[:] = self._digits8(ends, ndigits)
        else:
            medium = ~short & (ndigits <= 16)
            for sel, parse in ((short, self._digits8), (medium, self._digits16)):
                idx = np.flatnonzero(sel)
                if idx.shape[0]:
                    value[idx], ok[idx] = parse(ends[idx], ndigits[idx])
            long_ = np.flatnonzero(ndigits > 16)
            if long_.shape[0]:
                value[long_], ok[long_] = self._digits_long(starts[long_], digits_start[long_],
                                                            ends[long_], what)
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise TokenError(starts[i], f"{what} {self.token_text(starts[i])} is not an "
                                        "integer")
        return value, negative

    def _words(self, ends, width):
        """The ``width`` bytes that end at each of ``ends`` as little-endian uint64 words."""
        return self._rows(ends - width, width).view(_U64)

    def _digits8(self, ends, ndigits):
        """Tokens of 1 to 8 digits: one uint64 word each, right-aligned at the token end."""
        word = self._words(ends, 8)[:, 0]
        word, ok = _as_digits(word, ndigits)
        return _swar8(word), ok & (ndigits > 0)

    def _digits16(self, ends, ndigits):
        words = self._words(ends, 16)
        high, ok_high = _as_digits(words[:, 0], ndigits - 8)
        low, ok_low = _as_digits(words[:, 1], np.full(ndigits.shape, 8))
        return _swar8(high) * _U64(10**8) + _swar8(low), ok_high & ok_low

    def _digit_runs(self, ends, ndigits):
        """Runs of 0 to 24 digits ending at ``ends`` (values below 10**24 may wrap: callers
        keep runs short enough).  (value, ok) with ok False where a byte is not a digit."""
        value = np.zeros(ends.shape[0], dtype=_U64)
        ok = ndigits <= 24
        for lo, hi in ((0, 8), (9, 16), (17, 24)):
            idx = np.flatnonzero((ndigits >= lo) & (ndigits <= hi))
            if idx.shape[0] == 0:
                continue
            e, n = ends[idx], ndigits[idx]
            words = self._words(e, 8 * ((hi + 7) // 8))
            top, ok_top = _as_digits(words[:, 0], n - 8 * (words.shape[1] - 1))
            v, good = _swar8(top), ok_top
            for k in range(1, words.shape[1]):
                low, ok_low = _as_digits(words[:, k], np.full(idx.shape[0], 8))
                v = v * _U64(10**8) + _swar8(low)
                good &= ok_low
            value[idx] = v
            ok[idx] = good
        return value, ok

    def _digits_long(self, starts, digits_start, ends, what):
        """More than 16 digits: Python integers, one by one (such tokens are rare)."""
        value = np.empty(starts.shape[0], dtype=_U64)
        ok = np.ones(starts.shape[0], dtype=bool)
        for k, (s, d, e) in enumerate(zip(starts.tolist(), digits_start.tolist(),
                                          ends.tolist())):
            text = self.buf[d:e]
            if not text.isdigit():
                ok[k] = False
                value[k] = 0
                continue
            v = int(text)
            if v >= 2**64:
                raise TokenError(s, f"{what} {self.token_text(s)} is too large (more than 64 "
                                    "bits)")
            value[k] = v
        return value, ok

    def integers_as(self, starts, magnitude, negative, np_type, what):
        """Integer tokens as ``np_type`` (integer or bool), refusing values out of range."""
        np_type = np.dtype(np_type)
        if np_type.kind == "b":
            lo, hi = 0, 1
        else:
            info = np.iinfo(np_type)
            lo, hi = int(info.min), int(info.max)
        too_big = magnitude > _U64(hi)
        if lo < 0:
            # the most negative value has a magnitude one larger than the most positive
            out_of_range = np.where(negative, magnitude > _U64(-lo), too_big)
        else:
            out_of_range = too_big | (negative & (magnitude != 0))
        if out_of_range.any():
            i = int(np.flatnonzero(out_of_range)[0])
            kind = "BOOL (0 or 1)" if np_type.kind == "b" else f"{np_type.name} [{lo}, {hi}]"
            raise TokenError(starts[i], f"{what} {self.token_text(starts[i])} is out of range "
                                        f"for {kind}")
        if np_type.kind == "b":
            return magnitude != 0
        if lo < 0:
            signed = magnitude.astype(np.int64)  # 2**63 wraps to -2**63, which negation keeps
            return np.where(negative, -signed, signed).astype(np_type, copy=False)
        return magnitude.astype(np_type, copy=False)

    # -- reals -------------------------------------------------------------------------

    def parse_floats(self, starts, ends, *, what):
        """Real tokens as float64, correctly rounded.

        The grammar is Python's ``float()`` without underscores or blanks (the alphabet check
        has refused those): a sign, digits with an optional ``.`` and fraction, an optional
        exponent; or ``inf``, ``infinity``, ``nan`` in any case.  Plain decimals are converted
        by :meth:`_decimals`; the rest (and any token that method cannot decide exactly) by
        NumPy's bytes-to-float cast, which also refuses what is not a number.
        """
        count = starts.shape[0]
        out = np.empty(count, dtype=np.float64)
        if count == 0:
            return out
        values, done = self._decimals(starts, ends)
        out[done] = values[done]
        rest = np.flatnonzero(~done)
        if rest.shape[0]:
            out[rest] = self._cast_floats(starts[rest], ends[rest], what)
        return out

    def _decimals(self, starts, ends):
        """Tokens of the form [sign] digits [. digits] [e [sign] digits], exactly rounded.

        With the mantissa M (at most 19 digits) and the decimal exponent k, M * 10**k is one
        correctly rounded float64 operation when M <= 2**53 and |k| <= 22 (Clinger's fast
        path).  Otherwise, when |k| <= 27, it is computed in x87 extended precision (64-bit
        significand, where M and 10**k are exact) and rounded once more to float64; that
        second rounding can only be wrong when the extended result lies exactly halfway
        between two float64 values, and those tokens are left to the slow path.

        Returns (values, done): ``done`` marks the tokens converted here.
        """
        b = self.b
        n = starts.shape[0]
        first = b[starts]
        negative = first == 45
        mantissa_start = starts + (negative | (first == 43))
        dot, bad_dot = self._marker(starts, ends, b == 46)
        exp, bad_exp = self._marker(starts, ends, (b | 32) == 101)
        has_dot, has_exp = dot >= 0, exp >= 0
        mantissa_end = np.where(has_exp, exp, ends)
        int_end = np.where(has_dot, dot, mantissa_end)
        n_int = int_end - mantissa_start
        n_frac = np.where(has_dot, mantissa_end - dot - 1, 0)
        done = ~(bad_dot | bad_exp) & (n_int >= 0) & (n_frac >= 0) & (n_int + n_frac > 0)
        done &= (n_int <= 19) & (n_frac <= 19) & ~(has_dot & has_exp & (dot > exp))
        int_part, ok_int = self._digit_runs(int_end, np.where(done, n_int, 0))
        frac_part, ok_frac = self._digit_runs(mantissa_end, np.where(done, n_frac, 0))
        done &= ok_int & ok_frac
        # the exponent: an optional sign and at most 4 digits
        exp_first = b[np.where(has_exp, exp + 1, starts) % b.shape[0]]
        exp_negative = has_exp & (exp_first == 45)
        exp_digits_start = exp + 1 + (has_exp & ((exp_first == 45) | (exp_first == 43)))
        n_exp = np.where(has_exp, ends - exp_digits_start, 0)
        done &= ~has_exp | ((n_exp >= 1) & (n_exp <= 4))
        exponent, ok_e = self._digit_runs(ends, np.where(done, n_exp, 0))
        done &= ok_e
        # M = int_part * 10**n_frac + frac_part must not wrap around 2**64
        scale = _POW10_U64.take(np.minimum(n_frac, 19))
        limit = (_U64(0xFFFFFFFFFFFFFFFF) - frac_part) // scale
        done &= int_part <= limit
        mantissa = int_part * scale + frac_part
        k = np.where(exp_negative, -exponent.astype(np.int64), exponent.astype(np.int64))
        k -= n_frac
        values = np.zeros(n, dtype=np.float64)
        m = mantissa.astype(np.float64)
        clinger = done & (mantissa <= _U64(2**53)) & (np.abs(k) <= 22)
        kc = np.clip(k, -22, 22)
        with np.errstate(over="ignore", invalid="ignore"):
            values = np.where(kc >= 0, m * _POW10_F64.take(np.maximum(kc, 0)),
                              m / _POW10_F64.take(np.maximum(-kc, 0)))
        rest = np.flatnonzero(done & ~clinger)
        if rest.shape[0]:
            extended, ok_x = _extended(mantissa[rest], k[rest])
            values[rest] = extended
            done[rest] = ok_x
        values = np.where(negative, -values, values)
        return values, done

    def _marker(self, starts, ends, is_marker):
        """Position of the one marker byte inside each token (-1 if none), and where a token
        holds more than one."""
        pos = np.flatnonzero(is_marker)
        where = np.full(starts.shape[0], -1, dtype=np.int64)
        several = np.zeros(starts.shape[0], dtype=bool)
        if pos.shape[0] == 0:
            return where, several
        token = np.searchsorted(starts, pos, side="right") - 1
        inside = token >= 0
        inside[inside] = pos[inside] < ends[token[inside]]
        pos, token = pos[inside], token[inside]
        where[token] = pos
        several[token[1:][token[1:] == token[:-1]]] = True
        return where, several

    def _cast_floats(self, starts, ends, what):
        """NumPy's bytes-to-float cast, batch by batch (Python's ``float()`` rules)."""
        count = starts.shape[0]
        out = np.empty(count, dtype=np.float64)
        lengths = ends - starts
        for lo in range(0, count, _FLOAT_BATCH):
            hi = min(lo + _FLOAT_BATCH, count)
            s = starts[lo:hi]
            n = lengths[lo:hi]
            short = np.flatnonzero(n <= _LONG_FLOAT)
            if short.shape[0] == hi - lo:
                short = slice(None)
            s_short = s[short]
            n_short = n[short]
            if n_short.shape[0]:
                width = int(n_short.max())
                # Left-aligned NUL-padded text, which the cast reads as a C string.
                text = self._rows(s_short, width)
                text[np.arange(width) >= n_short[:, None]] = 0
                chunk = text.view(f"S{width}").reshape(-1)
                try:
                    with np.errstate(over="ignore"):  # 1e999 is inf, as float() says
                        out[lo:hi][short] = chunk.astype(np.float64)
                except ValueError:
                    self._raise_first_bad_float(chunk, s_short, what)
            for i in np.flatnonzero(n > _LONG_FLOAT):
                out[lo + i] = self._one_float(int(s[i]), int(s[i] + n[i]), what)
        return out

    def _raise_first_bad_float(self, chunk, starts, what):
        """Find the first token NumPy refused, by bisection (each half is cast once)."""
        lo, hi = 0, chunk.shape[0]
        while hi - lo > 1:
            mid = (lo + hi) // 2
            try:
                chunk[lo:mid].astype(np.float64)
            except ValueError:
                hi = mid
            else:
                lo = mid
        raise TokenError(starts[lo], f"{what} {self.token_text(starts[lo])} is not a real "
                                     "number")

    def _one_float(self, start, end, what):
        try:
            return float(self.buf[start:end])
        except ValueError:
            raise TokenError(start, f"{what} {self.token_text(start)} is not a real "
                                    "number") from None

    def floats_as(self, starts, ends, values, np_type):
        """float64 values parsed from text, as ``np_type`` (float32 or float64).

        Rounding the decimal to float64 and then to float32 can go the wrong way when the
        float64 lands exactly halfway between two float32 values; those (rare) tokens are
        decided exactly from their text.
        """
        if np.dtype(np_type) == np.float64:
            return values
        with np.errstate(over="ignore", invalid="ignore"):
            single = values.astype(np.float32)
            up = np.nextafter(single, np.float32(np.inf))
            down = np.nextafter(single, np.float32(-np.inf))
        finite = np.isfinite(single)
        # Midpoints in float64 (exact there); beyond the largest float32 the next one is 2**128.
        up64 = np.where(np.isinf(up), 2.0**128, up.astype(np.float64))
        down64 = np.where(np.isinf(down), -(2.0**128), down.astype(np.float64))
        here = single.astype(np.float64)
        mid_up = here / 2 + up64 / 2
        mid_down = here / 2 + down64 / 2
        tie = finite & ((values == mid_up) | (values == mid_down))
        for i in np.flatnonzero(tie):
            exact = decimal.Decimal(self.buf[int(starts[i]):int(ends[i])].decode("ascii"))
            mid = decimal.Decimal(float(values[i]))
            low, high = (single[i], up[i]) if values[i] == mid_up[i] else (down[i], single[i])
            if exact > mid:
                single[i] = high
            elif exact < mid:
                single[i] = low
        return single


_POW10_U64 = np.array([10**k for k in range(20)], dtype=_U64)
_POW10_F64 = np.array([10.0**k for k in range(23)])  # exact: 10**22 < 2**53 * 2**22
_EXTENDED = np.finfo(np.longdouble).nmant >= 63  # x87 80-bit long double (Linux, x86-64)
if _EXTENDED:
    _POW10_LD = np.ones(28, dtype=np.longdouble)
    for _k in range(1, 28):
        _POW10_LD[_k] = _POW10_LD[_k - 1] * 10  # exact: 5**27 < 2**63


def _extended(mantissa, k):
    """mantissa * 10**k as float64 through 64-bit-significand arithmetic; (values, exact)."""
    exact = np.abs(k) <= 27
    if not _EXTENDED or not exact.any():
        return np.zeros(mantissa.shape[0]), np.zeros(mantissa.shape[0], dtype=bool)
    kk = np.clip(k, -27, 27)
    m = mantissa.astype(np.longdouble)  # exact below 2**64
    r = np.where(kk >= 0, m * _POW10_LD.take(np.maximum(kk, 0)),
                 m / _POW10_LD.take(np.maximum(-kk, 0)))
    d = r.astype(np.float64)
    dl = d.astype(np.longdouble)
    up = np.nextafter(d, np.inf).astype(np.longdouble)
    down = np.nextafter(d, -np.inf).astype(np.longdouble)
    halfway = (r == (dl + up) / 2) | (r == (dl + down) / 2)
    return d, exact & ~halfway


# _PAD_MASKS[k]: the bytes of a word left of its k last ones (the low 8 - k bytes).
_PAD_MASKS = np.array([0xFFFFFFFFFFFFFFFF] + [(1 << (8 * (8 - k))) - 1 for k in range(1, 9)],
                      dtype=_U64)


def _as_digits(word, ndigits):
    """Put ASCII '0' in the bytes of ``word`` left of its ``ndigits`` last ones (little-endian:
    the low bytes), and check that the rest are digits."""
    pad = _PAD_MASKS.take(ndigits)
    word = (word & ~pad) | (_ZEROS8 & pad)
    ok = ((word & _HIGH_NIBBLES) == _ZEROS8) & (((word + _SIXES) & _HIGH_NIBBLES) == _ZEROS8)
    return word, ok


def _swar8(word):
    """Eight ASCII digits in a little-endian uint64 (first digit in the low byte) -> value."""
    x = word - _ZEROS8
    x = x * _U64(10) + (x >> _U64(8))
    a = (x & _U64(0x000000FF000000FF)) * _U64(100 + (1000000 << 32))
    b = ((x >> _U64(16)) & _U64(0x000000FF000000FF)) * _U64(1 + (10000 << 32))
    return (a + b) >> _U64(32)
