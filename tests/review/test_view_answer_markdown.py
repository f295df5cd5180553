"""review.markdown: an answer's Markdown, rendered and sanitized, with citation links."""

from __future__ import annotations

from review.markdown import render_markdown


def test_markdown_is_rendered():
    html = render_markdown("# Fire\n\nWalls **must** resist fire.\n\n- one\n- two")

    assert "<h1>Fire</h1>" in html
    assert "<strong>must</strong>" in html
    assert "<li>one</li>" in html


def test_each_citation_of_a_known_reference_links_to_its_anchor():
    html = render_markdown("Walls resist fire [1] and smoke [2][3].", {1, 2, 3})

    for number in (1, 2, 3):
        assert f'<a href="#ref-{number}" class="cite"' in html
        assert f">[{number}]</a>" in html


def test_a_number_without_a_reference_stays_plain_text():
    html = render_markdown("See [1] and [7].", {1})

    assert 'href="#ref-1"' in html
    assert "[7]" in html and 'href="#ref-7"' not in html


def test_citations_in_code_and_inside_links_are_left_alone():
    html = render_markdown("Write `[1]` or [see [1]](https://example.org).", {1})

    assert "<code>[1]</code>" in html
    assert html.count('href="#ref-1"') == 0
    assert '<a href="https://example.org"' in html


def test_raw_html_from_the_model_comes_out_as_text():
    html = render_markdown(
        "<script>alert(1)</script>\n\nHi <img src=x onerror=alert(2)> <b onclick=x>b</b>"
    )

    assert "<script" not in html and "<img" not in html and "<b " not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(2)&gt;" in html


def test_a_javascript_link_is_not_a_link():
    html = render_markdown("[click](javascript:alert(1)) and [data](data:text/html,hi)")

    assert "href" not in html


def test_every_link_is_marked_so_the_target_cannot_reach_back_or_gain_rank():
    html = render_markdown("[a](https://example.org/a) and <https://example.org/b>")

    assert html.count('rel="noopener noreferrer nofollow"') == 2


def test_an_empty_body_renders_as_nothing():
    assert render_markdown("") == ""
