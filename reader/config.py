"""Settings, read and validated in one place. Each setting comes from, in order of precedence, a
command-line flag, an environment variable (READER_...), the config file (TOML in the platform's
config directory) or its default; every value is checked against its allowed range, whatever its
source, and a bad one is a one-line ConfigError naming where it came from. `reader config` reads
them leniently instead: every problem is listed, and a bad value gives way to the next source. A
setting the file holds that reader does not know (a typo, or one of a newer version) is only a
warning naming its line and the nearest known setting: reader starts without it."""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from reader.errors import ConfigError

DEFAULT_API_URL = "https://export.arxiv.org/api/query"
DEFAULT_RSS_URL = "https://rss.arxiv.org/rss/"
DEFAULT_HTML_URL = "https://arxiv.org/html/"
DEFAULT_PDF_URL = "https://arxiv.org/pdf/"
DEFAULT_AR5IV_URL = "https://ar5iv.labs.arxiv.org/html/"
CONFIG_FILE_NAME = "config.toml"
# "Today" must leave room for the sync horizon and the chart's weeks on both sides of the
# calendar, and arXiv has no papers before it began.
EARLIEST_DAY = date(1991, 1, 1)
LATEST_DAY = date(9999, 1, 1)


class _Invalid(ValueError):
    """Why a raw value is unusable; the caller adds which setting and where it came from."""


# --- value kinds ---------------------------------------------------------------------------------


def _number(low: float, high: float, unit: str, *, whole: bool = False) -> Callable[[Any], float | int]:
    allowed = f"{'a whole number' if whole else 'a number'} from {low:g} to {high:g}{unit}"

    def convert(raw: Any) -> float | int:
        if isinstance(raw, bool):
            raise _Invalid(f"is not a number (allowed: {allowed})")
        if isinstance(raw, str):
            try:
                raw = float(raw.strip())
            except ValueError:
                raise _Invalid(f"is not a number (allowed: {allowed})") from None
        if not isinstance(raw, (int, float)):
            raise _Invalid(f"is not a number (allowed: {allowed})")
        if math.isnan(raw) or not low <= raw <= high:
            raise _Invalid(f"is out of range (allowed: {allowed})")
        if whole:
            if raw != int(raw):
                raise _Invalid(f"is not a whole number (allowed: {allowed})")
            return int(raw)
        return float(raw)

    return convert


# The patterns below are compiled at their first use (by re's cache), not by every command's start.
_URL_HOST = r"[A-Za-z0-9.-]+|[0-9A-Fa-f:.]+"


def _url(raw: Any) -> str:
    allowed = "an http(s) URL such as https://export.arxiv.org/api/query"
    if not isinstance(raw, str) or not raw.strip():
        raise _Invalid(f"is not a URL (allowed: {allowed})")
    text = raw.strip()
    if any(c.isspace() or not c.isprintable() for c in text):
        raise _Invalid("is not a URL: it contains spaces or control characters")
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(text)
        host, port = parts.hostname, parts.port
    except ValueError as error:
        raise _Invalid(f"is not a URL ({error})") from None
    if parts.scheme not in ("http", "https"):
        raise _Invalid(f"is not an http(s) URL (allowed: {allowed})")
    if not host or not re.fullmatch(_URL_HOST, host):
        raise _Invalid("has no usable host name (a name or an IP address)")
    if port == 0:
        raise _Invalid("has port 0 (allowed: 1 to 65535)")
    return text


def parse_day(text: str, what: str, *, or_word: str = "") -> date:
    """YYYY-MM-DD within the range date arithmetic can use, or a ConfigError naming `what` (and
    `or_word`, a word the caller also takes, such as `last`, among what is allowed)."""
    try:
        return _day(text, or_word)
    except _Invalid as error:
        raise ConfigError(f"{what}={text!r} {error}") from None


def _day(raw: Any, or_word: str = "") -> date:
    allowed = f"{or_word + ' or ' if or_word else ''}a date from {EARLIEST_DAY} to {LATEST_DAY}"
    if isinstance(raw, date):
        day = raw
    else:
        try:
            day = date.fromisoformat(str(raw).strip())
        except ValueError:
            raise _Invalid(f"is not a date in the form YYYY-MM-DD (allowed: {allowed})") from None
    if not EARLIEST_DAY <= day <= LATEST_DAY:
        raise _Invalid(f"is out of range (allowed: {allowed})")
    return day


