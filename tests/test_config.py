"""Settings: every source is validated, and a bad value is one line naming the setting and its range."""

from __future__ import annotations

import pytest

from reader.cli import main


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


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
        ("READER_SYNC_INTERVAL_HOURS", "1e10", "READER_SYNC_INTERVAL_HOURS='1e10' is out of range (allowed: a number from 0 to 8760 hours)"),
        ("READER_SYNC_INTERVAL_HOURS", "-inf", "READER_SYNC_INTERVAL_HOURS='-inf' is out of range"),
        ("READER_TODAY", "0001-01-01", "READER_TODAY='0001-01-01' is out of range (allowed: a date from 1991-01-01 to 9999-01-01)"),
        ("READER_TODAY", "9999-12-31", "READER_TODAY='9999-12-31' is out of range"),
        ("READER_TODAY", "yesterday", "READER_TODAY='yesterday' is not a date in the form YYYY-MM-DD"),
        ("READER_ARXIV_API_URL", "http://[::1", "READER_ARXIV_API_URL='http://[::1' is not a URL (Invalid IPv6 URL)"),
        ("READER_ARXIV_API_URL", "http://h:99999/api", "READER_ARXIV_API_URL='http://h:99999/api' is not a URL (Port out of range 0-65535)"),
        ("READER_ARXIV_API_URL", "http:///api", "READER_ARXIV_API_URL='http:///api' has no usable host name"),
        ("READER_ARXIV_API_URL", "ftp://example.org/", "READER_ARXIV_API_URL='ftp://example.org/' is not an http(s) URL"),
        ("READER_ARXIV_RSS_URL", "http://exa mple.org/", "READER_ARXIV_RSS_URL='http://exa mple.org/' is not a URL: it contains spaces"),
        ("READER_THEME", "[bold]x", "READER_THEME='[bold]x' is not a theme name"),
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
        ("READER_ARXIV_DELAY", "600"), ("READER_ARXIV_RETRIES", "10"), ("READER_SYNC_WEEKS", "1000"),
        ("READER_SYNC_INTERVAL_HOURS", "0"), ("READER_TODAY", "1991-01-01"), ("READER_ARXIV_API_URL", "http://[::1]:8080/api"),
    ]:
        monkeypatch.setenv(name, value)
    code, out, err = run(capsys, "momentum", "--json")
    assert code == 0, err
    assert '"as_of": "1991-01-01"' in out
