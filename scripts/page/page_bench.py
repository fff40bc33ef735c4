#!/usr/bin/env python3
"""How the page at `/` holds up on large saves, in headless Chromium (a benchmark, not a test).

For each file: upload it through the page and read the page's own timings (performance.now, in
the page): file picked → reply in (upload, conversion, download), reply → first level on screen,
reply → `$id`/`$ref` index complete, reply → summary panel shown; then the time to
expand the largest array on the first levels, to follow a `$ref`, and for a search to finish; and
the longest main-thread task after the first level (long tasks freeze scrolling and clicks).
Prints one table row per file.
"""

import argparse
import pathlib
import shutil
import sys

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

OBSERVE_LONG_TASKS = """
window.__long = [];
new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__long.push([e.startTime, e.duration]); })
  .observe({type: 'longtask', buffered: false});
"""

TIMED_EXPAND = """
const done = arguments[arguments.length - 1];
const rows = [...document.querySelectorAll('#tree .row')];
const row = rows.find(r => r.querySelector('.cls') && r.querySelector('.cls').textContent === arguments[0]);
const t0 = performance.now();
row.querySelector('.twist').click();
requestAnimationFrame(() => setTimeout(() => done(performance.now() - t0)));
"""

OPEN_TO_A_REF = """
const byKey = (k) => [...document.querySelectorAll('#tree .row')].find(r => r.querySelector('.key') && r.querySelector('.key').textContent === k);
for (const k of ['players', 'games', '[0]']) { const r = byKey(k); if (r && !document.querySelector('#tree a.ref')) r.querySelector('.twist').click(); }
"""

TIMED_FOLLOW = """
const done = arguments[arguments.length - 1];
const link = document.querySelector('#tree a.ref');
const t0 = performance.now();
link.click();
const wait = () => document.querySelector('#tree .row.focus') ? requestAnimationFrame(() => done(performance.now() - t0)) : setTimeout(wait, 1);
wait();
"""

TIMED_SEARCH = """
const done = arguments[arguments.length - 1];
const box = document.getElementById('search');
delete document.body.dataset.searched;
box.value = arguments[0];
const t0 = performance.now();
box.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
const wait = () => document.body.dataset.searched !== undefined ? done([performance.now() - t0, Number(document.body.dataset.searched)]) : setTimeout(wait, 5);
wait();
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--search", default="Ixtara", help="text to search for")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    options = Options()
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1400,900"):
        options.add_argument(flag)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(300)
    print("| file | archive | JSON | pick → reply | reply → first level | reply → index | reply → summary | expand | follow $ref | search (matches) | longest task after first level |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    try:
        for name in args.files:
            path = pathlib.Path(name)
            driver.get(args.base_url.rstrip("/") + "/")
            WebDriverWait(driver, 20).until(lambda d: d.execute_script("return !!window.archivePage"))
            driver.find_element(By.ID, "file").send_keys(str(path.resolve()))
            WebDriverWait(driver, 600).until(lambda d: d.execute_script("return document.body.dataset.ready === '1'"))
            driver.execute_script(OBSERVE_LONG_TASKS)
            WebDriverWait(driver, 600).until(lambda d: d.execute_script("return window.archivePage.timings.indexed > 0"))
            # The summary is a second request (the file sent again): measured on its own, before
            # the steps below, which would otherwise share the machine with it.
            WebDriverWait(driver, 600).until(lambda d: d.execute_script("return window.archivePage.timings.summary > 0"))
            t = driver.execute_script("return window.archivePage.timings")
            size = driver.execute_script("return window.archivePage.state.views.readable.text.length")
            expand = driver.execute_async_script(TIMED_EXPAND, "NSMutableArray")
            expand2 = driver.execute_async_script(TIMED_EXPAND, "Team")
            driver.execute_script(OPEN_TO_A_REF)
            follow = driver.execute_async_script(TIMED_FOLLOW)
            search_ms, matches = driver.execute_async_script(TIMED_SEARCH, args.search)
            # The browser reports tasks of 50 ms and more ("long tasks"); none means all were shorter.
            longest_ms = driver.execute_script("return Math.max(0, ...window.__long.map(e => e[1]))")
            longest = f"{longest_ms:.0f} ms" if longest_ms else "< 50 ms"
            print(f"| {path.name} | {path.stat().st_size / 1e6:.1f} MB | {size / 1e6:.1f} MB | {t['reply'] - t['start']:.0f} ms "
                  f"| {t['firstLevel'] - t['reply']:.0f} ms | {t['indexed'] - t['reply']:.0f} ms | {t['summary'] - t['reply']:.0f} ms "
                  f"| {expand:.0f} + {expand2:.0f} ms | {follow:.0f} ms "
                  f"| {search_ms:.0f} ms ({matches}) | {longest} |", flush=True)
    finally:
        driver.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
