# Included by the compiled rules cores.

cdef int check(int value, int limit, str what) except -1:
    """C arrays are indexed without bounds checks: every index from outside goes through
    here first, so that bad input raises instead of writing past an array."""
    if not 0 <= value < limit:
        raise ValueError(f"{what} {value} is out of range 0..{limit - 1}")
    return value
