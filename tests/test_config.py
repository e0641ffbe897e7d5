"""Settings: every source is validated, and a bad value is one line naming the setting and its range."""

from __future__ import annotations

import json
import re

import pytest

from reader.config import load_settings
from tests.conftest import run


@pytest.mark.parametrize(
    "name, value, expected",
    [
        ("READER_ARXIV_DELAY", "inf", "READER_ARXIV_DELAY='inf' is out of range (allowed: a number from 0 to 600 seconds)"),
        ("READER_ARXIV_DELAY", "-1", "READER_ARXIV_DELAY='-1' is out of range (allowed: a number from 0 to 600 seconds)"),
        ("READER_ARXIV_DELAY", "nan", "READER_ARXIV_DELAY='nan' is out of range"),
        ("READER_ARXIV_TIMEOUT", "0", "READER_ARXIV_TIMEOUT='0' is out of range (allowed: a number from 0.1 to 600 seconds)"),
        ("READER_ARXIV_RETRIES", "inf", "READER_ARXIV_RETRIES='inf' is out of range (allowed: a whole number from 0 to 10)"),
        ("READER_ARXIV_RETRIES", "2.5", "READER_ARXIV_RETRIES='2.5' is not a whole number (allowed: a whole number from 0 to 10)"),
        ("READER_ARXIV_BACKOFF", "1e308", "READER_ARXIV_BACKOFF='1e308' is out of range"),
        ("READER_SYNC_WEEKS", "1e18", "READER_SYNC_WEEKS='1e18' is out of range (allowed: a whole number from 1 to 1000 weeks)"),
        ("READER_SYNC_WEEKS", "0", "READER_SYNC_WEEKS='0' is out of range"),
        (
            "READER_SYNC_INTERVAL_HOURS",
            "1e10",
            "READER_SYNC_INTERVAL_HOURS='1e10' is out of range (allowed: a number from 0 to 8760 hours)",
        ),
        ("READER_SYNC_INTERVAL_HOURS", "-inf", "READER_SYNC_INTERVAL_HOURS='-inf' is out of range"),
        ("READER_TODAY", "0001-01-01", "READER_TODAY='0001-01-01' is out of range (allowed: a date from 1991-01-01 to 9999-01-01)"),
        ("READER_TODAY", "9999-12-31", "READER_TODAY='9999-12-31' is out of range"),
        ("READER_TODAY", "yesterday", "READER_TODAY='yesterday' is not a date in the form YYYY-MM-DD"),
        ("READER_ARXIV_API_URL", "http://[::1", "READER_ARXIV_API_URL='http://[::1' is not a URL (Invalid IPv6 URL)"),
        (
            "READER_ARXIV_API_URL",
            "http://h:99999/api",
            "READER_ARXIV_API_URL='http://h:99999/api' is not a URL (Port out of range 0-65535)",
        ),
        ("READER_ARXIV_API_URL", "http:///api", "READER_ARXIV_API_URL='http:///api' has no usable host name"),
        ("READER_ARXIV_API_URL", "ftp://example.org/", "READER_ARXIV_API_URL='ftp://example.org/' is not an http(s) URL"),
        ("READER_ARXIV_RSS_URL", "http://exa mple.org/", "READER_ARXIV_RSS_URL='http://exa mple.org/' is not a URL: it contains spaces"),
        ("READER_THEME", "[bold]x", "READER_THEME='[bold]x' is not a theme name"),
        ("READER_BIBTEX_PRINT_ARXIV_ID", "maybe", "READER_BIBTEX_PRINT_ARXIV_ID='maybe' is not true or false (allowed: true or false)"),
        ("READER_IMAGES", "sixel", "READER_IMAGES='sixel' is not an image mode (allowed: auto, halfblock, off)"),
        ("READER_DISPLAY_MATH", "latex", "READER_DISPLAY_MATH='latex' is not one of the choices (allowed: unicode or tex)"),
    ],
)
def test_bad_environment_value_is_one_line_naming_setting_and_range(capsys, monkeypatch, name, value, expected):
    monkeypatch.setenv(name, value)
    code, out, err = run(capsys, "topics", "list")
    assert code == 1 and out == ""
    assert err.startswith(f"reader: error: {expected}") and err.count("\n") == 1


