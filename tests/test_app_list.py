"""The paper list as the user sees it: a highlighted card whole on screen, cards apart, the cursor
where the eye is after papers arrive above it."""

from __future__ import annotations

from tests.test_app import make_app, papers, ready, store  # noqa: F401 (fixtures)


def screen_lines(app) -> list[str]:
    """The terminal's lines as drawn."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def test_the_highlighted_card_at_the_bottom_shows_its_marks_line_and_cards_stay_apart(store, papers):
    marked = papers[5]  # the sixth card: below the first screenful at 120x40, the list scrolls to it
    store.set_tags([marked.id], add=["seminar", "reading-group"])
    store.set_note(marked.id, "Compare with the baseline")
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        plist = app.main.paper_list
        assert plist.ids[5] == marked.id
        await pilot.press(*"jjjjj")
        await pilot.pause()
        assert plist.current == marked.id
        lines = screen_lines(app)
        bottom = plist.region.bottom  # the first line below the list
        list_lines = [line[plist.region.x :].rstrip() for line in lines[plist.region.y : bottom]]
        marks = [n for n, line in enumerate(list_lines) if "#seminar" in line]
        assert len(marks) == 1, list_lines
        assert list_lines[marks[0]] == "▌ #reading-group  #seminar  ✎ note"
        assert marks[0] == len(list_lines) - 2  # the bottom card, whole, then its blank line
        assert list_lines[marks[0] - 5].startswith("▌") and marked.title[:40] in list_lines[marks[0] - 4]
        # a blank line after each card, the marked one too: the next card does not run on from it
        assert list_lines[marks[0] + 1] == ""
        titles = [n for n, line in enumerate(list_lines) if any(p.title[:40] in line for p in papers)]
        assert all(titles[i + 1] - titles[i] == plist.card_height == 7 for i in range(len(titles) - 1))
        for title_row in titles[1:]:
            assert list_lines[title_row - 2].strip("▌ ") == ""  # the line before each card's meta line is blank
