# Included by every compiled game core (games/<game>/core.pyx), after mt19937.pxi and
# before its game: what all cores share besides the batched driver (batch.pxi).

# The events ``game_apply`` reports, a bit set (see batch.pxi); exported to Python as
# module attributes of each core (the Python state reads them from there).
cpdef enum CoreEvent:
    GAME_OVER = 1  # the game ended with this action
    DEALT = 2      # a chance outcome was drawn (a new round dealt): the Python state records it


# ``GameState.returns`` (games/base.py) in C: the zero-sum result of the final standing,
# each player getting the mean over the others of +1 (its key is greater), 0 (equal) or -1
# (smaller), keys compared lexicographically. The Python rule stays in base.py for the
# engines written in Python; tests/test_vector.py checks every core's returns against it.


cdef inline void standing_returns(const double* keys, int width, int n, double* out) noexcept nogil:
    """``keys``: n rows of ``width`` doubles (row p: player p's standing key, the most
    significant first); writes n returns into ``out``."""
    cdef int i, j, k, total, sign
    for i in range(n):
        total = 0
        for j in range(n):
            if j == i:
                continue
            sign = 0
            for k in range(width):
                if keys[i * width + k] > keys[j * width + k]:
                    sign = 1
                    break
                if keys[i * width + k] < keys[j * width + k]:
                    sign = -1
                    break
            total += sign
        out[i] = total / <double>(n - 1 if n > 1 else 1)