_TRUE, _FALSE = frozenset({"true", "yes", "on", "1"}), frozenset({"false", "no", "off", "0"})


def _boolean(raw: Any) -> bool:
    """true or false (TOML's), or from the environment true/false, yes/no, on/off, 1/0 in any case."""
    if isinstance(raw, bool):
        return raw
    word = raw.strip().lower() if isinstance(raw, str) else None
    if word in _TRUE or word in _FALSE:
        return word in _TRUE
    raise _Invalid("is not true or false (allowed: true or false)")


def _choice(*words: str) -> Callable[[Any], str]:
    allowed = " or ".join(words)

    def convert(raw: Any) -> str:
        word = raw.strip().lower() if isinstance(raw, str) else None
        if word not in words:
            raise _Invalid(f"is not one of the choices (allowed: {allowed})")
        return word

    return convert


def _path(raw: Any) -> Path:
    if not isinstance(raw, str) or not raw.strip():
        raise _Invalid("is not a path (allowed: a file or directory path, ~ for home)")
    if "\0" in raw:
        raise _Invalid("is not a path: it contains a NUL character")
    return Path(raw.strip()).expanduser()


def _theme(raw: Any) -> str:
    if not isinstance(raw, str) or not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", raw.strip()):
        raise _Invalid("is not a theme name (allowed: a name like nord or solarized-light)")
    return raw.strip()


def theme_problem(name: str, themes: Collection[str]) -> str | None:
    """Why `name` is none of `themes` (the app's), naming the nearest one, as keymap.toml's
    mistakes do; None when it is one."""
    if name in themes:
        return None
    import difflib

    close = difflib.get_close_matches(name.lower(), sorted(themes), n=1)
    return f"is not a theme (did you mean {close[0]}?)" if close else f"is not a theme (themes: {', '.join(sorted(themes))})"


IMAGE_MODES = ("auto", "halfblock", "off")


def _images(raw: Any) -> str:
    """auto: a terminal's graphics protocol where it speaks one, else half blocks; halfblock;
    off: no pixels at all."""
    word = raw.strip().lower() if isinstance(raw, str) else None
    if word not in IMAGE_MODES:
        raise _Invalid(f"is not an image mode (allowed: {', '.join(IMAGE_MODES)})")
    return word


def _known_theme(themes: Collection[str]) -> Callable[[Any], str]:
    def convert(raw: Any) -> str:
        name = _theme(raw)
        problem = theme_problem(name, themes)
        if problem:
            raise _Invalid(problem)
        return name

    return convert


# --- the settings ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Spec:
    name: str  # as written in the config file, e.g. "arxiv.delay" ([arxiv] delay = ...)
    attribute: str  # the Settings field
    convert: Callable[[Any], Any]
    default: Any
    help: str
    in_file: bool = True  # False: environment only (a testing aid, not a preference)
    example: Any = None  # shown in the example file for a setting unset by default

    @property
    def env(self) -> str:
        return "READER_" + self.name.replace(".", "_").upper()


