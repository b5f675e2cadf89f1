"""Open the built website in a real headless Chromium (Debian's `/usr/bin/chromium`, driven by Playwright, which
downloads no browser of its own) served from 127.0.0.1, and fail unless every page reads as it should.

    python tools/site/check.py --site _site --shots _shots

For every page: it loads with no failed request, no HTTP error and no script error, and no request leaves
127.0.0.1 (such a request is blocked and counted as a failure); MathJax typesets every formula (one rendered formula
per `math` element, no MathJax error) and no text outside code still reads as TeX (`$x$`, `\\frac{`, `\\begin{`); every
image loads (`naturalWidth > 0`); no nbdev directive (`#| ...`) is shown; every link inside the site leads to a page
and anchor that exist. Once: the sidebar lists the chapters in the book's order and each chapter's "next" link goes
to the following one, the search page finds a word of the book, and a screenshot of the first chapter (00) is not
blank. Screenshots of every page go to `--shots`. Exit 1 with one line per failure."""
from __future__ import annotations
import argparse, contextlib, functools, html.parser, http.server, re, sys, threading, time
from pathlib import Path
from urllib.parse import urlparse, unquote

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions"]

# Text nodes outside code, math and scripts, and what still reads as TeX in them
PAGE_FACTS = r"""async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) { await MathJax.startup.promise; }
  for (const img of document.images) { img.loading = 'eager'; }
  await Promise.all([...document.images].map(img => img.complete ? null :
      new Promise(r => { img.addEventListener('load', r); img.addEventListener('error', r); })));
  const skip = 'PRE,CODE,SCRIPT,STYLE,MJX-CONTAINER,MJX-ASSISTIVE-MML,TEXTAREA,NOSCRIPT';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const texts = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    let p = n.parentElement, ok = true;
    while (p) { if (skip.split(',').includes(p.tagName)) { ok = false; break; } p = p.parentElement; }
    if (ok && n.textContent.trim()) texts.push(n.textContent);
  }
  return {
    prose: texts.join(' '),
    code: [...document.querySelectorAll('pre')].map(e => e.innerText).join('\n'),
    math: document.querySelectorAll('.math').length,
    rendered: document.querySelectorAll('mjx-container').length,
    merrors: document.querySelectorAll('mjx-merror').length,
    images: [...document.images].map(i => ({src: i.getAttribute('src'), w: i.naturalWidth, ok: i.complete})),
    nav: [...document.querySelectorAll('.sidebar-tree a.reference')].map(a => a.getAttribute('href')),
    next: (document.querySelector('a.next-page') || {getAttribute: () => null}).getAttribute('href'),
    title: document.title,
  };
}"""
RAW_TEX = [re.compile(p) for p in (r"(?<![\w$\\])\$[^$\s][^$]{0,200}?\$(?![\w$])", r"\$\$", r"\\begin\{",
                                   r"\\(?:frac|sqrt|operatorname|mathrm|mathbb|mathcal|top|sum|tau|varepsilon)\b",
                                   r"\\[a-zA-Z]+\{")]
DIRECTIVE = re.compile(r"^\s*#\|\s*[\w-]+", re.M)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a):
        pass


@contextlib.contextmanager
def serve(site: Path):
    "The site on http://127.0.0.1:PORT/ (a free port), in a thread, for the `with` block."
    handler = functools.partial(_Quiet, directory=str(site))
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}/"
    finally:
        srv.shutdown()
        srv.server_close()


class _Anchors(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.hrefs = set(), []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"])
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"])


def broken_links(site: Path, pages: list[Path]) -> list[str]:
    "Links inside the site to a missing file or a missing anchor, as 'page: href' lines."
    parsed = {}
    def parse(p):
        if p not in parsed:
            a = _Anchors()
            a.feed(p.read_text(encoding="utf-8"))
            parsed[p] = a
        return parsed[p]
    out = []
    for p in pages:
        for href in parse(p).hrefs:
            u = urlparse(href)
            if u.scheme or href.startswith("//") or href.startswith("mailto:"):
                continue
            target = (p.parent / unquote(u.path)).resolve() if u.path else p
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                out.append(f"{p.name}: link {href!r} leads to no file")
            elif u.fragment and target.suffix == ".html" and u.fragment not in parse(target).ids:
                out.append(f"{p.name}: link {href!r}: {target.name} has no anchor #{u.fragment}")
    return out


def not_blank(png: Path, min_colours: int = 64, min_ink: float = 0.02) -> str | None:
    "None when the screenshot shows something: enough distinct colours and enough pixels off the background."
    from PIL import Image
    im = Image.open(png).convert("RGB")
    colours = im.getcolors(maxcolors=1 << 24)
    background = max(colours)[1]
    ink = 1 - max(colours)[0] / (im.width * im.height)
    if len(colours) < min_colours or ink < min_ink:
        return f"{png.name}: looks blank ({len(colours)} colours, {ink:.1%} of pixels off the background {background})"
    return None


def check_page(page, url: str, name: str, wait_for: str | None = None) -> tuple[list[str], dict]:
    "Load one page and return its failures and facts."
    failures, outside = [], []
    def on_failed(req):
        if urlparse(req.url).hostname == "127.0.0.1":
            failures.append(f"{name}: request failed: {req.url} ({req.failure})")
    def on_response(resp):
        if resp.status >= 400:
            failures.append(f"{name}: HTTP {resp.status} for {resp.url}")
    page.on("requestfailed", on_failed)
    page.on("response", on_response)
    page.on("pageerror", lambda e: failures.append(f"{name}: script error: {e}"))
    def route(r):
        u = urlparse(r.request.url)
        if u.scheme in ("data", "blob", "about") or u.hostname == "127.0.0.1":
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()
    page.route("**/*", route)
    page.goto(url, wait_until="load")
    if wait_for:
        try:
            page.wait_for_selector(wait_for, timeout=20000)
        except Exception:
            failures.append(f"{name}: nothing matches {wait_for!r} after 20 s")
        try:
            page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=20000)
            page.wait_for_timeout(500)                              # the results' math, typeset as they arrive
        except Exception:
            failures.append(f"{name}: MathJax did not start within 20 s")
    page.wait_for_load_state("networkidle")
    facts = page.evaluate(PAGE_FACTS)
    failures += [f"{name}: a request leaves the site: {u}" for u in outside]
    if facts["math"] and facts["rendered"] < facts["math"]:
        failures.append(f"{name}: {facts['math']} math elements but {facts['rendered']} typeset by MathJax")
    if facts["merrors"]:
        failures.append(f"{name}: {facts['merrors']} MathJax errors")
    for rx in RAW_TEX:
        m = rx.search(facts["prose"])
        if m:
            s = facts["prose"]
            failures.append(f"{name}: raw TeX in the text: ...{s[max(0, m.start() - 40):m.end() + 40]!r}...")
            break
    for img in facts["images"]:
        if not img["ok"] or img["w"] == 0:
            failures.append(f"{name}: image does not load: {img['src']}")
    m = DIRECTIVE.search(facts["code"])
    if m:
        s = facts["code"]
        failures.append(f"{name}: an nbdev directive is shown: ...{s[max(0, m.start() - 40):m.end() + 40]!r}...")
    return failures, facts


