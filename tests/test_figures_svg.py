"""SVG figures: references hidden from a pattern are found by a real XML parser (in the parent and
again in the drawing's child), and the figure cache keeps only refusals that are the image's
fault, under the current format (an older reader's refusals are asked again)."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from reader.arxiv.client import ArxivClient
from reader.arxiv.options import ClientOptions
from reader.fulltext import svgdraw
from reader.fulltext.figures import FigureCache, fetch_image
from reader.fulltext.picture import ImageNotDrawnNow, ImageRefused, open_image
from reader.fulltext.svgdraw import draw_svg
from tests.conftest import ROOT
from tests.helpers.figures import BLUE, RED, two_bars_svg
from tests.helpers.timing import scaled

SVG_HEAD = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="40">'
URL = "2301.00001v1/x1.svg"


def _png(colour: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (4, 4), colour).save(out, "PNG")
    return out.getvalue()


@pytest.fixture
def secret(tmp_path) -> Path:
    """A file of the reader's own disk that resvg would read and draw if a drawing named it."""
    path = tmp_path / "secret.png"
    path.write_bytes(_png(RED))
    return path


HIDDEN_REFERENCES = {
    # a fake `href='#` inside another attribute swallowed the real one from the old pattern
    "bypass": '<image foo="href=\'#" href="{path}" bar="\'" width="40" height="40"/>',
    "xlink bypass": '<image foo="xlink:href=\'#" xlink:href="{path}" bar="\'" width="40" height="40"/>',
    "spelt as a character reference": '<image href="&#47;{rest}" width="40" height="40"/>',
    "feImage": '<filter id="f"><feImage href="{path}"/></filter><rect width="40" height="40" filter="url(#f)"/>',
    "style attribute url()": '<rect width="40" height="40" style="fill:url(file://{path}#a)"/>',
    "presentation attribute url()": '<rect width="40" height="40" fill="url(\'{path}#a\')"/>',
    "style element url()": "<style>rect {{ fill: url({path}#a) }}</style><rect width='40' height='40'/>",
    "style element @import": "<style>@import '{path}';</style><rect width='40' height='40'/>",
    "css escape": "<style>rect {{ fill: u\\72l({path}#a) }}</style><rect width='40' height='40'/>",
}


@pytest.mark.parametrize("name", HIDDEN_REFERENCES)
def test_a_reference_to_a_file_hidden_from_a_pattern_is_refused_by_the_parent_and_the_child(name, secret):
    body = HIDDEN_REFERENCES[name].format(path=secret, rest=str(secret).lstrip("/"))
    drawing = f"{SVG_HEAD}{body}</svg>".encode()
    with pytest.raises(ImageRefused, match="not drawn$") as refused:
        draw_svg(drawing)
    assert "\n" not in str(refused.value)
    # the child, asked directly (as if the parent's check were skipped), refuses it the same way
    child = subprocess.run(
        [sys.executable, "-m", "reader.fulltext.svgdraw"], input=drawing, capture_output=True, cwd=ROOT, timeout=scaled(60)
    )
    header, _, png = child.stdout.partition(b"\n")
    assert child.returncode == 0 and png == b""
    assert json.loads(header)["error"] == str(refused.value)


def test_a_drawing_naming_only_itself_and_embedded_images_is_still_drawn():
    embedded = base64.b64encode(_png(BLUE)).decode()
    drawing = (
        '<?xml version="1.0" encoding="utf-8" standalone="no"?>\n'
        '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n'  # as matplotlib writes
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="200" height="100">'
        "<defs><style>.left { fill: url(#red) }</style>"
        '<linearGradient id="red"><stop offset="0" stop-color="#ff0000"/><stop offset="1" stop-color="#ff0000"/></linearGradient>'
        '<rect id="box" width="100" height="100"/></defs>'
        '<use xlink:href="#box" class="left"/>'
        f'<image x="100" width="100" height="100" preserveAspectRatio="none" href="data:image/png;base64,{embedded}"/></svg>'
    )
    image = open_image(draw_svg(drawing.encode()))
    assert image.size == (1600, 800)
    assert image.getpixel((400, 400)) == RED and image.getpixel((1200, 400)) == BLUE


