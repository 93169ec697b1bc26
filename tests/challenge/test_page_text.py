"""The text a reader sees on a page, and what a new page loses of it (the check behind `chgen
import`'s refusals and `chgen generate`'s page-loss errors): words and numbers, markup aside."""

from __future__ import annotations

from generator.challenge.page import describe_losses, lost_words, text_losses, visible_words

PAGE = """<p>
  Add <code>shift</code> to each element of <code>x</code> (1 &le; N &le; 8,192).
</p>

<h2>Implementation Requirements</h2>
<ul>
  <li>External libraries are not permitted</li>
</ul>

<h2>Example 1:</h2>
<pre>
Input:  x = [1.0, -2.0]
Output: y = [2.0, -1.0]
</pre>

<h2>Example 2:</h2>
<pre>
Input:  x = [-1.5, 0.0, 2.5]
Output: y = [-0.5, 1.0, 3.5]
</pre>

<h2>Constraints</h2>
<ul>
  <li>Performance is measured with <code>N</code> = 25,000,000</li>
</ul>
"""


def words(text: str) -> list:
    return [word.text for word in visible_words(text)]


def test_the_visible_text_is_words_and_numbers_without_markup():
    shown = "<p>\\(\\frac{a}{2}\\) &le; <code>N</code> = 8,192 &amp; &minus;1.5e-3<!-- no --></p>"
    assert words(shown) == ["a", "2", "N", "8192", "-1.5e-3"]
    assert words("<style>p { margin: 0 }</style><svg><text>axis</text></svg>") == ["axis"]


def test_a_change_of_markup_alone_loses_nothing():
    markup = (
        PAGE.replace("&le;", "≤")
        .replace("<h2>Example 1:</h2>", "<h2 >Example 1:</h2 >")
        .replace("25,000,000", "25000000")
        .replace("\n<ul>", "\n  <ul>")
        .replace("[1.0, -2.0]", "[1.0,   -2.0]")
    )
    assert text_losses(PAGE, markup) == []
    assert lost_words(PAGE, PAGE) == []


def test_a_dropped_example_is_lost_words_in_its_part():
    start, end = PAGE.index("<h2>Example 2:</h2>"), PAGE.index("<h2>Constraints</h2>")
    (loss,) = text_losses(PAGE, PAGE[:start] + PAGE[end:])
    assert (loss.kind, loss.label, loss.number) == ("example", "Example 2", 2)
    assert [w.text for w in loss.words] == [
        "Example", "2", "Input", "x", "-1.5", "0.0", "2.5", "Output", "y", "-0.5", "1.0", "3.5"
    ]  # fmt: skip
    # numbers the page still shows elsewhere are lost where they stood (not in the description)
    assert describe_losses([loss], 30) == 'Example 2 loses "Example 2 Input x -1.5 0.0 …"'


def test_each_part_that_loses_text_is_named_once_in_page_order():
    changed = (
        PAGE.replace("External libraries are not permitted", "No libraries")
        .replace("Output: y = [2.0, -1.0]", "Output: y = [2.0, -1.00001]")
        .replace("25,000,000", "1,000")
    )
    losses = text_losses(PAGE, changed)
    assert [(loss.kind, loss.label) for loss in losses] == [
        ("requirements", "Implementation Requirements"),
        ("example", "Example 1"),
        ("performance", "the performance bullet"),
    ]
    assert [w.text for w in losses[1].words] == ["-1.0"]
    assert "\n" not in describe_losses(losses)


def test_a_word_that_only_moved_is_not_lost():
    moved = PAGE.replace("<li>External libraries are not permitted</li>\n", "").replace(
        "</p>\n", "External libraries are not permitted</p>\n", 1
    )
    assert text_losses(PAGE, moved) == []
