#!/usr/bin/env python3
"""The page at `/` in a real browser: headless Chromium driven by selenium.

Runs against a server that is already listening (--base-url). Each check opens the page afresh,
uploads a file through the plain file input and looks at what a person would see. Screenshots of
the main steps go to --shots; --readme-shot also writes the README's screenshot.

Checks: the page loads with its Content-Security-Policy and no console errors; a generated cyclic
save opens as a tree; a `$ref` link scrolls to its target and highlights it, and Back returns;
search finds and steps through matches; an archive nested deeper than the server writes in one
piece opens with its deepest objects in `$table`; the summary panel's figures equal `?view=summary`'s; a
class in the panel filters the tree, and class names wrap between words only; a string edited
in place shows in its parent's preview and comes back in the downloaded archive (decoded by the
API); the toolbar stays one line from 1,024 px with a long name, a search and an edit; the raw view toggles; a hostile archive with markup in its class
names, keys and strings shows it as text and runs nothing; a broken file shows the problem
document; a typedstream and a JSON file open; a reference into a 50,000-element array renders
that element's page only; an attributed string's text keeps its length when edited, and a key
named __proto__ is edited like any other; in a keyed archive written here with plistlib, a PNG
data value's row shows its thumbnail from a blob: URL (naturalWidth its width), revoked when the
tree is made anew, and a PNG over 8 MiB, a PNG of 20 million pixels and a TIFF (which Chromium does
not show) show none; selecting it opens the data panel, whose first hex line begins 89 50 4E 47 and
whose kind says PNG with its pixel size, and Escape closes it; a 3 MiB value's dump pages 4 KiB at
a time (next, last, previous) with the panel under 1,500 elements; "Save bytes" downloads bytes
equal to the original's; a number that reads as a date shows both readings on hover; a real web
archive (Tests/Fixtures/public/webarchive/) shows its PNG's thumbnail at the size its IHDR says, the
panel says that size, its response a binary plist and its HTML page "unknown".

Exit status 0 when every check holds; each failure is printed with its name.
"""

import argparse
import json
import pathlib
import plistlib
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request
import zlib
from datetime import UTC, datetime, timedelta

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

ROOT = pathlib.Path(__file__).resolve().parents[2]


def post(base, path, body, content_type="application/octet-stream"):
    request = urllib.request.Request(base + path, data=body, method="POST", headers={"Content-Type": content_type})
    with urllib.request.urlopen(request, timeout=120) as reply:
        return reply.read()


def browser(download_dir):
    options = Options()
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1400,900"):
        options.add_argument(flag)
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary:
        options.binary_location = binary
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    options.add_experimental_option("prefs", {
        "download.default_directory": str(download_dir),
        "download.prompt_for_download": False,
    })
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(download_dir)})
    return driver


class Page:
    def __init__(self, driver, base, shots):
        self.driver = driver
        self.base = base
        self.shots = shots

    def load(self):
        self.driver.get(self.base + "/")
        WebDriverWait(self.driver, 20).until(lambda d: d.execute_script("return !!window.archivePage"))

    def upload(self, path, wait_for="ready", timeout=120):
        self.driver.execute_script("delete document.body.dataset.ready; delete document.body.dataset.summary")
        self.driver.find_element(By.ID, "file").send_keys(str(path))
        if wait_for == "ready":
            WebDriverWait(self.driver, timeout).until(lambda d: d.execute_script("return document.body.dataset.ready === '1'"))
        elif wait_for == "problem":
            WebDriverWait(self.driver, timeout).until(lambda d: d.find_element(By.ID, "problem").is_displayed())

    def wait_indexed(self, timeout=60):
        WebDriverWait(self.driver, timeout).until(lambda d: d.execute_script("return window.archivePage.timings.indexed > 0"))

    def wait_summary(self, timeout=60):
        WebDriverWait(self.driver, timeout).until(lambda d: d.execute_script("return document.body.dataset.summary === '1'"))

    def shot(self, name):
        path = self.shots / f"{name}.png"
        self.driver.save_screenshot(str(path))
        return path

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def open_row(self, key=None, cls=None):
        """Expands the first row with this key or class name (if it is not open already)."""
        found = self.js("""
          const [key, cls] = arguments;
          const row = [...document.querySelectorAll('#tree .row')].find(r =>
            key !== null ? (r.querySelector('.key') || {}).textContent === key : (r.querySelector('.cls') || {}).textContent === cls);
          if (!row) return false;
          if (row.getAttribute('aria-expanded') !== 'true') row.querySelector('.twist').click();
          return true;""", key, cls)
        assert found, f"no row with key {key!r} / class {cls!r}"

    def select_row(self, key):
        """Clicks the first row with this key (selecting it); returns nothing."""
        found = self.js("""
          const row = [...document.querySelectorAll('#tree .row')].find(r => (r.querySelector('.key') || {}).textContent === arguments[0]);
          if (row) row.click();
          return !!row;""", key)
        assert found, f"no row with key {key!r}"

    def focused_row_text(self):
        return self.js("const r = document.querySelector('#tree .row.focus'); return r ? r.textContent : null")

    def console_errors(self):
        return [e for e in self.driver.get_log("browser") if e.get("level") == "SEVERE"]