SPECS: tuple[Spec, ...] = (
    Spec("arxiv.api_url", "api_url", _url, DEFAULT_API_URL, "export API endpoint"),
    Spec("arxiv.rss_url", "rss_url", _url, DEFAULT_RSS_URL, "announcement feeds"),
    Spec("arxiv.html_url", "html_url", _url, DEFAULT_HTML_URL, "papers' full text as HTML (the id and version follow)"),
    Spec("arxiv.ar5iv_url", "ar5iv_url", _url, DEFAULT_AR5IV_URL, "ar5iv's HTML of older papers, tried before the PDF (the id follows)"),
    Spec("arxiv.pdf_url", "pdf_url", _url, DEFAULT_PDF_URL, "papers' PDFs (the id and version follow)"),
    Spec("arxiv.delay", "delay", _number(0, 600, " seconds"), 3.0, "seconds between the end of one request and the start of the next"),
    Spec("arxiv.timeout", "timeout", _number(0.1, 600, " seconds"), 30.0, "seconds to connect and per read"),
    Spec("arxiv.retries", "retries", _number(0, 10, "", whole=True), 4, "retries after a 429/5xx, a timeout or a broken response"),
    Spec(
        "arxiv.backoff",
        "backoff",
        _number(0, 300, " seconds"),
        5.0,
        "seconds before the first retry (doubling; six times longer after a 429)",
    ),
    Spec("sync.weeks", "sync_weeks", _number(1, 1000, " weeks", whole=True), 16, "how far back a topic's first sync reaches"),
    Spec(
        "sync.interval_hours", "sync_interval_hours", _number(0, 8760, " hours"), 6.0, "the app syncs on start when the last sync is older"
    ),
    Spec(
        "fulltext.figure_cache_mb",
        "figure_cache_mb",
        _number(1, 100_000, " MB", whole=True),
        200,
        "the most the figures fetched for full texts keep on disk (the least recently shown go first)",
    ),
    Spec("data_dir", "data_dir", _path, None, "where the cache lives", example="~/arxiv-cache"),
    Spec("theme", "theme", _theme, None, "the app's theme (Ctrl+P, Theme)", example="nord"),
    Spec("export_path", "export_path", _path, None, "where the app's export dialog proposes to write", example="~/papers/starred.bib"),
    Spec(
        "bibtex.print_arxiv_id",
        "bibtex_print_arxiv_id",
        _boolean,
        True,
        "BibTeX entries carry the arXiv id where every style prints it; false: arXiv's own fields only",
    ),
    Spec("images", "images", _images, "auto", "pictures: auto (the terminal's graphics where it has them), halfblock, or off"),
    Spec(
        "display.math",
        "math",
        _choice("unicode", "tex"),
        "unicode",
        "math in titles and abstracts: unicode (𝒪(n²), ‖W‖_F) or tex, as arXiv sends it ($\\mathcal{O}(n^2)$)",
    ),
    Spec("today", "today_override", _day, None, "fixes today for windows, momentum and the horizon", in_file=False),
)
SPEC_BY_NAME = {spec.name: spec for spec in SPECS}


@dataclass(frozen=True, slots=True)
class Settings:
    api_url: str
    rss_url: str
    delay: float  # seconds between the end of one request and the start of the next
    timeout: float  # seconds for connect and for each read
    retries: int
    backoff: float  # seconds before the first retry (doubling each time)
    today_override: date | None
    sync_weeks: int  # how far back a first sync reaches
    sync_interval_hours: float  # the app syncs on start when the last sync is older than this
    data_dir: Path | None
    theme: str | None = None  # None: the theme the app remembers, else Textual's default
    export_path: Path | None = None  # None: the path the app remembers, else ~/starred.bib
    bibtex_print_arxiv_id: bool = True  # howpublished + options = {eprint=false} (see core/bibtex.py)
    html_url: str = DEFAULT_HTML_URL
    pdf_url: str = DEFAULT_PDF_URL
    ar5iv_url: str = DEFAULT_AR5IV_URL
    images: str = "auto"  # IMAGE_MODES: how figures and PDF pages are drawn
    math: str = "unicode"  # titles' and abstracts' math shown as "unicode" or "tex" (reader/core/texmath.py)
    figure_cache_mb: int = 200  # the figures' cache's cap (reader/fulltext/figures.py)
    sources: Mapping[str, Source] = field(default_factory=dict)  # setting name -> where its value came from
    problems: tuple[ConfigProblem, ...] = ()  # read leniently (`reader config`): what could not be used
    unknown: tuple[ConfigProblem, ...] = ()  # settings in the file reader does not know: warned of, ignored

    def today(self) -> date:
        return self.today_override or date.today()

    @classmethod
    def from_env(cls) -> Settings:
        """The settings a plain `reader` run uses: environment, config file, defaults."""
        return load_settings()


@dataclass(frozen=True, slots=True)
class Source:
    """Where a setting's value came from: kind is "flag", "env", "file" or "default"; `where` names
    the flag, the variable or the file's line."""

    kind: str
    where: str = ""

    def __str__(self) -> str:
        names = {"flag": "flag", "env": "environment", "file": "config file", "default": "default", "saved": "saved by the app in"}
        return names[self.kind] + (f" {self.where}" if self.where else "")


