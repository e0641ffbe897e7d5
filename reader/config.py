"""Settings, read and validated in one place. Each setting comes from, in order of precedence, a
command-line flag, an environment variable (READER_...), the config file (TOML in the platform's
config directory) or its default; every value is checked against its allowed range, whatever its
source, and a bad one is a one-line ConfigError naming where it came from. `reader config` reads
them leniently instead: every problem is listed, and a bad value gives way to the next source. A
setting the file holds that reader does not know (a typo, or one of a newer version) is only a
warning naming its line and the nearest known setting: reader starts without it."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from reader.errors import ConfigError
from reader.setting_values import Invalid, boolean, choice, day, file_path, image_mode, known_theme, number, theme_name, url

DEFAULT_API_URL = "https://export.arxiv.org/api/query"
DEFAULT_RSS_URL = "https://rss.arxiv.org/rss/"
DEFAULT_HTML_URL = "https://arxiv.org/html/"
DEFAULT_PDF_URL = "https://arxiv.org/pdf/"
DEFAULT_AR5IV_URL = "https://ar5iv.labs.arxiv.org/html/"
CONFIG_FILE_NAME = "config.toml"


def parse_day(text: str, what: str, *, or_word: str = "") -> date:
    """YYYY-MM-DD within the range date arithmetic can use, or a ConfigError naming `what` (and
    `or_word`, a word the caller also takes, such as `last`, among what is allowed)."""
    try:
        return day(text, or_word)
    except Invalid as error:
        raise ConfigError(f"{what}={text!r} {error}") from None


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
    Spec("arxiv.api_url", "api_url", url, DEFAULT_API_URL, "export API endpoint"),
    Spec("arxiv.rss_url", "rss_url", url, DEFAULT_RSS_URL, "announcement feeds"),
    Spec("arxiv.html_url", "html_url", url, DEFAULT_HTML_URL, "papers' full text as HTML (the id and version follow)"),
    Spec("arxiv.ar5iv_url", "ar5iv_url", url, DEFAULT_AR5IV_URL, "ar5iv's HTML of older papers, tried before the PDF (the id follows)"),
    Spec("arxiv.pdf_url", "pdf_url", url, DEFAULT_PDF_URL, "papers' PDFs (the id and version follow)"),
    Spec("arxiv.delay", "delay", number(0, 600, " seconds"), 3.0, "seconds between the end of one request and the start of the next"),
    Spec("arxiv.timeout", "timeout", number(0.1, 600, " seconds"), 30.0, "seconds to connect and per read"),
    Spec("arxiv.retries", "retries", number(0, 10, "", whole=True), 4, "retries after a 429/5xx, a timeout or a broken response"),
    Spec(
        "arxiv.backoff",
        "backoff",
        number(0, 300, " seconds"),
        5.0,
        "seconds before the first retry (doubling; six times longer after a 429)",
    ),
    Spec("sync.weeks", "sync_weeks", number(1, 1000, " weeks", whole=True), 16, "how far back a topic's first sync reaches"),
    Spec(
        "sync.interval_hours", "sync_interval_hours", number(0, 8760, " hours"), 6.0, "the app syncs on start when the last sync is older"
    ),
    Spec(
        "fulltext.figure_cache_mb",
        "figure_cache_mb",
        number(1, 100_000, " MB", whole=True),
        200,
        "the most the figures fetched for full texts keep on disk (the least recently shown go first)",
    ),
    Spec("data_dir", "data_dir", file_path, None, "where the cache lives", example="~/arxiv-cache"),
    Spec("theme", "theme", theme_name, None, "the app's theme (Ctrl+P, Theme)", example="nord"),
    Spec("export_path", "export_path", file_path, None, "where the app's export dialog proposes to write", example="~/papers/starred.bib"),
    Spec(
        "bibtex.print_arxiv_id",
        "bibtex_print_arxiv_id",
        boolean,
        True,
        "BibTeX entries carry the arXiv id where every style prints it; false: arXiv's own fields only",
    ),
    Spec("images", "images", image_mode, "auto", "pictures: auto (the terminal's graphics where it has them), halfblock, or off"),
    Spec(
        "display.math",
        "math",
        choice("unicode", "tex"),
        "unicode",
        "math in titles and abstracts: unicode (𝒪(n²), ‖W‖_F) or tex, as arXiv sends it ($\\mathcal{O}(n^2)$)",
    ),
    Spec("today", "today_override", day, None, "fixes today for windows, momentum and the horizon", in_file=False),
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
    images: str = "auto"  # setting_values.IMAGE_MODES: how figures and PDF pages are drawn
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
        convert = known_theme(themes) if spec.name == "theme" and themes is not None else spec.convert
        values[spec.attribute], sources[spec.name] = spec.default, Source("default")
        for raw, source, described, line in _candidates(spec, flags, environ, in_file, path):
            try:
                values[spec.attribute], sources[spec.name] = convert(raw), source
                break
            except Invalid as error:
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
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return {}, [], []
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "it is not UTF-8 text"
        return {}, [ConfigProblem(f"cannot read the config file {path}: {reason}", file=path)], []
    # Only a file to parse needs the TOML parser (~4 ms of every command's start without one).
    import tomllib

    from reader.toml_file import flatten, toml_error, toml_key_lines, toml_limit_problem

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


def default_data_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("reader", appauthor=False))
