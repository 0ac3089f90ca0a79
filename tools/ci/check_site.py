"""Test the built website (_site/) in a real browser: Debian's Chromium, driven by Playwright.

    bash tools/ci/check_site.sh                      # installs what is missing, builds nothing, then runs this
    .venv-docs/bin/python tools/ci/check_site.py     # against an existing _site/

Every page of both languages is served from localhost and loaded with every request to another host refused, so
the site must work offline. The checks: no console error and no failed request on any page; every image loaded,
with alt text that is not a file name; no violation of axe-core's WCAG 2.0, 2.1 and 2.2 level A and AA rules on
any page (and, in the dark colour scheme, on one lesson per language), after axe has found the three violations of
a page made to fail; every link between pages resolves to a file
of the site; the language switch of each page leads to the same page in the other language; English search finds
"device" and Chinese search finds 张量. With the keyboard alone, on one lesson per language: Tab reaches the
language switch, the search field and the Colab and download links, each named by its visible text in Chromium's
accessibility tree; Enter on the search field opens the search box, which searches; Enter on the switch opens the
other language. A screenshot of one lesson per language is written to ``_site/screenshots/`` (and, with
``--screenshots DIR``, also to DIR). Exits 1 and lists every problem if any check fails.

axe-core is the npm package pinned in ``site/package-lock.json``; ``tools/ci/check_site.sh`` installs it into
``.venv-docs/axe/`` (or set ``AXE_JS`` to an ``axe.min.js``).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import re
import shutil
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urljoin, urlparse

if TYPE_CHECKING:  # Playwright is imported where a browser starts: the unit tests need none
    from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "_site"
CHROMIUM = "/usr/bin/chromium"  # Debian's package: Playwright's own browser download does not work offline
# As a sandboxed CI job runs it: no first-run work, no background connections to Google's hosts.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]
LANGUAGES = ("en", "zh")
SEARCHES = {"en": "device", "zh": "张量"}
SCREENSHOT_PAGE = "02_placement_checks.html"
KEYBOARD_PAGE = "06_cifar10_training.html"  # a lesson with figures; the keyboard and dark-scheme checks run here
AXE_JS = Path(os.environ.get("AXE_JS", ROOT / ".venv-docs" / "axe" / "node_modules" / "axe-core" / "axe.min.js"))
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]  # axe's tags for WCAG 2.0, 2.1, 2.2 A and AA
# The controls a reader must reach with Tab, by CSS selector, with the name each must have: its visible text.
CONTROLS = {
    "en": {".lang-switch-link": "中文", ".navbar-persistent--container .search-button-field": "Search Ctrl+K",
           ".notebook-button[href*='colab']": "Open in Colab", ".notebook-button[download]": "Download the notebook"},
    "zh": {".lang-switch-link": "English", ".navbar-persistent--container .search-button-field": "搜索 Ctrl+K",
           ".notebook-button[href*='colab']": "在Colab中打开", ".notebook-button[download]": "下载笔记本"},
}


def serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve ``folder`` on a free localhost port in a background thread; return the server and its base URL."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


class QuietServer(http.server.ThreadingHTTPServer):
    """A threading HTTP server that says nothing when the browser drops a connection (it navigated on)."""

    def handle_error(self, request: object, client_address: object) -> None:
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """A static file server that does not log every request."""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002  (the base class's name)
        pass


def local_file(url: str, base: str) -> Path | None:
    """Return the file of the site that ``url`` names, or None when it names another host."""
    if not url.startswith(base):
        return None
    path = unquote(urlparse(url).path).lstrip("/")
    target = SITE / path
    return target / "index.html" if target.is_dir() else target


def check_page(page: Page, url: str, base: str, problems: list[str]) -> None:
    """Load one page; record console errors, failed requests, broken images and links that lead nowhere."""
    name = url.removeprefix(base)
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("requestfailed", lambda request: errors.append(f"request failed: {request.url}"))
    response = page.goto(url, wait_until="load")
    page.wait_for_timeout(150)  # scripts that run after load (the theme's, the search's)
    if response is None or response.status != 200:
        problems.append(f"{name}: HTTP {response.status if response else 'no response'}")
    problems += [f"{name}: {error}" for error in errors]
    broken = page.eval_on_selector_all(
        "img", "imgs => imgs.filter(i => !i.complete || i.naturalWidth === 0).map(i => i.getAttribute('src'))"
    )
    problems += [f"{name}: broken image {src}" for src in broken]
    alts = page.eval_on_selector_all("img", "imgs => imgs.map(i => i.getAttribute('alt'))")
    problems += [f"{name}: an image's alt text is a file name: {alt}" for alt in alts if alt and FILE_NAME.search(alt)]
    problems += [f"{name}: {problem}" for problem in axe_violations(page)]
    for href in page.eval_on_selector_all("a[href]", "links => links.map(a => a.getAttribute('href'))"):
        target = local_file(urljoin(url, href.split("#")[0]), base) if not href.startswith("#") else None
        if target is not None and not target.is_file():
            problems.append(f"{name}: link {href} leads nowhere")


FILE_NAME = re.compile(r"\.(png|jpe?g|svg|gif)$", re.IGNORECASE)


def axe_violations(page: Page) -> list[str]:
    """Run axe-core's WCAG 2.0, 2.1 and 2.2 A and AA rules on the loaded page; return one line per violation."""
    page.add_script_tag(path=str(AXE_JS))
    options = {"runOnly": {"type": "tag", "values": AXE_TAGS}, "resultTypes": ["violations"]}
    results = page.evaluate("options => axe.run(document, options)", options)
    return [
        f"axe {v['id']} ({v['impact']}): {v['help']}: {', '.join(str(node['target']) for node in v['nodes'][:3])}"
        for v in results["violations"]
    ]