@pytest.mark.parametrize(
    "args, expected",
    [
        (("--data-dir", "", "topics", "list"), "--data-dir='' is not a path"),
        (("momentum", "--as-of", "0001-01-01"), "--as-of='0001-01-01' is out of range (allowed: a date from 1991-01-01"),
    ],
)
def test_bad_flag_value_is_one_line(capsys, args, expected):
    code, _out, err = run(capsys, *args)
    assert code == 1 and err.count("\n") == 1
    assert err.startswith(f"reader: error: {expected}")


def test_values_at_the_edges_of_their_ranges_are_accepted(capsys, monkeypatch):
    for name, value in [
        ("READER_ARXIV_DELAY", "600"),
        ("READER_ARXIV_RETRIES", "10"),
        ("READER_SYNC_WEEKS", "1000"),
        ("READER_SYNC_INTERVAL_HOURS", "0"),
        ("READER_TODAY", "1991-01-01"),
        ("READER_ARXIV_API_URL", "http://[::1]:8080/api"),
    ]:
        monkeypatch.setenv(name, value)
    code, out, err = run(capsys, "momentum", "--json")
    assert code == 0, err
    assert '"as_of": "1991-01-01"' in out


# --- the config file ---------------------------------------------------------------------------


@pytest.fixture
def config_file(tmp_path, monkeypatch):
    directory = tmp_path / "config"
    directory.mkdir()
    monkeypatch.setenv("READER_CONFIG_DIR", str(directory))
    # The endpoints come from the file in these tests; no test here makes a request.
    monkeypatch.delenv("READER_ARXIV_API_URL")
    monkeypatch.delenv("READER_ARXIV_RSS_URL")
    return directory / "config.toml"


def test_precedence_is_flag_then_environment_then_file_then_default(capsys, monkeypatch, config_file, tmp_path):
    config_file.write_text(
        f'data_dir = "{tmp_path / "from-file"}"\ntheme = "nord"\n\n[arxiv]\ndelay = 1.5\nretries = 2\n\n[sync]\nweeks = 20\n'
    )
    monkeypatch.setenv("READER_ARXIV_RETRIES", "7")
    monkeypatch.delenv("READER_DATA_DIR")
    code, out, err = run(capsys, "--data-dir", str(tmp_path / "from-flag"), "config", "--json")
    assert code == 0, err
    report = json.loads(out)
    settings = report["settings"]
    assert settings["data_dir"] == {"value": str(tmp_path / "from-flag"), "source": "flag", "where": "--data-dir", "env": "READER_DATA_DIR"}
    assert settings["arxiv.retries"]["value"] == 7 and settings["arxiv.retries"]["source"] == "env"
    assert settings["arxiv.delay"] == {"value": 1.5, "source": "file", "where": "line 5", "env": "READER_ARXIV_DELAY"}
    assert settings["sync.weeks"]["value"] == 20 and settings["sync.weeks"]["where"] == "line 9"
    assert settings["theme"]["value"] == "nord"
    assert settings["arxiv.timeout"] == {"value": 30.0, "source": "default", "where": "", "env": "READER_ARXIV_TIMEOUT"}
    assert report["paths"]["config"] == str(config_file)
    assert report["paths"]["data"] == str(tmp_path / "from-flag")
    assert report["paths"]["keymap"] == str(config_file.parent / "keymap.toml")
    assert report["paths"]["log"] == str(tmp_path / "log")

    code, out, _ = run(capsys, "config")
    assert code == 0
    assert re.search(r"^  arxiv\.delay +1\.5 +config file line 5$", out, re.MULTILINE)
    assert re.search(r"^  arxiv\.retries +7 +environment READER_ARXIV_RETRIES$", out, re.MULTILINE)
    assert re.search(rf"^  data_dir +{re.escape(str(tmp_path / 'from-file'))} +config file line 1$", out, re.MULTILINE)