def make_save(base, work):
    path = work / "save.plist"
    subprocess.run([sys.executable, str(ROOT / "scripts/gen/gen_game_save.py"), "--teams", "4", "--out", str(path)], check=True)
    return path


def make_hostile(base, work):
    document = {
        "$class": "<img src=x onerror=\"window.pwned=1\">",
        "title": "</script><script>window.pwned=2</script>",
        "<b onmouseover=\"window.pwned=3\">key</b>": "<svg onload=\"window.pwned=4\">",
        "items": {"$class": "NSMutableArray", "$array": ["<iframe src=javascript:window.pwned=5>", "&lt;escaped&gt;"]},
    }
    archive = post(base, "/v1/encode", json.dumps(document).encode(), "application/json")
    path = work / "hostile.plist"
    path.write_bytes(archive)
    return path, document


def make_png(width, height, comment=b"", blank=False):
    """A valid RGB PNG of `width` by `height` pixels (a gradient, or black when `blank`), written
    with zlib; with a tEXt chunk holding `comment` when given."""
    def chunk(kind, body):
        return len(body).to_bytes(4, "big") + kind + body + zlib.crc32(kind + body).to_bytes(4, "big")
    if blank:
        rows = bytes((1 + 3 * width) * height)
    else:
        rows = b"".join(b"\x00" + bytes(c for x in range(width) for c in (x * 10 % 256, y * 15 % 256, (x + y) * 5 % 256)) for y in range(height))
    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes((8, 2, 0, 0, 0))
    text = chunk(b"tEXt", b"Comment\x00" + comment) if comment else b""
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + text + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def make_tiff():
    """A valid one-pixel grey TIFF (little-endian, uncompressed), which Chromium does not show."""
    entries = [(256, 3, 1), (257, 3, 1), (258, 3, 8), (259, 3, 1), (262, 3, 1), (273, 4, 110), (278, 3, 1), (279, 4, 1)]
    ifd = len(entries).to_bytes(2, "little") + b"".join(
        tag.to_bytes(2, "little") + kind.to_bytes(2, "little") + (1).to_bytes(4, "little") + value.to_bytes(4, "little") for tag, kind, value in entries)
    return b"II*\x00" + (8).to_bytes(4, "little") + ifd + bytes(4) + b"\x80"


# The inspector's archive: a keyed archive, written with plistlib as NSKeyedArchiver lays one out,
# whose root object holds a small PNG, a PNG over the thumbnails' 8 MiB, a small PNG of more pixels
# than a thumbnail decodes, a TIFF, a large data value and a number that reads as a date.
INSPECTED_PNG_SIZE = (24, 16)
INSPECTED_LARGE_BYTES = 3 * 1024 * 1024 + 123
INSPECTED_TIMESTAMP = 700000000


def make_inspected(work):
    png = make_png(*INSPECTED_PNG_SIZE)
    # Not UTF-8 from its first bytes (the service would write text as `$text`).
    large = bytes((i * 131 + 0x87) % 256 for i in range(INSPECTED_LARGE_BYTES))
    over = make_png(*INSPECTED_PNG_SIZE, comment=b"x" * (8 * 1024 * 1024))
    archive = {
        "$archiver": "NSKeyedArchiver",
        "$version": 100000,
        "$top": {"root": plistlib.UID(1)},
        "$objects": [
            "$null",
            {"$class": plistlib.UID(2), "image": plistlib.UID(3), "blob": plistlib.UID(4), "created": INSPECTED_TIMESTAMP,
             "poster": plistlib.UID(5), "scan": plistlib.UID(6), "mural": plistlib.UID(7)},
            {"$classname": "Inspected", "$classes": ["Inspected", "NSObject"]},
            png,
            large,
            over,
            make_tiff(),
            make_png(5000, 4000, blank=True),
        ],
    }
    path = work / "inspected.plist"
    path.write_bytes(plistlib.dumps(archive, fmt=plistlib.FMT_BINARY))
    return path, png, large


def wait_download(downloads, timeout=30):
    """The one file downloaded, once Chromium has finished it: it may make the file under its own
    name, empty, before its .crdownload, so the file must also keep its size between two looks."""
    deadline = time.time() + timeout
    seen = None
    while time.time() < deadline:
        names = list(downloads.iterdir())
        files = [f for f in names if not f.name.endswith(".crdownload")]
        if files and len(files) == len(names):
            now = (files[0].name, files[0].stat().st_size)
            if now == seen:
                return files[0]
            seen = now
        time.sleep(0.2)
    raise AssertionError("nothing downloaded")


def clear_downloads(downloads):
    for old in downloads.iterdir():
        old.unlink()


def open_inspected(page, inspected):
    page.load()
    page.upload(inspected)