def run(site: Path, shots: Path, order: list[str] | None = None, search_word: str | None = "Mahalanobis",
        first: str = "00_metric", full_pages: bool = False) -> list[str]:
    """Every check on the site in `site`; `order`: the chapters' stems in the book's order (None: not checked).
    Screenshots: the whole of `first`, the top of every other page (the whole of each with `full_pages`)."""
    from playwright.sync_api import sync_playwright
    if not (site / "index.html").is_file():
        return [f"{site}: no index.html (build the site first: python tools/site/build.py)"]
    pages = sorted(site.glob("*.html"))
    shots.mkdir(parents=True, exist_ok=True)
    failures = broken_links(site, pages)
    facts = {}
    with serve(site) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        ctx = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
        for p in pages:
            page = ctx.new_page()
            f, facts[p.stem] = check_page(page, base + p.name, p.name)
            failures += f
            page.screenshot(path=str(shots / f"{p.stem}.png"), full_page=full_pages or p.stem == first)
            page.close()
        if search_word and (site / "search.html").is_file():
            page = ctx.new_page()
            f, _ = check_page(page, base + f"search.html?q={search_word}", "search.html?q=" + search_word,
                              wait_for="#search-results ul.search li")
            failures += f
            hits = page.locator("#search-results ul.search li").count()
            page.screenshot(path=str(shots / "search-results.png"))
            if not hits:
                failures.append(f"search.html: searching {search_word!r} finds nothing")
            page.close()
        browser.close()
    if first in facts:
        blank = not_blank(shots / f"{first}.png")
        if blank:
            failures.append(blank)
    else:
        failures.append(f"{site}: no page {first}.html")
    if order:
        nav = [Path(h.split("#")[0]).stem for h in facts.get("index", {}).get("nav", [])]
        nav = [n for n in nav if n and n != "index"]
        if nav != order[1:]:
            failures.append(f"index.html: the sidebar lists {nav}, the book's order is {order[1:]}")
        for a, b in zip(order, order[1:]):
            nxt = facts.get(a, {}).get("next")
            if not nxt or Path(nxt.split("#")[0]).stem != b:
                failures.append(f"{a}.html: 'next' leads to {nxt!r}, not {b}.html")
    return failures


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--site", default="_site", help="the built website (default: _site)")
    ap.add_argument("--shots", default="_shots", help="folder for the screenshots (default: _shots)")
    ap.add_argument("--nbs", default="nbs", help="the notebooks, for the book's order (default: nbs)")
    ap.add_argument("--full-pages", action="store_true", help="screenshot every page whole, not only chapter 00")
    a = ap.parse_args(argv)
    site, shots, nbs = (Path(x) if Path(x).is_absolute() else ROOT / x for x in (a.site, a.shots, a.nbs))
    if not Path(CHROMIUM).exists():
        ap.error(f"no {CHROMIUM}: apt-get update && apt-get install -y chromium")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from build import book_order
    order = [p.stem for p in book_order(nbs)]
    t0 = time.time()
    failures = run(site, shots, order, full_pages=a.full_pages)
    n = len(list(site.glob("*.html")))
    if failures:
        print("\n".join(failures), file=sys.stderr)
        print(f"site check FAILED: {len(failures)} problems on {n} pages ({time.time() - t0:.0f} s)", file=sys.stderr)
        return 1
    print(f"site check: {n} pages load in Chromium with nothing from outside 127.0.0.1, math typeset, images loaded, "
          f"links resolved, search works ({time.time() - t0:.0f} s); screenshots in {shots}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