def test_file_values_reach_the_command(capsys, monkeypatch, config_file, tmp_path):
    monkeypatch.delenv("READER_DATA_DIR")
    config_file.write_text(f"data_dir = '{tmp_path / 'cache'}'\n")
    assert run(capsys, "topics", "add", "Mine", "ti:mine")[0] == 0
    assert (tmp_path / "cache" / "user.json").is_file()


@pytest.mark.parametrize(
    "text, expected",
    [
        ("[arxiv]\ntimeout = 30\ndelay = inf\n", ", line 3: arxiv.delay = inf is out of range (allowed: a number from 0 to 600 seconds)"),
        ('[sync]\n\n  weeks = "lots"\n', ', line 3: sync.weeks = "lots" is not a number (allowed: a whole number from 1 to 1000 weeks)'),
        ("arxiv.retries = true\n", ", line 1: arxiv.retries = true is not a number"),
        ("[arxiv]\napi_url = 'http://[::1'\n", ', line 2: arxiv.api_url = "http://[::1" is not a URL (Invalid IPv6 URL)'),
        ("[arxiv]\n\n\"del\\u0061y\" = 'x'\n", ', line 3: arxiv.delay = "x" is not a number'),
        ("theme = 'nord'\n[arxiv\ndelay = 1\n", ", line 2: not valid TOML: Expected ']' at the end of a table declaration"),
        ("[sync]\nweeks = \n", ", line 2: not valid TOML: Invalid value"),
    ],
)
def test_bad_file_value_is_one_line_naming_file_line_and_setting(capsys, config_file, text, expected):
    config_file.write_text(text)
    before = config_file.read_bytes()
    code, out, err = run(capsys, "topics", "list")
    assert code == 1 and out == ""
    assert err.startswith(f"reader: error: {config_file}{expected}"), err
    assert err.count("\n") == 1
    assert config_file.read_bytes() == before and sorted(p.name for p in config_file.parent.iterdir()) == ["config.toml"]


@pytest.mark.parametrize(
    "text, line",
    [
        ("theme = 'nord'\nx = " + "[" * 5000 + "]" * 5000 + "\n", 2),
        ("x = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n", 1),
        ("[arxiv]\ndelay = 1\n" + ".".join(["a"] * 5000) + " = 1\n", 3),
        ("# comment\n\n[" + ".".join(["a"] * 5000) + "]\n", 3),
        ("x = [\n" + "[\n" * 3000 + "]" * 3000 + "\n", 8),
    ],
    ids=["arrays", "inline tables", "dotted keys", "headers", "over lines"],
)
@pytest.mark.parametrize(
    "command", [["topics", "list"], ["config"], ["sync", "--help"], ["__complete", "bash", "--", "topics", "remove", ""]]
)
def test_a_config_nested_thousands_deep_is_a_one_line_error(capsys, config_file, text, line, command):
    config_file.write_text(text)
    code, out, err = run(capsys, *command)
    problem = f"{config_file}, line {line}: nested more than 8 levels deep (no setting needs more than 3)"
    if command[-1] == "--help" or command[0] == "__complete":
        assert "Traceback" not in err and "RecursionError" not in err + out
        return
    if command == ["config"]:  # it shows the settings all the same, and the problem
        assert code == 1 and f"\n  error: {problem}\n" in out and "\npaths:\n" in out
        return
    assert code == 1 and out == ""
    assert err == f"reader: error: {problem}\n"


def test_a_config_file_too_large_is_a_one_line_error(capsys, config_file):
    config_file.write_text("# padding\n" * 200_000)
    code, _, err = run(capsys, "topics", "list")
    assert code == 1 and err == f"reader: error: {config_file}, line 1: the file is larger than 1,000,000 characters\n"


def test_settings_nested_as_deep_as_they_need_still_read(capsys, config_file):
    config_file.write_text('theme = "nord"\n[arxiv]\ndelay = 2.5\nsync.weeks = 20\n'.replace("sync.weeks", "\n[sync]\nweeks"))
    code, out, err = run(capsys, "config", "--json")
    assert code == 0, err
    assert "2.5" in out and "20" in out