def check_thumbnail(page, inspected):
    """A PNG data value's row shows a thumbnail from a blob: URL, decoded by the browser."""
    open_inspected(page, inspected)
    WebDriverWait(page.driver, 10).until(lambda d: d.execute_script("""
      const row = [...document.querySelectorAll('#tree .row')].find(r => (r.querySelector('.key') || {}).textContent === 'image');
      const img = row && row.querySelector('img.thumb');
      return !!img && img.complete && img.naturalWidth > 0;"""))
    thumb = page.js("""
      const row = [...document.querySelectorAll('#tree .row')].find(r => (r.querySelector('.key') || {}).textContent === 'image');
      const img = row.querySelector('img.thumb');
      return {src: img.src, width: img.naturalWidth, height: img.naturalHeight};""")
    assert thumb["src"].startswith("blob:"), thumb
    assert (thumb["width"], thumb["height"]) == INSPECTED_PNG_SIZE, thumb
    # No thumbnail for the value that is no image, nor the PNG over 8 MiB, nor the 20-megapixel PNG
    # (over the 16 million pixels a thumbnail decodes, in 58 KB), nor (once it failed to load) the
    # TIFF, which Chromium does not show.
    WebDriverWait(page.driver, 10).until(lambda d: d.execute_script("return document.querySelectorAll('#tree img.thumb').length === 1"))
    assert page.js("return window.archivePage.liveThumbnails()") == 1
    page.shot("09-thumbnail")
    # The raw view makes the tree anew: the thumbnail's URL is revoked, and no longer loads.
    page.driver.find_element(By.ID, "view-raw").click()
    WebDriverWait(page.driver, 30).until(lambda d: "$objects" in d.execute_script("return document.querySelector('#tree').textContent"))
    loads = page.driver.execute_async_script("""
      const done = arguments[arguments.length - 1];
      const probe = new Image();
      probe.onload = () => done(true);
      probe.onerror = () => done(false);
      probe.src = arguments[0];""", thumb["src"])
    assert loads is False, "the old thumbnail's blob: URL still loads"
    page.console_errors()  # the probe's failed load is logged: not an error of the page


def inspector_first_line(page):
    return page.js("const line = document.querySelector('#inspector-dump .line'); return line ? line.querySelector('.hex').textContent : null")


def check_inspector(page, inspected, png):
    """Selecting the PNG opens the panel: its hex dump starts with PNG's signature, its kind says
    PNG with the header's pixel size, and Escape closes it."""
    open_inspected(page, inspected)
    page.select_row("image")
    WebDriverWait(page.driver, 10).until(lambda d: d.find_element(By.ID, "inspector").is_displayed())
    first = inspector_first_line(page)
    assert first is not None and first.startswith("89 50 4E 47"), f"first hex line {first!r}"
    assert first == " ".join(f"{b:02X}" for b in png[:16]), first
    kind = page.driver.find_element(By.ID, "inspector-kind").text
    width, height = INSPECTED_PNG_SIZE
    assert "PNG" in kind and f"{width} × {height}" in kind, f"kind {kind!r}"
    size = page.driver.find_element(By.ID, "inspector-size").text
    assert f"{len(png):,} bytes" in size, f"size {size!r}"
    page.shot("10-inspector")
    page.driver.find_element(By.ID, "tree").send_keys(Keys.ESCAPE)
    WebDriverWait(page.driver, 5).until(lambda d: not d.find_element(By.ID, "inspector").is_displayed())


