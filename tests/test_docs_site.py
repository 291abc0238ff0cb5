"""The documentation site, tested as a person sees it.

The site is built with ``docs/build.sh`` (every Sphinx warning an error, the gallery's
examples executed), served over HTTP on the loopback interface, and opened in headless
Chromium driven through the Chrome DevTools protocol. On the home page, the gallery and
one example page: the title, the navigation, every image loaded (``naturalWidth > 0``;
one thumbnail made from each example's figure) and no console error, failed request or
uncaught exception. Screenshots of the pages are kept in ``docs/_build/screenshots``.

Chromium is Debian's ``chromium`` package: when it is missing the test installs it with
apt-get (as root) and skips, saying why, only when that fails. The docs requirements
(``pip install ".[docs]"``, also in the test extra) must be installed; ``.ci/run`` installs both.
"""

from __future__ import annotations

import base64
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
HTML = DOCS / "_build" / "html"
SCREENSHOTS = DOCS / "_build" / "screenshots"
EXAMPLES = sorted(p.stem for p in (DOCS / "examples").glob("plot_*.py"))
NAVIGATION = ["Installation", "Quick start", "User guide", "Gallery", "API reference"]


def _require_docs_requirements():
    missing = []
    for module in ("sphinx", "sphinx_gallery", "numpydoc", "pydata_sphinx_theme", "websocket"):
        try:
            __import__(module)
        except ImportError:
            missing.append(module)
    if missing:
        pytest.fail(f"the docs requirements are not installed ({', '.join(missing)}): "
                    "pip install \".[docs]\"")


def _chromium():
    """The Chromium executable, installed with apt-get when missing; skips with the
    reason when it cannot be installed."""
    names = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
    found = next((shutil.which(n) for n in names if shutil.which(n)), None)
    if found:
        return found
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        pytest.skip("Chromium is not installed and cannot be installed here (needs apt-get as root): "
                    "apt-get install chromium")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    steps = [["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", "chromium"]]
    for step in steps:
        proc = subprocess.run(step, capture_output=True, text=True, env=env, timeout=1200)
        if proc.returncode != 0:
            pytest.skip(f"Chromium could not be installed ({' '.join(step)} failed): {proc.stderr[-500:]}")
    found = shutil.which("chromium")
    if not found:
        pytest.skip("apt-get install chromium succeeded but no chromium executable is on PATH")
    return found


@pytest.fixture(scope="module")
def site():
    """The site built with warnings as errors, served on a loopback port: its base URL."""
    _require_docs_requirements()
    build = subprocess.run([str(DOCS / "build.sh"), "-q"], capture_output=True, text=True, timeout=3600)
    assert build.returncode == 0, f"docs/build.sh failed (warnings are errors):\n{build.stdout}\n{build.stderr}"
    assert build.stderr.strip() == "", f"the build printed warnings:\n{build.stderr}"
    handler = functools.partial(_QuietHandler, directory=str(HTML))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # no access log in the test output
        pass