@dataclass(frozen=True, slots=True)
class ConfigProblem:
    """A value, or the config file, that cannot be used. `message` is the one-line error every
    command but `reader config` stops with."""

    message: str
    setting: str | None = None  # None: the file as a whole (unreadable, not TOML)
    file: Path | None = None  # None: a flag or an environment variable
    line: int | None = None

    def to_json(self) -> dict:
        return {"setting": self.setting, "file": None if self.file is None else str(self.file), "line": self.line, "message": self.message}


def load_settings(
    flags: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    *,
    lenient: bool = False,
    themes: Collection[str] | None = None,
) -> Settings:
    """Each setting from its flag (name -> raw value; None means not given), else its environment
    variable (empty counts as unset), else the config file, else its default. The first problem is
    a ConfigError, unless `lenient`: then a bad value gives way to the next source down, and every
    problem is in Settings.problems. `themes`: the app's themes, which a theme must be one of."""
    environ = os.environ if environ is None else environ
    flags = {name: raw for name, raw in (flags or {}).items() if raw is not None}
    path = config_file(environ)
    in_file, problems, unknown = read_config_file(path)
    values: dict[str, Any] = {}
    sources: dict[str, Source] = {}
    for spec in SPECS:
        convert = _known_theme(themes) if spec.name == "theme" and themes is not None else spec.convert
        values[spec.attribute], sources[spec.name] = spec.default, Source("default")
        for raw, source, described, line in _candidates(spec, flags, environ, in_file, path):
            try:
                values[spec.attribute], sources[spec.name] = convert(raw), source
                break
            except _Invalid as error:
                problems.append(ConfigProblem(f"{described} {error}", spec.name, path if source.kind == "file" else None, line))
    if problems and not lenient:
        raise ConfigError(problems[0].message)
    return Settings(**values, sources=sources, problems=tuple(problems), unknown=tuple(unknown))


def _candidates(
    spec: Spec, flags: Mapping[str, Any], environ: Mapping[str, str], in_file: dict[str, tuple[Any, int]], path: Path
) -> Iterator[tuple[Any, Source, str, int | None]]:
    """A setting's raw values, highest precedence first: (raw, its source, how a message names
    it, its line in the file)."""
    if spec.name in flags:
        flag = f"--{spec.name.replace('_', '-')}"
        yield flags[spec.name], Source("flag", flag), f"{flag}={flags[spec.name]!r}", None
    raw = environ.get(spec.env, "")
    if raw.strip():
        yield raw, Source("env", spec.env), f"{spec.env}={raw!r}", None
    if spec.name in in_file:
        raw, line = in_file[spec.name]
        yield raw, Source("file", f"line {line}"), f"{path}, line {line}: {spec.name} = {_toml_text(raw)}", line


def _toml_text(value: Any) -> str:
    """A value from the file as it reads there, for messages (strings quoted and escaped)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value) if isinstance(value, (int, float)) else str(value)


# --- files and directories ---------------------------------------------------------------------


def _platform_dir(environ: Mapping[str, str], variable: str, kind: str) -> Path:
    override = environ.get(variable, "").strip()
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(getattr(platformdirs, kind)("reader", appauthor=False))


def config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where config.toml and keymap.toml live: READER_CONFIG_DIR, else the platform's config dir."""
    return _platform_dir(os.environ if environ is None else environ, "READER_CONFIG_DIR", "user_config_dir")


def config_file(environ: Mapping[str, str] | None = None) -> Path:
    return config_dir(environ) / CONFIG_FILE_NAME


def log_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where the log is written: READER_LOG_DIR, else the platform's log dir."""
    return _platform_dir(os.environ if environ is None else environ, "READER_LOG_DIR", "user_log_dir")


