"""`@name` mentions in a comment."""

from grounding.mentions import mentioned_names


def test_each_name_is_found_once_in_the_order_first_mentioned():
    assert mentioned_names("@bob, see @ann_2 and @bob again") == ["bob", "ann_2"]


def test_a_full_stop_after_a_name_is_not_part_of_it():
    assert mentioned_names("Ask @rita.") == ["rita"]
    assert mentioned_names("Ask @r.ita now") == ["r.ita"]


def test_an_email_address_mentions_nobody():
    assert mentioned_names("write to rita@example.com") == []
    assert mentioned_names("a lone @ sign") == []