class _Page:
    """One Chromium tab over the DevTools protocol: commands, and the events seen."""

    def __init__(self, ws_url):
        import websocket

        self.ws = websocket.create_connection(ws_url, timeout=60, suppress_origin=True)
        self.next_id = 0
        self.events = []
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")

    def send(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, event, timeout=60):
        deadline = time.monotonic() + timeout
        seen = len(self.events)
        while time.monotonic() < deadline:
            if any(e.get("method") == event for e in self.events[seen:]):
                return
            self.ws.settimeout(max(deadline - time.monotonic(), 0.1))
            self.events.append(json.loads(self.ws.recv()))
        raise TimeoutError(event)

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(result["exceptionDetails"])
        return result["result"].get("value")

    def open(self, url):
        """Load ``url`` and wait until every image has finished loading."""
        self.events.clear()
        self.send("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")
        self.evaluate(
            "Promise.all(Array.from(document.images).map(i => i.complete ? null :"
            " new Promise(r => { i.onload = i.onerror = r; })))"
        )

    def errors(self):
        """Console errors, uncaught exceptions and failed requests since the last ``open``."""
        found = []
        for e in self.events:
            method, p = e.get("method"), e.get("params", {})
            if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                found.append("console: " + " ".join(str(a.get("value", a.get("description"))) for a in p["args"]))
            elif method == "Runtime.exceptionThrown":
                found.append("exception: " + p["exceptionDetails"].get("text", ""))
            elif method == "Log.entryAdded" and p["entry"].get("level") == "error":
                found.append(f"log: {p['entry'].get('text')} {p['entry'].get('url', '')}")
            elif method == "Network.loadingFailed" and not p.get("canceled"):
                found.append(f"request failed: {p.get('errorText')}")
        return found

    def screenshot(self, path):
        width, height = self.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
        data = self.send("Page.captureScreenshot", format="png",
                         clip={"x": 0, "y": 0, "width": width, "height": min(height, 2400), "scale": 1},
                         captureBeyondViewport=True)["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self):
        self.ws.close()


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium, its DevTools port on the loopback interface: a new tab's
    DevTools URL maker."""
    executable = _chromium()
    profile = tempfile.mkdtemp(prefix="treeopt-chromium-")
    proc = subprocess.Popen(
        [executable, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-dev-shm-usage", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
         f"--user-data-dir={profile}", "--window-size=1280,900", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    port = None
    deadline = time.monotonic() + 60
    lines = []
    while port is None and time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line and proc.poll() is not None:
            break
        lines.append(line)
        match = re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", line)
        if match:
            port = int(match.group(1))
    if port is None:
        proc.kill()
        pytest.fail("headless Chromium did not start:\n" + "".join(lines))
    # keep reading its stderr so that it never blocks on a full pipe
    threading.Thread(target=proc.stderr.read, daemon=True).start()

    def new_tab():
        request = urllib.request.Request(f"http://127.0.0.1:{port}/json/new?about:blank", method="PUT")
        with urllib.request.urlopen(request, timeout=30) as response:
            return _Page(json.load(response)["webSocketDebuggerUrl"])

    yield new_tab
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    shutil.rmtree(profile, ignore_errors=True)


def _page_state(page):
    return page.evaluate(
        """({
            title: document.title,
            navigation: Array.from(document.querySelectorAll('.bd-header a, .bd-navbar a, nav a'))
                .map(a => a.textContent.trim()).filter(t => t),
            images: Array.from(document.images).map(i => ({
                src: i.currentSrc || i.src, width: i.naturalWidth, cls: i.className,
                visible: i.getClientRects().length > 0})),
            h1: (document.querySelector('h1') || {}).textContent,
        })"""
    )


def _check_page(page, url, screenshot):
    page.open(url)
    state = _page_state(page)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(SCREENSHOTS / screenshot)
    assert "treeopt" in state["title"], state["title"]
    for entry in NAVIGATION:
        assert entry in state["navigation"], (entry, state["navigation"])
    broken = [i["src"] for i in state["images"] if i["width"] == 0]
    assert not broken, f"images that did not load on {url}: {broken}"
    assert page.errors() == [], f"console errors on {url}: {page.errors()}"
    return state


def test_site_builds_without_warnings_and_renders_in_chromium(site, browser):
    assert len(EXAMPLES) >= 8, "the gallery has at least 8 examples"
    page = browser()
    try:
        home = _check_page(page, site + "index.html", "index.png")
        assert home["h1"].strip().startswith("treeopt")

        gallery = _check_page(page, site + "auto_examples/index.html", "gallery.png")
        thumbs = [i for i in gallery["images"] if re.search(r"/sphx_glr_plot_\w+_thumb\.png$", i["src"])]
        made = sorted(re.search(r"sphx_glr_(plot_\w+?)_thumb", i["src"]).group(1) for i in thumbs)
        assert made == EXAMPLES, "one thumbnail drawn from each example's own figure"
        assert all(i["width"] > 0 for i in thumbs)

        example = _check_page(page, site + "auto_examples/plot_sparsity_frontier.html", "example.png")
        figures = [i for i in example["images"] if "sphx-glr-single-img" in i["cls"] or "sphx-glr-multi-img" in i["cls"]]
        assert figures and all(i["width"] > 0 and i["visible"] for i in figures), example["images"]
        assert "frontier" in example["h1"].lower()

        api = _check_page(page, site + "generated/treeopt.GOSDTClassifier.html", "api.png")
        assert "GOSDTClassifier" in api["h1"]
        assert "lower_bound_" in page.evaluate("document.body.innerText")
    finally:
        page.close()