def read_config_file(path: Path) -> tuple[dict[str, tuple[Any, int]], list[ConfigProblem], list[ConfigProblem]]:
    """Setting name -> (raw value, line) from the TOML file ({} when there is none), its problems
    (a file that cannot be read or is not TOML has no values) and its unknown settings, left out.
    The file is the user's own: it is only ever read."""
    import tomllib

    from reader.toml_limits import toml_limit_problem

    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return {}, [], []
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "it is not UTF-8 text"
        return {}, [ConfigProblem(f"cannot read the config file {path}: {reason}", file=path)], []
    too_deep = toml_limit_problem(text)
    if too_deep:
        return {}, [ConfigProblem(f"{path}, line {too_deep[0]}: {too_deep[1]}", file=path, line=too_deep[0])], []
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        line, reason = toml_error(error, text.splitlines())
        return {}, [ConfigProblem(f"{path}, line {line}: not valid TOML: {reason}", file=path, line=line)], []
    lines = toml_key_lines(text)
    found: dict[str, tuple[Any, int]] = {}
    unknown = []
    for name, value in flatten(document).items():
        line = lines.get(name, 0)
        spec = SPEC_BY_NAME.get(name)
        if spec is None or not spec.in_file:
            message = f"{path}, line {line}: unknown setting {name!r} ignored ({_nearest_setting(name)})"
            unknown.append(ConfigProblem(message, name, path, line))
        else:
            found[name] = (value, line)
    return found, [], unknown


def _nearest_setting(name: str) -> str:
    """ "did you mean arxiv.delay?" for `dealy`, `delya` or `arxiv.dealy` (its key's letters
    swapped, or a key close to it, whatever table it is in), else the known settings."""
    import difflib

    known = [spec.name for spec in SPECS if spec.in_file]
    by_key = {spec_name.rpartition(".")[2]: spec_name for spec_name in known}
    typed = name.rpartition(".")[2].lower()
    close = [key for key in by_key if sorted(key) == sorted(typed)] or difflib.get_close_matches(typed, list(by_key), n=1, cutoff=0.65)
    return f"did you mean {by_key[close[0]]}?" if close else f"known: {', '.join(known)}"


_TOML_POSITION = r"\s*\(at (?:line (\d+), column \d+|end of document)\)"


def toml_error(error: ValueError, lines: list[str]) -> tuple[int, str]:
    """The line a TOML error points at ("end of document": the last line with text), and its
    message without the position."""
    message = str(error)
    match = re.search(_TOML_POSITION, message)
    if match and match.group(1):
        line = min(int(match.group(1)), len(lines)) or 1
    else:
        filled = [number for number, text in enumerate(lines, start=1) if text.strip()]
        line = filled[-1] if filled else 1
    return line, re.sub(_TOML_POSITION, "", message)


def flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """{"arxiv": {"delay": 3}} -> {"arxiv.delay": 3}: tables and dotted keys name the same thing."""
    flat: dict[str, Any] = {}
    for key, value in table.items():
        if isinstance(value, dict):
            flat.update(flatten(value, prefix + key + "."))
        else:
            flat[prefix + key] = value
    return flat


_KEY_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_KEY_PATH = rf"{_KEY_PART}(?:\s*\.\s*{_KEY_PART})*"
_TABLE_LINE = rf"\s*\[\s*({_KEY_PATH})\s*\]\s*(?:#.*)?$"
_KEY_LINE = rf"\s*({_KEY_PATH})\s*="


def toml_key_lines(text: str) -> dict[str, int]:
    """Dotted key -> the line (1-based) that sets it, for messages; tomllib keeps no positions."""
    lines: dict[str, int] = {}
    table = ""
    for number, line in enumerate(text.splitlines(), start=1):
        if header := re.match(_TABLE_LINE, line):
            table = _dotted(header.group(1)) + "."
            lines.setdefault(table[:-1], number)
        elif key := re.match(_KEY_LINE, line):
            lines.setdefault(table + _dotted(key.group(1)), number)
    return lines


def _dotted(path: str) -> str:
    parts = re.findall(_KEY_PART, path)
    return ".".join(_key_name(part) for part in parts)


def _key_name(part: str) -> str:
    """A key as TOML reads it: a basic string's escapes (\\u001b, \\t...) decoded."""
    if part[:1] == "'":
        return part[1:-1]
    if part[:1] == '"':
        import tomllib

        try:
            return tomllib.loads(f"k = {part}")["k"]
        except tomllib.TOMLDecodeError:  # the file's own parse would have failed first
            return part[1:-1]
    return part


def default_data_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("reader", appauthor=False))
