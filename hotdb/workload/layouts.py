"""Tensor layouts: unpack packed layouts (NCHW16c, OIHW8i16o, OIHW2i16o4i) to logical shapes.

A layout string names one axis per dimension. An uppercase letter is a primal axis
(N, C, H, W, O, I, ...); `<int><lowercase>` is a sub-axis of size int split off the
primal axis of the same letter. The logical extent of a primal axis is its outer
extent times the sizes of all its sub-axes, so `(1, 2, 112, 112, 64)` in NCHW64c is
`(1, 128, 112, 112)` in NCHW.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_AXIS = re.compile(r"(\d*)([A-Za-z])")


class LayoutError(ValueError):
    """A layout string or a shape that does not fit it."""


def parse_layout(layout: str) -> list[tuple[str, int | None]]:
    """Split a layout into axes: `("C", None)` for a primal axis, `("c", 16)` for a sub-axis."""
    axes: list[tuple[str, int | None]] = []
    position = 0
    for match in _AXIS.finditer(layout):
        if match.start() != position:
            raise LayoutError(f"layout {layout!r}: unexpected text at position {position}")
        position = match.end()
        size, letter = match.groups()
        if letter.isupper():
            if size:
                raise LayoutError(f"layout {layout!r}: primal axis {letter} cannot carry a size")
            axes.append((letter, None))
        else:
            if not size:
                raise LayoutError(f"layout {layout!r}: sub-axis {letter} needs a size, e.g. 16{letter}")
            axes.append((letter, int(size)))
    if position != len(layout) or not axes:
        raise LayoutError(f"layout {layout!r}: not a layout")
    return axes


def unpack(shape: Sequence[int], layout: str, target: str | None = None) -> tuple[int, ...]:
    """The logical shape of `shape` laid out as `layout`, in the primal axis order of
    `target` (default: the primal axes of `layout` in their own order).

    Sub-axis sizes come from the shape itself, not the layout string, so `NCHWc` with a
    5-D shape works without knowing the block size.
    """
    axes = parse_layout(layout)
    if len(axes) != len(shape):
        raise LayoutError(f"shape {tuple(shape)} has {len(shape)} dimensions, layout {layout!r} has {len(axes)}")
    extent: dict[str, int] = {}
    order: list[str] = []
    for (letter, _), dim in zip(axes, shape):
        primal = letter.upper()
        if letter.isupper():
            order.append(primal)
            extent[primal] = extent.get(primal, 1) * dim
        else:
            extent[primal] = extent.get(primal, 1) * dim
    missing = [letter.upper() for letter, _ in axes if letter.islower() and letter.upper() not in order]
    if missing:
        raise LayoutError(f"layout {layout!r}: sub-axis without primal axis {missing[0]}")
    if target is None:
        return tuple(extent[p] for p in order)
    target_axes = [letter for letter, _ in parse_layout(target)]
    if sorted(target_axes) != sorted(order):
        raise LayoutError(f"cannot reorder layout {layout!r} to {target!r}: different axes")
    return tuple(extent[p] for p in target_axes)


def pack(logical: Sequence[int], layout: str, source: str | None = None) -> tuple[int, ...]:
    """The inverse of `unpack`: a logical shape (primal axes in the order of `source`,
    default the primal axes of `layout` in their own order) laid out as `layout`, whose
    sub-axes carry their sizes (`NCHW8c`). A primal extent a sub-axis does not divide is
    a LayoutError."""
    axes = parse_layout(layout)
    primal = [letter for letter, _ in axes if letter.isupper()]
    order = [letter for letter, _ in parse_layout(source)] if source else primal
    if sorted(order) != sorted(primal) or len(order) != len(logical):
        raise LayoutError(f"cannot lay out a {len(logical)}-D shape in {source or 'its order'} as {layout!r}")
    extent = dict(zip(order, (int(d) for d in logical)))
    inner: dict[str, int] = {}
    for letter, size in axes:
        if size is not None:
            inner[letter.upper()] = inner.get(letter.upper(), 1) * size
    out = []
    for letter, size in axes:
        if size is None:
            block = inner.get(letter, 1)
            if extent[letter] % block:
                raise LayoutError(f"layout {layout!r}: axis {letter} of extent {extent[letter]} is not a multiple of {block}")
            out.append(extent[letter] // block)
        else:
            out.append(size)
    return tuple(out)