BAD_PAGE = (  # made to fail: axe must find these three violations in it, or the check itself is broken
    '<!doctype html><html lang="en"><title>bad</title><main><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">'
    '<a href="#x"></a><button aria-label="Search">Search <kbd>Ctrl</kbd>+<kbd>K</kbd></button></main></html>'
)
BAD_PAGE_VIOLATIONS = {"image-alt", "link-name", "label-content-name-mismatch"}


def check_axe_catches(page: Page, problems: list[str]) -> None:
    """Run axe on a page made to fail (an image without alt text, an empty link, the theme's old search button):
    a wrong tag or a broken install would otherwise pass every page in silence."""
    page.set_content(BAD_PAGE)
    found = {line.split()[1] for line in axe_violations(page)}
    if not BAD_PAGE_VIOLATIONS <= found:
        problems.append(f"axe missed {sorted(BAD_PAGE_VIOLATIONS - found)} on a page made to fail (found {found})")


def accessible_name(page: Page, selector: str) -> tuple[str, str]:
    """Return the (role, name) that Chromium's accessibility tree, which screen readers read, gives ``selector``."""
    cdp = page.context.new_cdp_session(page)
    try:
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        ax = cdp.send("Accessibility.getPartialAXTree", {"nodeId": node, "fetchRelatives": False})["nodes"][0]
        return ax.get("role", {}).get("value", ""), ax.get("name", {}).get("value", "")
    finally:
        cdp.detach()


def check_keyboard(page: Page, base: str, lang: str, problems: list[str]) -> None:
    """With the keyboard alone, a lesson's language switch, search and Colab and download links are reached with
    Tab and named by their visible text; Enter on the search field opens a search box that searches; Enter on the
    switch opens the same lesson in the other language."""
    where = f"{lang}/{KEYBOARD_PAGE}"
    page.goto(f"{base}{where}", wait_until="load")
    controls = CONTROLS[lang]
    for selector, text in controls.items():
        if page.locator(selector).count() != 1:
            problems.append(f"{where}: {page.locator(selector).count()} elements match {selector}, expected one")
            return
        role, name = accessible_name(page, selector)
        visible = page.locator(selector).inner_text()
        if not ("".join(name.split()) == "".join(visible.split()) == "".join(text.split())):  # spacing aside
            problems.append(f"{where}: {selector} is a {role} named {name!r}, showing {visible!r}; expected {text!r}")
    page.evaluate("s => s.forEach((selector, i) => document.querySelector(selector).dataset.tabTarget = i)",
                  list(controls))
    reached: set[str | None] = set()
    wanted = {str(index) for index in range(len(controls))}
    for _ in range(80):  # every control of the page is within 80 presses of Tab (stop once all are reached)
        page.keyboard.press("Tab")
        reached.add(page.evaluate("() => document.activeElement.dataset.tabTarget"))
        if wanted <= reached:
            break
    for index, selector in enumerate(controls):
        if str(index) not in reached:
            problems.append(f"{where}: Tab never reaches {selector} ({controls[selector]})")
    page.focus(".navbar-persistent--container .search-button-field")
    page.keyboard.press("Enter")
    try:
        page.wait_for_function("() => document.activeElement.matches('#pst-search-dialog input[name=q]')",
                               timeout=10_000)
        page.keyboard.type(SEARCHES[lang])
        with page.expect_navigation(timeout=20_000):
            page.keyboard.press("Enter")
        page.wait_for_selector("#search-results ul.search li", timeout=20_000)
    except Exception as error:  # noqa: BLE001  (Playwright's TimeoutError: report it as a finding)
        problems.append(f"{where}: searching with the keyboard failed: {str(error).splitlines()[0]}")
    page.goto(f"{base}{where}", wait_until="load")
    page.focus(".lang-switch-link")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    other = "zh" if lang == "en" else "en"
    if page.url != f"{base}{other}/{KEYBOARD_PAGE}":
        problems.append(f"{where}: Enter on the language switch opened {page.url}")