def check_inspector_paging(page, inspected, large):
    """A 3 MiB value's dump shows 4 KiB at a time: next, last and previous show their bytes, and
    the panel stays a few hundred elements."""
    open_inspected(page, inspected)
    page.select_row("blob")
    WebDriverWait(page.driver, 10).until(lambda d: d.find_element(By.ID, "inspector").is_displayed())
    kind = page.driver.find_element(By.ID, "inspector-kind").text
    assert "unknown" in kind, f"kind of the large value {kind!r}"

    def shown():
        return page.js("""
          const lines = [...document.querySelectorAll('#inspector-dump .line')];
          return {count: lines.length, offset: lines[0].querySelector('.off').textContent, hex: lines[0].querySelector('.hex').textContent,
                  elements: document.querySelectorAll('#inspector *').length};""")

    def expect(offset, lines):
        at = shown()
        assert at["offset"] == f"{offset:08X}", f"first offset {at['offset']}, expected {offset:08X}"
        assert at["hex"] == " ".join(f"{b:02X}" for b in large[offset:offset + 16]), at
        assert at["count"] == lines, f"{at['count']} lines, expected {lines}"
        assert at["elements"] < 1500, f"{at['elements']} elements in the panel"

    expect(0, 256)
    page.driver.find_element(By.ID, "inspector-next").click()
    expect(4096, 256)
    page.driver.find_element(By.ID, "inspector-last").click()
    last = (len(large) - 1) // 4096 * 4096
    expect(last, -(-(len(large) - last) // 16))
    page.driver.find_element(By.ID, "inspector-prev").click()
    expect(last - 4096, 256)
    page.shot("11-inspector-paged")


def check_save_bytes(page, inspected, png, large, downloads):
    """"Save bytes" downloads exactly the value's bytes, named from its key and its kind."""
    open_inspected(page, inspected)
    for key, original, name in (("image", png, "image.png"), ("blob", large, "blob")):
        clear_downloads(downloads)
        page.select_row(key)
        WebDriverWait(page.driver, 10).until(lambda d: d.find_element(By.ID, "inspector").is_displayed())
        page.driver.find_element(By.ID, "inspector-save").click()
        saved = wait_download(downloads)
        assert saved.name == name, f"saved as {saved.name!r}, expected {name!r}"
        data = saved.read_bytes()
        assert data == original, f"{key}: saved {len(data)} bytes, original {len(original)}"


def check_webarchive(page):
    """A real web archive (Tests/Fixtures/public/webarchive/): its PNG subresource shows its
    thumbnail, and the panel gives the pixel size its IHDR says; its response is a binary plist,
    and its HTML page, which no signature names, is "unknown"."""
    path = ROOT / "Tests/Fixtures/public/webarchive/webarchivecodable_adele-for-vogue-in-2021.webarchive"
    resource = plistlib.loads(path.read_bytes())["WebSubresources"][0]["WebResourceData"]
    width, height = int.from_bytes(resource[16:20], "big"), int.from_bytes(resource[20:24], "big")
    page.load()
    page.upload(path)
    rows = """[...document.querySelectorAll('#tree .row')].filter(r => (r.querySelector('.key') || {}).textContent === arguments[0])"""
    WebDriverWait(page.driver, 10).until(lambda d: d.execute_script(f"""
      const img = {rows}.map(r => r.querySelector('img.thumb')).find(Boolean);
      return !!img && img.complete && img.naturalWidth > 0;""", "WebResourceData"))
    natural = page.js(f"const img = {rows}.map(r => r.querySelector('img.thumb')).find(Boolean); return [img.naturalWidth, img.naturalHeight]", "WebResourceData")
    assert natural == [width, height], f"thumbnail {natural}, IHDR {width} x {height}"
    page.js(f"{rows}.find(r => r.querySelector('img.thumb')).click()", "WebResourceData")
    kind = page.driver.find_element(By.ID, "inspector-kind").text
    assert kind == f"PNG image, {width} × {height} pixels", f"kind {kind!r}"
    size = page.driver.find_element(By.ID, "inspector-size").text
    assert size == f"{len(resource):,} bytes", f"size {size!r}"
    page.shot("12-webarchive")
    page.js(f"{rows}[0].click()", "WebResourceResponse")
    assert page.driver.find_element(By.ID, "inspector-kind").text == "binary property list"
    page.js(f"{rows}.find(r => !r.querySelector('img.thumb')).click()", "WebResourceData")
    assert page.driver.find_element(By.ID, "inspector-kind").text == "unknown"
    assert page.driver.find_element(By.CSS_SELECTOR, "#inspector-dump .ascii").text.startswith("<!DOCTYPE html><")


def check_timestamp(page, inspected):
    """A number that reads as a date says both readings on hover, each named."""
    open_inspected(page, inspected)
    title = page.js("""
      const row = [...document.querySelectorAll('#tree .row')].find(r => (r.querySelector('.key') || {}).textContent === 'created');
      return row.querySelector('.value').title;""")
    apple = datetime(2001, 1, 1, tzinfo=UTC) + timedelta(seconds=INSPECTED_TIMESTAMP)
    unix = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=INSPECTED_TIMESTAMP)
    for reading, date in (("Apple", apple), ("Unix", unix)):
        text = date.strftime("%Y-%m-%d %H:%M:%S")
        line = next((line for line in title.split("\n") if line.startswith(reading)), None)
        assert line is not None and text in line, f"hover text {title!r}: no {reading} reading {text}"
    # Not a number that is no date: the root's other rows have no such text.
    count = page.js("return [...document.querySelectorAll('#tree .value[title]')].length")
    assert count == 1, f"{count} values with a date on hover"


def check_loads(page):
    page.load()
    with urllib.request.urlopen(page.base + "/", timeout=10) as reply:
        csp = reply.headers.get("Content-Security-Policy", "")
        assert "script-src 'self'" in csp and "default-src 'none'" in csp, f"CSP: {csp!r}"
        assert reply.headers.get("Set-Cookie") is None, "the page sets a cookie"
    assert page.driver.title.startswith("ArchiveService"), page.driver.title
    page.shot("01-empty")


def check_save(page, save):
    page.load()
    page.upload(save)
    root = page.js("return document.querySelector('#tree .row').textContent")
    assert "League" in root, f"root row: {root!r}"
    rows = page.js("return document.querySelectorAll('#tree .row').length")
    assert rows > 3, f"{rows} rows on the first level"
    page.wait_indexed()
    page.shot("02-save-opened")

    # Open the first team and follow a player's `team` reference back to it.
    page.open_row(key="teams")
    page.open_row(cls="Team")
    page.open_row(key="players")
    page.open_row(cls="Player")
    # Back returns to the row the reference was followed from.
    page.js("document.querySelector('#tree a.ref').closest('.row').querySelector('.key').click()")
    before = page.js("return document.querySelector('#selection-path').textContent")
    assert before.endswith(".team"), before
    link = page.driver.find_element(By.CSS_SELECTOR, "#tree a.ref")
    target = link.get_attribute("data-ref")
    link.click()
    WebDriverWait(page.driver, 10).until(lambda d: page.focused_row_text() is not None)
    focused = page.focused_row_text()
    assert f"#{target}" in focused, f"followed $ref {target}, focused row: {focused!r}"
    in_view = page.js("""
      const r = document.querySelector('#tree .row.focus').getBoundingClientRect();
      const t = document.querySelector('#tree').getBoundingClientRect();
      return r.top >= t.top && r.bottom <= t.bottom;""")
    assert in_view, "the $ref's target is not scrolled into view"
    page.shot("03-ref-followed")
    refs = page.js("return document.querySelector('#show-referrers').disabled")
    assert not refs, "a shared object offers no referrers"
    page.driver.find_element(By.ID, "show-referrers").click()
    listed = page.js("return document.querySelectorAll('#referrers a').length")
    assert listed >= 1, "no referrers listed"
    page.driver.find_element(By.ID, "back").click()
    WebDriverWait(page.driver, 10).until(lambda d: d.execute_script("return document.querySelector('#selection-path').textContent") != "")
    time.sleep(0.3)
    back_at = page.js("return document.querySelector('#selection-path').textContent")
    assert back_at == before, f"Back went to {back_at!r}, not {before!r}"


def check_search(page, save):
    # The save's first team's name, read from the API, is what a person would type.
    decoded = json.loads(post(page.base, "/v1/decode", save.read_bytes()))
    name = decoded["teams"]["$array"][1]["name"]
    search = page.driver.find_element(By.ID, "search")
    search.clear()
    search.send_keys(name)
    WebDriverWait(page.driver, 20).until(lambda d: " of " in d.find_element(By.ID, "search-count").text)
    count = page.driver.find_element(By.ID, "search-count").text
    first = page.focused_row_text()
    assert first and name in first, f"search for {name!r} focused {first!r}"
    page.driver.find_element(By.ID, "search-next").click()
    page.shot("04-search")
    return count


def check_summary(page, save):
    page.wait_summary()
    summary = json.loads(post(page.base, "/v1/decode?view=summary", save.read_bytes()))
    shown = page.js("return document.querySelector('[data-summary=objects]').textContent")
    assert int(shown.replace(",", "")) == summary["objects"], f"objects shown {shown}, API {summary['objects']}"
    for c in summary["classes"]:
        row = page.js("const tr = [...document.querySelectorAll('#summary tr')].find(t => t.dataset.class === arguments[0]); return tr ? tr.querySelector('[data-summary=count]').textContent : null", c["class"])
        assert row is not None and int(row.replace(",", "")) == c["count"], f"class {c['class']}: shown {row}, API {c['count']}"
    # A class name wraps between its words only: no word of it is cut across two lines.
    cut = page.js("""
      const cut = [];
      for (const button of document.querySelectorAll('#summary .class-filter')) {
        for (const node of button.childNodes) {
          if (node.nodeType !== Node.TEXT_NODE) continue;
          const range = document.createRange();
          range.selectNodeContents(node);
          const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
          if (tops.size > 1) cut.push(button.textContent);
        }
      }
      return cut;""")
    assert not cut, f"class names cut inside a word: {cut}"
    # A class filters the tree: its matches are that class's objects.
    player = next(c for c in summary["classes"] if c["class"] == "Player")
    page.js("[...document.querySelectorAll('#summary .class-filter')].find(b => b.textContent === 'Player').click()")
    WebDriverWait(page.driver, 20).until(lambda d: " of " in d.find_element(By.ID, "search-count").text)
    text = page.driver.find_element(By.ID, "search-count").text
    total = int(text.split(" of ")[1].split(" ")[0].replace(",", "").rstrip("+"))
    assert total == player["count"], f"filter Player: {text!r}, summary {player['count']}"
    page.shot("05-summary-filter")
    # The largest string is a link to where it stands.
    largest = summary["largestStrings"][0]
    page.js("document.querySelector('#summary a.place').click()")
    WebDriverWait(page.driver, 10).until(lambda d: largest["preview"][:20] in (page.focused_row_text() or ""))


def edit_selected(page, text):
    page.driver.find_element(By.ID, "edit-value").click()
    editor = page.driver.find_element(By.CSS_SELECTOR, "#tree input.editor")
    editor.send_keys(Keys.CONTROL, "a")
    editor.send_keys(text, Keys.ENTER)


def download_archive(page, downloads):
    clear_downloads(downloads)
    page.driver.find_element(By.ID, "download-archive").click()
    return wait_download(downloads).read_bytes()


def check_edit(page, save, downloads):
    page.load()
    page.upload(save)
    # The league's own name: a string on the first level.
    page.select_row("name")
    edit_selected(page, "Edited in the browser ✓")
    assert "1 edit" in page.driver.find_element(By.ID, "edit-count").text
    # The row above previews its first members: it shows the new name, not the old one.
    root = page.js("return document.querySelector('#tree .row').textContent")
    assert "Edited in the browser" in root, f"the parent row still previews the old value: {root!r}"
    archive = download_archive(page, downloads)
    assert archive.startswith(b"bplist00"), "the downloaded archive is not a binary plist"
    decoded = json.loads(post(page.base, "/v1/decode", archive))
    assert decoded["name"] == "Edited in the browser ✓", f"decoded name {decoded['name']!r}"
    original = json.loads(post(page.base, "/v1/decode", save.read_bytes()))
    original["name"] = decoded["name"]
    assert original == decoded, "the downloaded archive differs from the original in more than the edit"
    page.shot("06-edited")


def check_toolbar(page, save, work):
    """The toolbar stays one line from 1,024 px on, with a long file name, a search with its count
    and an edit's count: the name and the search box give up width first, nothing runs off."""
    named = work / "a-rather-long-file-name-for-the-toolbar-of-the-page.plist"
    shutil.copy(save, named)
    page.load()
    page.upload(named)
    page.select_row("name")
    edit_selected(page, "Edited for the toolbar")
    page.js("const s = document.getElementById('search'); s.value = 'Player'; s.dispatchEvent(new Event('input'))")
    WebDriverWait(page.driver, 20).until(lambda d: " of " in d.find_element(By.ID, "search-count").text)
    try:
        for width in (1024, 1400, 1920):
            page.driver.set_window_size(width, 900)
            layout = page.js("""
              const bar = document.querySelector('.toolbar');
              const parts = [...bar.querySelectorAll('button, input, select, .count, .file')].filter(e => e.offsetParent);
              const middles = new Set(parts.map(e => { const r = e.getBoundingClientRect(); return Math.round(r.top + r.height / 2); }));
              const right = Math.max(...parts.map(e => e.getBoundingClientRect().right));
              return {lines: middles.size, right, width: document.documentElement.clientWidth};""")
            assert layout["lines"] == 1, f"the toolbar takes {layout['lines']} lines at {width} px"
            assert layout["right"] <= layout["width"], f"the toolbar runs off the page at {width} px: {layout}"
            if width == 1024:
                page.shot("07-toolbar-1024")
    finally:
        page.driver.set_window_size(1400, 1000)


def check_raw(page):
    page.driver.find_element(By.ID, "view-raw").click()
    WebDriverWait(page.driver, 30).until(lambda d: "$objects" in d.execute_script("return document.querySelector('#tree').textContent.slice(0, 4000)"))
    page.driver.find_element(By.ID, "view-readable").click()
    WebDriverWait(page.driver, 30).until(lambda d: "League" in d.execute_script("return document.querySelector('#tree .row').textContent"))


def check_plain(page):
    page.driver.find_element(By.ID, "view-plain").click()
    WebDriverWait(page.driver, 30).until(lambda d: d.execute_script("return document.querySelector('#view-plain').classList.contains('on')"))
    text = page.js("return document.querySelector('#tree').textContent")
    assert "League" in text and "$array" not in text, f"the plain view shows {text[:200]!r}"
    page.shot("05b-plain-view")
    page.driver.find_element(By.ID, "view-readable").click()
    WebDriverWait(page.driver, 30).until(lambda d: "League" in d.execute_script("return document.querySelector('#tree .row').textContent"))


def check_hostile(page, hostile, document):
    page.load()
    page.upload(hostile)
    page.js("for (const t of document.querySelectorAll('#tree .twist')) t.click()")
    time.sleep(0.3)
    text = page.js("return document.querySelector('#tree').textContent")
    for needle in (document["$class"], "<b onmouseover", "</script><script>", "<iframe src=javascript:"):
        assert needle in text, f"markup not shown as text: {needle!r}"
    injected = page.js("return document.querySelectorAll('#tree img, #tree script, #tree svg, #tree iframe, #tree b').length")
    assert injected == 0, f"{injected} elements made from the archive's strings"
    page.js("for (const r of document.querySelectorAll('#tree .row')) r.dispatchEvent(new MouseEvent('mouseover', {bubbles: true}))")
    time.sleep(0.5)
    assert page.js("return window.pwned === undefined"), f"script ran: window.pwned = {page.js('return window.pwned')}"
    page.shot("07-hostile-as-text")


def check_problem(page, work):
    broken = work / "broken.plist"
    broken.write_bytes(b"bplist00" + b"\x00" * 40)
    page.load()
    page.upload(broken, wait_for="problem")
    box = page.driver.find_element(By.ID, "problem").text
    reply = None
    try:
        post(page.base, "/v1/decode", broken.read_bytes())
    except urllib.error.HTTPError as error:
        reply = json.loads(error.read())
    assert reply is not None, "the API accepted a broken file"
    assert reply["title"] in box and reply["detail"] in box, f"problem shown: {box!r}, API: {reply}"
    page.shot("08-problem")


def check_nested_scopes(page, work):
    """Two saves inside one property list, each numbering its `$id`s from 1: a reference inside
    each leads to its own save's object (an index by `$id` alone sends one of them astray)."""
    saves = []
    for seed in ("1", "2"):
        path = work / f"inner-{seed}.plist"
        subprocess.run([sys.executable, str(ROOT / "scripts/gen/gen_game_save.py"), "--teams", "2", "--seed", seed, "--out", str(path)],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        saves.append(json.loads(post(page.base, "/v1/decode", path.read_bytes())))
    document = {"$propertyList": {"first": {"$data": {"$keyedArchive": saves[0]}}, "second": {"$data": {"$keyedArchive": saves[1]}}}}
    outer = work / "two-saves.plist"
    outer.write_bytes(post(page.base, "/v1/encode", json.dumps(document).encode(), "application/json"))
    page.load()
    page.js("document.getElementById('nested').checked = true")
    page.upload(outer)
    page.wait_indexed()
    for index, member in ((0, "first"), (1, "second")):
        player = saves[index]["teams"]["$array"][0]["players"][0]["name"]
        search = page.driver.find_element(By.ID, "search")
        search.clear()
        search.send_keys(player, Keys.ENTER)
        WebDriverWait(page.driver, 20).until(lambda d, player=player: player in (page.focused_row_text() or ""))
        link = page.js("return document.querySelector('#tree .row.focus').parentElement.querySelector(':scope > .row a.ref')")
        assert link is not None, "no reference beside the player's name"
        target = link.get_attribute("data-ref")
        link.click()
        WebDriverWait(page.driver, 10).until(lambda d, target=target: f"#{target}" in (page.focused_row_text() or "") and "Team" in page.focused_row_text())
        at = page.js("return document.querySelector('#selection-path').textContent")
        assert at.startswith(f'."$propertyList".{member}'), f"a reference inside the {member} save led to {at!r}"


def check_long_array(page, work):
    """A reference to the last of 50,000 elements shows that element's page, not every page
    before it."""
    items = [{"$class": "Item", "n": i} for i in range(50000)]
    items[-1]["$id"] = 1
    document = {"items": {"$class": "NSMutableArray", "$array": items}, "last": {"$ref": 1}}
    path = work / "long.json"
    path.write_text(json.dumps(document))
    page.load()
    page.upload(path)
    page.wait_indexed()
    page.js("[...document.querySelectorAll('#tree .row')].find(r => r.querySelector('.key') && r.querySelector('.key').textContent === 'last').querySelector('a.ref').click()")
    WebDriverWait(page.driver, 10).until(lambda d: "#1" in (page.focused_row_text() or ""))
    at = page.js("return document.querySelector('#selection-path').textContent")
    assert at == '.items."$array"[49999]', at
    rows = page.js("return document.querySelectorAll('#tree .row').length")
    assert rows < 1000, f"{rows} rows rendered to show one element"
    # The hidden elements above it are a click away.
    page.js("[...document.querySelectorAll('#tree .row.more')].pop().click()")
    assert page.js("return document.querySelectorAll('#tree .row').length") > rows


def check_edit_guards(page, work, downloads):
    """An attributed string's text keeps its length (its runs cut it by length); a member named
    __proto__ is edited like any other."""
    attributed = ROOT / "Tests/Fixtures/apple/scl-macOS1014_NSAttributedString.archive"
    page.load()
    page.upload(attributed)
    page.select_row("$string")
    edit_selected(page, "too short")
    note = page.driver.find_element(By.ID, "selection-note").text
    assert "UTF-16" in note, f"a length-changing edit of an attributed string's text: {note!r}"
    editor = page.driver.find_element(By.CSS_SELECTOR, "#tree input.editor")
    editor.send_keys(Keys.CONTROL, "a")
    editor.send_keys("9876543210", Keys.ENTER)
    decoded = json.loads(post(page.base, "/v1/decode", download_archive(page, downloads)))
    assert decoded["$string"] == "9876543210", decoded

    proto = work / "proto.json"
    proto.write_text('{"__proto__": "before", "other": 1}')
    page.load()
    page.upload(proto)
    page.select_row("__proto__")
    edit_selected(page, "after")
    decoded = json.loads(post(page.base, "/v1/decode", download_archive(page, downloads)))
    assert decoded == {"__proto__": "after", "other": 1}, decoded


def check_colour_space_edit(page, work, downloads):
    """A colour's NSColorSpace edited: its components' $space label, which named the old space,
    goes from the tree, the archive encodes, and a decode of it names the new space."""
    colour = {"$class": "NSColor", "NSColorSpace": 1, "NSRGB": {"$bytes": {"$components": [1, 0.5, 0]}}}
    path = work / "colour.plist"
    path.write_bytes(post(page.base, "/v1/encode", json.dumps(colour).encode(), "application/json"))
    page.load()
    page.upload(path)
    page.open_row(key="NSRGB")
    page.open_row(key="$bytes")
    labels = page.js("return [...document.querySelectorAll('#tree .row .key')].map(k => k.textContent)")
    assert "$space" in labels, f"the components' label is not shown: {labels}"
    page.select_row("NSColorSpace")
    edit_selected(page, "2")
    labels = page.js("return [...document.querySelectorAll('#tree .row .key')].map(k => k.textContent)")
    assert "$space" not in labels, f"the old space's label is still shown: {labels}"
    decoded = json.loads(post(page.base, "/v1/decode", download_archive(page, downloads)))
    assert decoded["NSColorSpace"] == 2, decoded
    assert decoded["NSRGB"]["$bytes"]["$space"] == "deviceRGB", decoded


def check_deep(page, work):
    chain = work / "chain.plist"
    with chain.open("wb") as out:
        subprocess.run([sys.executable, str(ROOT / "scripts/gen/gen_chain.py"), "30000"], stdout=out, check=True)
    page.load()
    page.upload(chain)
    notice = page.driver.find_element(By.ID, "notice")
    assert notice.is_displayed() and "30,000 levels" in notice.text, f"notice: {notice.text!r}"
    # The summary does not recurse: it is there for an archive too deep to decode in one piece.
    page.wait_summary()
    nesting = int(page.js("return document.querySelector('[data-summary=nestingReadable]').textContent").replace(",", ""))
    assert nesting >= 30000, f"summary's readable nesting {nesting}"
    page.wait_indexed()
    # The table's first object: where is it referred to from? Deep inside "$top", one link away.
    page.open_row(key="$table")
    page.js("[...document.querySelectorAll('#tree .row')].find(r => r.querySelector('.id')).click()")
    page.driver.find_element(By.ID, "show-referrers").click()
    page.driver.find_element(By.CSS_SELECTOR, "#referrers a").click()
    at = page.js("return document.querySelector('#selection-path').textContent")
    assert at.startswith('."$top".root.next.next'), f"referrer revealed at {at!r}"
    link = page.driver.find_element(By.CSS_SELECTOR, "#tree .row.focus a.ref")
    target = link.get_attribute("data-ref")
    link.click()
    WebDriverWait(page.driver, 10).until(lambda d: f"#{target}" in (page.focused_row_text() or ""))
    assert page.js("return document.querySelector('#selection-path').textContent").startswith('."$table"[')


def check_other_formats(page, work):
    typed = ROOT / "Tests/Fixtures/public/typedstream/imessage-exporter_attributedBody-AttributedBodyTextOnly2.bin"
    page.load()
    page.upload(typed)
    assert "$typedstream" in page.js("return document.querySelector('#tree').textContent.slice(0, 2000)")
    theme = ROOT / "Tests/Fixtures/public/plain-plist-with-nested-archive/dracula-terminal-app_Dracula.terminal"
    page.load()
    page.js("document.getElementById('nested').checked = true")
    page.upload(theme)
    # The theme's colours are archives inside data: with nested decoding, their classes are found.
    search = page.driver.find_element(By.ID, "search")
    search.send_keys("NSColor")
    WebDriverWait(page.driver, 20).until(lambda d: " of " in d.find_element(By.ID, "search-count").text)
    assert "NSColor" in page.focused_row_text()
    as_json = work / "document.json"
    as_json.write_text(json.dumps({"team": "Bears", "wins": 3, "players": ["Kalo", "Venn"]}))
    page.load()
    page.upload(as_json)
    assert "Bears" in page.js("return document.querySelector('#tree').textContent")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--shots", default=str(ROOT / ".build-page/screenshots"))
    parser.add_argument("--readme-shot", help="also write the README's screenshot here")
    parser.add_argument("--only", help="run only the checks whose name contains this text")
    args = parser.parse_args()
    shots = pathlib.Path(args.shots)
    shots.mkdir(parents=True, exist_ok=True)
    work = pathlib.Path(tempfile.mkdtemp(prefix="page-check-"))
    downloads = work / "downloads"
    downloads.mkdir()
    base = args.base_url.rstrip("/")
    driver = browser(downloads)
    page = Page(driver, base, shots)
    save = make_save(base, work)
    hostile, hostile_document = make_hostile(base, work)
    inspected, png, large = make_inspected(work)
    checks = [
        ("page loads with its CSP", lambda: check_loads(page)),
        ("save opens; $ref followed and highlighted; Back returns", lambda: check_save(page, save)),
        ("search finds and steps", lambda: check_search(page, save)),
        ("summary panel equals ?view=summary; class filter", lambda: check_summary(page, save)),
        ("raw view toggles", lambda: check_raw(page)),
        ("plain view toggles", lambda: check_plain(page)),
        ("edit a string, download, decode shows the edit", lambda: check_edit(page, save, downloads)),
        ("the toolbar stays one line from 1,024 px", lambda: check_toolbar(page, save, work)),
        ("hostile strings are text", lambda: check_hostile(page, hostile, hostile_document)),
        ("a broken file shows the problem", lambda: check_problem(page, work)),
        ("typedstream, nested payloads and JSON open", lambda: check_other_formats(page, work)),
        ("an archive too deep for one piece opens with its $table", lambda: check_deep(page, work)),
        ("references inside a nested payload stay in it", lambda: check_nested_scopes(page, work)),
        ("a reference far into a long array shows its page only", lambda: check_long_array(page, work)),
        ("edits keep an attributed string's length; __proto__ is a key", lambda: check_edit_guards(page, work, downloads)),
        ("a colour's space edited: its old label goes, the archive encodes", lambda: check_colour_space_edit(page, work, downloads)),
        ("a PNG data value shows its thumbnail", lambda: check_thumbnail(page, inspected)),
        ("the data panel: hex dump, kind and pixel size, Escape", lambda: check_inspector(page, inspected, png)),
        ("the data panel pages a large value's dump", lambda: check_inspector_paging(page, inspected, large)),
        ("Save bytes downloads the value's bytes", lambda: check_save_bytes(page, inspected, png, large, downloads)),
        ("a timestamp shows its date on hover", lambda: check_timestamp(page, inspected)),
        ("a real web archive's PNG: thumbnail and data panel", lambda: check_webarchive(page)),
    ]
    if args.only:
        checks = [(name, check) for name, check in checks if args.only in name]
    failures = 0
    try:
        for name, check in checks:
            started = time.time()
            try:
                check()
                errors = [e for e in page.console_errors() if "favicon" not in e.get("message", "") and "/v1/" not in e.get("message", "")]
                assert not errors, f"console errors: {errors}"
                print(f"ok   {name} ({time.time() - started:.1f} s)")
            except Exception:
                failures += 1
                print(f"FAIL {name}")
                traceback.print_exc()
                page.shot("failed-" + name.split(";")[0].replace(" ", "-").replace("$", ""))
        if args.readme_shot:
            page.load()
            page.upload(save)
            page.wait_summary()
            page.open_row(key="teams")
            page.open_row(cls="Team")
            page.open_row(key="players")
            page.open_row(cls="Player")
            link = page.driver.find_element(By.CSS_SELECTOR, "#tree a.ref")
            link.click()
            time.sleep(0.5)
            page.driver.save_screenshot(args.readme_shot)
    finally:
        driver.quit()
        shutil.rmtree(work, ignore_errors=True)
    print(f"{len(checks) - failures} of {len(checks)} page checks passed; screenshots in {shots}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
