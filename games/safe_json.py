"""JSON from strangers (replays, logs, checkpoint metadata) parsed within bounds.

The standard library's parser is used (no need for another), but its failures on hostile
input are not all ``JSONDecodeError``: nesting 100,000 deep raises ``RecursionError``, an
integer of 5,000 digits ``ValueError`` (Python's int-string limit), and a 20 MB document
costs its size many times over in Python objects. ``loads`` bounds the size before
parsing, refuses ``NaN``/``Infinity`` (not JSON, though Python writes and reads them) and
turns every failure into the caller's error class, naming the source.
"""

from __future__ import annotations

import json
import os


def _no_constants(name: str):
    raise ValueError(f"{name} is not a JSON value")


def loads(text: str | bytes, *, limit: int, source: str, error: type[Exception]):
    """Parse ``text`` (at most ``limit`` bytes) or raise ``error`` naming ``source``."""
    if len(text) > limit:
        raise error(f"{source} is {len(text):,} bytes, more than the {limit:,} allowed")
    try:
        return json.loads(text, parse_constant=_no_constants)
    except RecursionError:
        raise error(f"{source} is not JSON: nested too deeply") from None
    except UnicodeDecodeError as err:
        raise error(f"{source} is not JSON: not UTF-8 text ({err.reason})") from None
    except ValueError as err:  # JSONDecodeError, the int-digits limit, NaN/Infinity
        raise error(f"{source} is not JSON: {err}") from None


def load_file(path, *, limit: int, source: str | None = None, error: type[Exception]):
    """Read and parse the JSON file ``path``, its size checked before it is read."""
    source = source or str(path)
    try:
        size = os.stat(path).st_size
        if size > limit:
            raise error(f"{source} is {size:,} bytes, more than the {limit:,} allowed")
        with open(path, "rb") as f:
            text = f.read(limit + 1)  # the file may have grown since stat
    except OSError as err:
        raise error(f"cannot read {source}: {err.strerror or err}") from None
    return loads(text, limit=limit, source=source, error=error)
