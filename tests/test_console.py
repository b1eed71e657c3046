"""What jig prints is what it means: no emoji codes, no markup from other people's text."""

from __future__ import annotations

from jigcli import console


def test_a_path_at_line_100_is_not_turned_into_an_emoji():
    with console.out().capture() as captured:
        console.out().print("Submissions/S001/NoSolution.lean:100: ● error")
    assert captured.get() == "Submissions/S001/NoSolution.lean:100: ● error\n"


def test_a_name_between_colons_in_a_message_stays_text_on_stderr_too():
    with console.err().capture() as captured:
        console.err().print("the checker says :smile: and :thumbs_up:")
    assert captured.get() == "the checker says :smile: and :thumbs_up:\n"
