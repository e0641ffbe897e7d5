"""What the app counts as changed by another process (reader/service/outside.py), through the
store as the app and the command line use it."""

from __future__ import annotations

from reader.service.outside import OutsideChanges
from reader.store import Store
from tests.sample_papers import sample_papers


def test_the_apps_own_writes_are_never_news_not_even_while_they_are_written(data_dir):
    store = Store(data_dir)
    store.add_topic("Agents", "ti:agents")
    outside = OutsideChanges(data_dir)
    seen_while_writing = []

    def writing(name, before):
        context = outside.writing(name, before)

        class Looking:  # the UI's thread looks in the middle of the write
            def __enter__(self):
                context.__enter__()

            def __exit__(self, *exc):
                seen_while_writing.append(outside.changed())
                return context.__exit__(*exc)

        return Looking()

    store.on_own_write(writing)
    paper = sample_papers(1)[0]
    store.set_marks([paper.id], starred=True)
    store.set_tags([paper.id], add=["Seminar"])
    assert seen_while_writing == [set(), set()]  # the files were already rewritten, yet not news
    assert outside.changed() == set()


def test_another_processs_change_stays_news_through_the_apps_own_write(data_dir):
    store = Store(data_dir)
    outside = OutsideChanges(data_dir)
    store.on_own_write(outside.writing)
    Store(data_dir).add_topic("Robots", "cat:cs.RO")  # another process
    assert outside.changed() == {"user.json"}
    store.set_marks(["2601.00001"], starred=True)  # the app's own write on top of it
    assert outside.changed() == {"user.json"}  # still to be read: the topic is not taken in yet
    outside.taken(outside.stamps(["user.json"]))
    assert outside.changed() == set()