def check_switch(page: Page, url: str, base: str, problems: list[str]) -> None:
    """On the loaded page ``url`` of one language, the language switch leads to the page of the same name in the
    other language (read from the page that check_page has loaded: no second visit)."""
    lang, name = url.removeprefix(base).split("/", 1)
    other = "zh" if lang == "en" else "en"
    hrefs = page.eval_on_selector_all(".lang-switch-link", "links => links.map(a => a.getAttribute('href'))")
    landed = urljoin(url, hrefs[0]) if hrefs and hrefs[0] else None
    if landed != f"{base}{other}/{name}" or not (SITE / other / name).is_file():
        problems.append(f"{lang}/{name}: language switch leads to {landed}")


def check_search(page: Page, base: str, lang: str, problems: list[str]) -> None:
    """Search the site of ``lang`` for its test word; the results must list at least one lesson."""
    page.goto(f"{base}{lang}/search.html?q={SEARCHES[lang]}", wait_until="load")
    try:
        page.wait_for_selector("#search-results ul.search li", timeout=20_000)
    except Exception:  # noqa: BLE001  (Playwright's TimeoutError: report it as a finding)
        problems.append(f"{lang}: searching for {SEARCHES[lang]!r} found nothing")
        return
    hits = page.eval_on_selector_all("#search-results ul.search li a", "links => links.map(a => a.href)")
    if not any("_" in hit.rsplit("/", 1)[-1] for hit in hits):  # lesson pages are named NN_topic.html
        problems.append(f"{lang}: searching for {SEARCHES[lang]!r} listed no lesson: {hits[:5]}")


def main(argv: list[str] | None = None) -> int:
    """Run every check on both languages; print the problems; return 1 if there are any."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--screenshots", type=Path, help="also copy the screenshots into this folder")
    parser.add_argument("--lang", choices=LANGUAGES, action="append", help="only this language (switch not checked)")
    args = parser.parse_args(argv)
    languages = tuple(args.lang or LANGUAGES)
    missing = [lang for lang in languages if not (SITE / lang / "index.html").is_file()]
    if missing:
        sys.exit(f"no _site/{missing[0]}/: build the site first (bash tools/teacher/build_site.sh)")
    if not AXE_JS.is_file():
        sys.exit(f"no {AXE_JS}: install axe-core with bash tools/ci/check_site.sh, or set AXE_JS")
    server, base = serve(SITE)
    problems: list[str] = []
    pages = [f"{base}{lang}/{p.name}" for lang in languages for p in sorted((SITE / lang).glob("*.html"))]
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base) else route.abort())
        page = context.new_page()
        check_axe_catches(page, problems)
        page.close()
        for url in pages:
            page = context.new_page()
            check_page(page, url, base, problems)
            if len(languages) == len(LANGUAGES):
                check_switch(page, url, base, problems)
            page.close()
        page = context.new_page()
        for lang in languages:
            if len(languages) == len(LANGUAGES):
                check_keyboard(page, base, lang, problems)
            check_search(page, base, lang, problems)
        dark = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark")
        dark.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base) else route.abort())
        dark_page = dark.new_page()
        for lang in languages:  # the theme follows the reader's colour scheme: its dark colours, on one lesson
            dark_page.goto(f"{base}{lang}/{KEYBOARD_PAGE}", wait_until="load")
            problems += [f"{lang}/{KEYBOARD_PAGE} (dark): {problem}" for problem in axe_violations(dark_page)]
        dark.close()
        shots = SITE / "screenshots"
        shots.mkdir(exist_ok=True)
        for lang in languages:
            page.goto(f"{base}{lang}/{SCREENSHOT_PAGE}", wait_until="load")
            page.wait_for_timeout(300)
            page.screenshot(path=str(shots / f"lesson-{lang}.png"))
            if args.screenshots:
                args.screenshots.mkdir(parents=True, exist_ok=True)
                shutil.copy2(shots / f"lesson-{lang}.png", args.screenshots / f"site-lesson-{lang}.png")
        browser.close()
    server.shutdown()
    print(f"{len(pages)} pages in {len(languages)} language(s) checked in Chromium; screenshots in _site/screenshots/")
    for problem in problems:
        print("PROBLEM:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