def _child(tmp_path, script: str) -> str:
    """A stand-in for the Python that runs the drawing's child."""
    path = tmp_path / "child.sh"
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(0o755)
    return str(path)


def test_a_crashed_child_is_said_as_a_crash_not_as_memory(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "executable", _child(tmp_path, "kill -SEGV $$"))
    with pytest.raises(ImageNotDrawnNow) as refused:
        draw_svg(two_bars_svg())
    assert str(refused.value) == "the SVG drawer crashed (signal 11); not drawn this time"


def _options(fake) -> ClientOptions:
    return ClientOptions(api_url=fake.api_url, rss_url=fake.rss_url, html_url=fake.html_url, delay=0, backoff=0.01, retries=2, timeout=5)


def _fetch(fake_arxiv, cache: FigureCache) -> Path:
    async def fetch() -> Path:
        async with ArxivClient(_options(fake_arxiv)) as client:
            return await fetch_image(client, cache, "2301.00001", 1, 1, fake_arxiv.html_url + URL)

    return asyncio.run(fetch())


@pytest.mark.parametrize(
    "child, said",
    [
        ("kill -SEGV $$", "the SVG drawer crashed (signal 11)"),
        ("exit 1", "the SVG drawer crashed (exit status 1)"),
        (None, "the SVG drawing could not be drawn now"),  # no such program
        ("exec sleep 30", "the SVG drawing was not drawn within 0.3 s"),
    ],
)
def test_a_passing_failure_is_said_once_and_not_kept_so_the_next_fetch_draws_it(child, said, fake_arxiv, tmp_path, monkeypatch):
    fake_arxiv.documents["/html/" + URL] = ({"Content-Type": "image/svg+xml"}, two_bars_svg())
    cache = FigureCache(tmp_path)
    real = sys.executable
    monkeypatch.setattr(svgdraw, "MAX_WAIT_SECONDS", 0.3)
    monkeypatch.setattr(sys, "executable", _child(tmp_path, child) if child else str(tmp_path / "missing"))
    with pytest.raises(ImageNotDrawnNow, match=said.replace("(", r"\(").replace(")", r"\)")):
        _fetch(fake_arxiv, cache)
    assert not list(cache.folder("2301.00001", 1).glob("1.*"))  # nothing kept: neither image nor refusal
    monkeypatch.setattr(sys, "executable", real)
    monkeypatch.setattr(svgdraw, "MAX_WAIT_SECONDS", 30)
    assert _fetch(fake_arxiv, cache) == cache.folder("2301.00001", 1) / "1.png"


def test_a_refusal_kept_by_an_older_reader_is_asked_again(fake_arxiv, tmp_path):
    fake_arxiv.documents["/html/" + URL] = ({"Content-Type": "image/svg+xml"}, two_bars_svg())
    cache = FigureCache(tmp_path)
    folder = cache.folder("2301.00001", 1)
    folder.mkdir(parents=True)
    (folder / "1.refused").write_text("an SVG drawing (reader shows its caption and link)")  # before SVGs were drawn
    assert cache.stored("2301.00001", 1, 1) is None
    path = _fetch(fake_arxiv, cache)
    assert path == folder / "1.png" and not (folder / "1.refused").exists()
    assert cache.read_with_bytes(path)[0].getpixel((400, 400)) == RED


def test_a_refusal_that_is_the_images_fault_is_kept_and_never_asked_again(fake_arxiv, tmp_path, secret):
    fake_arxiv.documents["/html/" + URL] = ({"Content-Type": "image/svg+xml"}, f'{SVG_HEAD}<image href="{secret}"/></svg>'.encode())
    cache = FigureCache(tmp_path)
    for _ in range(2):
        with pytest.raises(ImageRefused, match="^an SVG drawing naming another file; not drawn$"):
            _fetch(fake_arxiv, cache)
    assert len(fake_arxiv.requests) == 1
    assert cache.stored("2301.00001", 1, 1).refused == "an SVG drawing naming another file; not drawn"