def test_environment_overrides_a_bad_file_value_only_for_that_setting(capsys, monkeypatch, config_file):
    config_file.write_text("[arxiv]\ndelay = -1\n")
    monkeypatch.setenv("READER_ARXIV_DELAY", "2")
    assert run(capsys, "topics", "list")[0] == 0


def test_unreadable_file_is_a_one_line_error(capsys, config_file):
    config_file.write_bytes(b"theme = '\xff'\n")
    code, _out, err = run(capsys, "topics", "list")
    assert code == 1 and err == f"reader: error: cannot read the config file {config_file}: it is not UTF-8 text\n"


def test_example_file_is_valid_and_names_every_file_setting(capsys, config_file):
    code, out, _ = run(capsys, "config", "--example")
    assert code == 0
    uncommented = "\n".join(line.removeprefix("# ") if " = " in line else line for line in out.splitlines())
    config_file.write_text(uncommented)
    code, out, err = run(capsys, "config", "--json")
    assert code == 0, err
    sources = {name: entry["source"] for name, entry in json.loads(out)["settings"].items()}
    assert {name for name, source in sources.items() if source == "file"} == {
        "arxiv.api_url",
        "arxiv.rss_url",
        "arxiv.html_url",
        "arxiv.pdf_url",
        "arxiv.delay",
        "arxiv.timeout",
        "arxiv.retries",
        "arxiv.backoff",
        "sync.weeks",
        "sync.interval_hours",
        "theme",
        "export_path",
        "bibtex.print_arxiv_id",
        "images",
        "display.math",
        "fulltext.figure_cache_mb",
    }  # data_dir and arxiv.ar5iv_url stay with the environment, which the tests set


# --- `reader config` with bad settings -----------------------------------------------------------


