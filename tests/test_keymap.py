"""keymap.toml: each wrong line is reported with its number and only that line is ignored; the
file moves once from the data directory to the config directory."""

from __future__ import annotations

from reader.keymap import key_clashes, load_keymap, parse_keymap

KNOWN = {"app.star", "app.read", "app.quit", "list.down", "list.up", "sidebar.down"}


def test_good_lines_bind_in_both_spellings():
    text = '"app.star" = "x"\nlist.down = "j, down ,ctrl+n"\n\n[sidebar]\ndown = "J"\n'
    assert parse_keymap(text, KNOWN) == ({"app.star": "x", "list.down": "j,down,ctrl+n", "sidebar.down": "J"}, [])


def test_each_bad_line_is_reported_and_only_it_is_ignored():
    text = "\n".join(
        [
            '"app.star" = "x"',  # 1: kept
            '"list.down" = 5',  # 2: not text
            '"app.stra" = "y"',  # 3: unknown id
            '"app.read" = "z"',  # 4: kept
            '"app.quit" = "a b"',  # 5: a space inside a key
            '"list.up" = ""',  # 6: no key at all
            "[nowhere]",  # 7
            'thing = "k"',  # 8: unknown id nowhere.thing
        ]
    )
    bindings, problems = parse_keymap(text, KNOWN)
    assert bindings == {"app.star": "x", "app.read": "z"}
    assert problems == [
        'line 2: \'list.down\' needs keys as text, like "x" or "j,down"; line ignored',
        "line 3: unknown binding id 'app.stra' (did you mean app.star?); line ignored",
        "line 5: app.quit = 'a b' is not a comma-separated list of keys; line ignored",
        "line 6: list.up = '' is not a comma-separated list of keys; line ignored",
        "line 8: unknown binding id 'nowhere.thing' (known ids: app.quit, app.read, app.star, list.down, list.up, sidebar.down, ...); line ignored",
    ]


def test_keys_holding_c1_or_bidi_controls_are_refused():
    """The footer and help draw the keys: a C1 CSI (U+009B) or a bidi override must not reach them."""
    text = '"app.star" = "\\u009b2J,x"\n"app.read" = "ctrl+\\u202ez"\n"app.quit" = "ä"\n'
    bindings, problems = parse_keymap(text, KNOWN)
    assert bindings == {"app.quit": "ä"}
    assert [p.split(":")[0] for p in problems] == ["line 1", "line 2"]
    assert all("is not a comma-separated list of keys" in p for p in problems)


def test_a_line_that_is_not_toml_is_ignored_and_the_rest_applies():
    text = '"app.star" = "x"\n"app.read" = r\n"app.quit" = "Q"\nlist.up = \n'
    bindings, problems = parse_keymap(text, KNOWN)
    assert bindings == {"app.star": "x", "app.quit": "Q"}
    assert [p.split(":")[0] for p in problems] == ["line 2", "line 4"]
    assert all("not valid TOML (Invalid value)" in p for p in problems)


def test_old_keymap_in_the_data_dir_moves_once_beside_the_config(tmp_path):
    config, data = tmp_path / "config", tmp_path / "data"
    data.mkdir()
    (data / "keymap.toml").write_text('"app.star" = "x"\n"app.stat" = "y"\n')
    bindings, messages = load_keymap(KNOWN, config_dir=config, data_dir=data)
    assert bindings == {"app.star": "x"}
    assert messages == [
        f"keymap.toml moved from {data / 'keymap.toml'} to {config / 'keymap.toml'}, beside the config file",
        f"{config / 'keymap.toml'}, line 2: unknown binding id 'app.stat' (did you mean app.star?); line ignored",
    ]
    assert not (data / "keymap.toml").exists()
    assert (config / "keymap.toml").read_text() == '"app.star" = "x"\n"app.stat" = "y"\n'
    assert load_keymap(KNOWN, config_dir=config, data_dir=data) == ({"app.star": "x"}, messages[1:])


def test_a_keymap_in_both_places_uses_the_new_one_and_says_so(tmp_path):
    config, data = tmp_path / "config", tmp_path / "data"
    config.mkdir()
    data.mkdir()
    (config / "keymap.toml").write_text('"app.star" = "x"\n')
    (data / "keymap.toml").write_text('"app.star" = "o"\n')
    bindings, messages = load_keymap(KNOWN, config_dir=config, data_dir=data)
    assert bindings == {"app.star": "x"}
    assert messages == [f"{data / 'keymap.toml'} is not read: {config / 'keymap.toml'} is used instead (delete the old one)"]
    assert (data / "keymap.toml").read_text() == '"app.star" = "o"\n'


def test_no_keymap_anywhere_binds_nothing_and_says_nothing(tmp_path):
    assert load_keymap(KNOWN, config_dir=tmp_path / "c", data_dir=tmp_path / "d") == ({}, [])


def test_a_keymap_that_is_not_utf8_is_ignored_with_one_message(tmp_path):
    (tmp_path / "keymap.toml").write_bytes(b'"app.star" = "\xff"\n')
    bindings, messages = load_keymap(KNOWN, config_dir=tmp_path, data_dir=tmp_path / "d")
    assert bindings == {} and messages == [f"{tmp_path / 'keymap.toml'} ignored: cannot read it (it is not UTF-8 text)"]


def test_a_remap_onto_a_key_in_use_together_says_who_lost_it():
    from reader.app.app import binding_groups

    groups = binding_groups()
    assert key_clashes({"app.star": "x"}, groups) == ["keymap.toml: x is now both Star (app.star) and Hide (app.hide); Hide has no key"]
    # the list's Enter taking o on the main screen; Browser had only o
    assert key_clashes({"list.open": "enter,o"}, groups) == [
        "keymap.toml: o is now both Browser (app.open) and Open (list.open); Browser has no key"
    ]
    assert key_clashes({"detail.down": "j,down,k"}, groups) == [
        "keymap.toml: k is now both Down (detail.down) and Up (detail.up); Up keeps only up"
    ]
    assert key_clashes({"app.star": "x", "app.hide": "x"}, groups) == [
        "keymap.toml: x is now both Star (app.star) and Hide (app.hide); only one of them will run: give the other another key"
    ]


def test_remaps_onto_free_keys_or_keys_of_other_screens_say_nothing():
    from reader.app.app import binding_groups

    # z is free; j moves both the list and the sidebar, which never have focus together
    assert key_clashes({"app.star": "z", "sidebar.down": "J", "list.down": "J"}, binding_groups()) == []
