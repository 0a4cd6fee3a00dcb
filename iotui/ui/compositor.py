"""Textual's compositor, asking only the widgets a partial update can show for only the rows it updates.

A live run draws one frame a second: the figures' changed lines and the sparklines.
For such a partial update, Textual's compositor (pinned in pyproject.toml) asks every
widget whose *clip* touches the updated band for *all* of its lines, then keeps the
ones on the updated lines. A widget's clip is its container's region, so for the
screen's own children (the title, the key bar, the messages, the scroll bars) it is the
whole screen: every frame rendered every one of them, whole, from its line cache.

This compositor asks a widget only when its visible part (region within clip) crosses
the update's crop, and only for the crop's rows of it. The columns stay the widget's
whole visible width, as Textual's compositor renders them: the cuts that split each
screen line between widgets are the visible parts' edges, and the strips are divided at
those. The terminal receives the same bytes (tests/ui/test_compositor.py compares both
compositors on random updates of the live screens); the frame costs about a quarter
less (bench/README.md).
"""

from __future__ import annotations

from collections.abc import Iterable

from textual._compositor import Compositor
from textual.geometry import Region
from textual.strip import Strip


class BandCompositor(Compositor):
    """Renders, for a partial update, only the widgets and rows inside its crop."""

    def _get_renders(self, crop: Region | None = None) -> Iterable[tuple[Region, Region, list[Strip]]]:
        if crop is None:
            yield from super()._get_renders(crop)
            return
        intersection = Region.intersection
        crop_left, crop_top, crop_right, crop_bottom = crop.x, crop.y, crop.right, crop.bottom
        # A list first: rendering a widget must not meet the map changing under the loop.
        for widget, (region, clip) in list(self.visible_widgets.items()):
            x, y, width, height = intersection(region, clip)
            if not (width and height) or x >= crop_right or x + width <= crop_left:
                continue
            top = max(y, crop_top)
            bottom = min(y + height, crop_bottom)
            if top >= bottom:
                continue
            # The compositor renders region ∩ clip: narrowing the clip to the band's rows
            # makes that the rows asked for below, in the same columns.
            band_clip = intersection(clip, Region(clip.x, top, clip.width, bottom - top))
            yield region, band_clip, widget.render_lines(Region(x - region.x, top - region.y, width, bottom - top))