def row(out: str, name: str) -> str:
    """A setting's line of `reader config`, with the lines of its problems after it."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"  {name} "))
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].startswith("    "))
    return "\n".join(lines[start:end])


def test_config_shows_every_setting_with_a_bad_value_and_the_value_used_instead(capsys, config_file):
    config_file.write_text('theme = "nord"\n[arxiv]\ndelay = "fast"\nretries = 2\n')
    code, out, err = run(capsys, "topics", "list")  # other commands refuse, in one line
    assert code == 1 and out == ""
    assert err == (
        f'reader: error: {config_file}, line 3: arxiv.delay = "fast" is not a number (allowed: a number from 0 to 600 seconds)\n'
    )

    code, out, err = run(capsys, "config")
    assert code == 1
    assert re.fullmatch(
        rf'  arxiv\.delay +3 +default\n    error: {re.escape(str(config_file))}, line 3: arxiv\.delay = "fast" is not a number '
        r"\(allowed: a number from 0 to 600 seconds\)",
        row(out, "arxiv.delay"),
    )
    assert re.fullmatch(r"  arxiv\.retries +2 +config file line 4", row(out, "arxiv.retries"))  # the good ones still read
    assert re.fullmatch(r"  theme +nord +config file line 1", row(out, "theme"))
    assert f"  config  {config_file}\n" in out and "Traceback" not in err
    assert err == "reader: error: 1 problem in the settings (shown above): fix them, the values shown are used meanwhile\n"


def test_config_lists_every_problem_of_the_file_also_as_json(capsys, config_file):
    config_file.write_text("[arxiv]\ndelay = -1\ncolour = 'red'\n\n[sync]\nweeks = 0\n")
    code, out, _ = run(capsys, "config")
    assert code == 1
    assert f"    error: {config_file}, line 2: arxiv.delay = -1 is out of range" in row(out, "arxiv.delay")
    assert f"    error: {config_file}, line 6: sync.weeks = 0 is out of range" in row(out, "sync.weeks")
    assert f"\n  warning: {config_file}, line 3: unknown setting 'arxiv.colour' ignored (known: " in out

    code, out, _ = run(capsys, "config", "--json")
    assert code == 1
    report = json.loads(out)
    assert report["settings"]["arxiv.delay"]["value"] == 3.0 and report["settings"]["arxiv.delay"]["source"] == "default"
    assert report["settings"]["sync.weeks"]["value"] == 16
    errors = sorted(report["errors"], key=lambda e: e["line"])
    assert [(e["setting"], e["file"], e["line"]) for e in errors] == [
        ("arxiv.delay", str(config_file), 2),
        ("sync.weeks", str(config_file), 6),
    ]
    assert [(w["setting"], w["line"]) for w in report["warnings"]] == [("arxiv.colour", 3)]  # not a problem: reader starts
    assert errors[0]["message"] == f"{config_file}, line 2: arxiv.delay = -1 is out of range (allowed: a number from 0 to 600 seconds)"
    config_file.write_text("[arxiv]\ndelay = 2\n")
    code, out, _ = run(capsys, "config", "--json")
    assert code == 0 and json.loads(out)["errors"] == []


def test_config_on_a_file_that_is_not_toml_shows_the_other_sources_and_its_error(capsys, monkeypatch, config_file):
    config_file.write_text("[arxiv\ndelay = 1\n")
    monkeypatch.setenv("READER_ARXIV_RETRIES", "7")
    code, out, err = run(capsys, "config")
    assert code == 1 and "Traceback" not in err
    assert re.fullmatch(r"  arxiv\.retries +7 +environment READER_ARXIV_RETRIES", row(out, "arxiv.retries"))
    assert re.fullmatch(r"  arxiv\.delay +3 +default", row(out, "arxiv.delay"))
    assert f"\n  error: {config_file}, line 1: not valid TOML: Expected ']' at the end of a table declaration\n" in out
    code, out, _ = run(capsys, "config", "--json")
    assert code == 1
    assert json.loads(out)["errors"] == [
        {
            "setting": None,
            "file": str(config_file),
            "line": 1,
            "message": f"{config_file}, line 1: not valid TOML: Expected ']' at the end of a table declaration",
        }
    ]


def test_config_with_a_bad_environment_variable_uses_the_file_below_it(capsys, monkeypatch, config_file):
    config_file.write_text("[arxiv]\ndelay = 1.5\n")
    monkeypatch.setenv("READER_ARXIV_DELAY", "soon")
    code, out, _ = run(capsys, "config")
    assert code == 1
    assert re.fullmatch(
        r"  arxiv\.delay +1\.5 +config file line 2\n    error: READER_ARXIV_DELAY='soon' is not a number "
        r"\(allowed: a number from 0 to 600 seconds\)",
        row(out, "arxiv.delay"),
    )
    code, out, _ = run(capsys, "config", "--json")
    assert json.loads(out)["errors"] == [
        {
            "setting": "arxiv.delay",
            "file": None,
            "line": None,
            "message": "READER_ARXIV_DELAY='soon' is not a number (allowed: a number from 0 to 600 seconds)",
        }
    ]
    assert run(capsys, "topics", "list")[0] == 1


def test_config_names_the_nearest_theme_and_the_one_saved_by_the_app(capsys, config_file, data_dir):
    from reader.store import Store

    config_file.write_text('theme = "nrod"\n')
    code, out, _ = run(capsys, "config")
    assert code == 1
    assert f'    error: {config_file}, line 1: theme = "nrod" is not a theme (did you mean nord?)' in row(out, "theme")
    Store(data_dir).set_setting("theme", "dracula")  # as the app saves a theme chosen in its palette
    code, out, _ = run(capsys, "config")
    assert re.match(rf"  theme +dracula +saved by the app in {re.escape(str(data_dir / 'user.json'))}\n", row(out, "theme") + "\n")
    config_file.unlink()
    code, out, _ = run(capsys, "config", "--json")
    assert code == 0
    assert json.loads(out)["settings"]["theme"] == {
        "value": "dracula",
        "source": "saved",
        "where": str(data_dir / "user.json"),
        "env": "READER_THEME",
    }


@pytest.mark.parametrize(
    "text, warning",
    [
        ("dealy = 2\n", ", line 1: unknown setting 'dealy' ignored (did you mean arxiv.delay?)"),
        ("[arxiv]\ndelya = 3\n", ", line 2: unknown setting 'arxiv.delya' ignored (did you mean arxiv.delay?)"),
        ("[sync]\nweek = 3\n", ", line 2: unknown setting 'sync.week' ignored (did you mean sync.weeks?)"),
        ("today = 2026-01-01\n", ", line 1: unknown setting 'today' ignored (known: arxiv.api_url,"),
        # Quoted keys with escapes are found on their line (not "line 0"), the key shown escaped.
        ("theme = 'nord'\n\"\\u001b]0;x\\u0007\" = 1\n", ", line 2: unknown setting '\\x1b]0;x\\x07' ignored (known:"),
    ],
)
def test_an_unknown_setting_is_warned_of_once_with_its_line_and_the_command_runs(capsys, config_file, text, warning):
    config_file.write_text(text + "[arxiv]\nretries = 2\n" if "[arxiv]" not in text else text + "retries = 2\n")
    code, out, err = run(capsys, "topics", "list")
    assert code == 0 and "RL for LLM Agents" in out
    assert err.startswith(f"reader: warning: {config_file}{warning}") and err.count("\n") == 1, err
    code, out, err = run(capsys, "config")
    assert code == 0 and err == ""
    assert re.search(r"^  arxiv\.retries +2 +config file line \d$", out, re.MULTILINE)  # the rest of the file applies
    assert f"\n  warning: {config_file}{warning}" in out


async def test_the_app_starts_with_an_unknown_setting_and_says_it_once(config_file, data_dir):
    from reader.config import load_settings
    from reader.store import Store
    from tests.helpers.app import make_app, ready

    config_file.write_text("[arxiv]\ndealy = 2\n")
    app = make_app(Store(data_dir), app_settings=load_settings())
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert app.is_running and app.screen is app.main
        said = [message for message in app.message_log if "dealy" in message]
        assert said == [f"{config_file}, line 2: unknown setting 'arxiv.dealy' ignored (did you mean arxiv.delay?)"]


def test_images_comes_from_the_file_or_the_environment_in_any_case_and_defaults_to_auto(capsys, monkeypatch, config_file):
    code, out, _ = run(capsys, "config", "--json")
    assert code == 0 and json.loads(out)["settings"]["images"]["value"] == "auto"
    config_file.write_text('images = "off"\n')
    code, out, _ = run(capsys, "config", "--json")
    assert json.loads(out)["settings"]["images"] == {"value": "off", "source": "file", "where": "line 1", "env": "READER_IMAGES"}
    monkeypatch.setenv("READER_IMAGES", " HalfBlock ")
    code, out, _ = run(capsys, "config")
    assert code == 0 and re.search(r"^  images +halfblock +environment READER_IMAGES$", out, re.MULTILINE)
    config_file.write_text("images = 3\n")
    monkeypatch.delenv("READER_IMAGES")
    code, _, err = run(capsys, "topics", "list")
    assert code == 1 and err == f"reader: error: {config_file}, line 1: images = 3 is not an image mode (allowed: auto, halfblock, off)\n"


def test_display_math_comes_from_the_file_or_the_environment_and_shows_in_reader_config(capsys, monkeypatch, config_file):
    assert load_settings(environ={"READER_CONFIG_DIR": str(config_file.parent)}).math == "unicode"
    config_file.write_text('[display]\nmath = "TeX"\n')
    code, out, err = run(capsys, "config")
    assert code == 0, err
    assert re.search(r"display\.math +tex +config file line 2", out)
    monkeypatch.setenv("READER_DISPLAY_MATH", "unicode")
    code, out, _ = run(capsys, "config", "--json")
    assert json.loads(out)["settings"]["display.math"] == {
        "value": "unicode",
        "source": "env",
        "where": "READER_DISPLAY_MATH",
        "env": "READER_DISPLAY_MATH",
    }
