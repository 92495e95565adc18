"""Another site's page, in a real browser, cannot drive ``simkit serve``: a page
served from another origin (another port of this machine) tries every way a
page has to start work on the app and to read an answer (a fetch that posts
a job, a form that posts one, an image and a script whose address is an
answer, a fetch that reads one) while the app serves on its own port;
nothing starts, nothing is read.  Chromium through Playwright, as in
test_browser.py."""

from __future__ import annotations

import http.server
import os
import shutil
import socket
import threading
import time

import pytest

CHROMIUM = "/usr/bin/chromium"
try:
    from playwright.sync_api import sync_playwright
except ImportError:         # pragma: no cover - the test extras install it
    sync_playwright = None

pytestmark = [pytest.mark.browser, pytest.mark.skipif(
    sync_playwright is None or not (os.path.exists(CHROMIUM) or shutil.which("chromium")),
    reason="the browser tests need playwright and Debian's chromium at /usr/bin/chromium")]

ADVISE = "game=pepper&hand=JH+JD+AH+KH+QH+9S&samples=20000"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def app_url():
    """``(url, app)``: the app as ``simkit serve`` serves it, on a free port."""
    from simkit.app.web import server

    app = server.create_app(warm=False)
    uv = server.uvicorn_server(app, "127.0.0.1", _free_port())
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not uv.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        assert thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{uv.config.port}", app
    uv.should_exit = True
    thread.join(10)


def _attack(target: str) -> str:
    """The other site's page: every way it has to reach the app."""
    return f"""<!doctype html><title>another site</title>
<form id="f" method="post" action="{target}/api/jobs?command=advise&{ADVISE}" target="sink">
</form><iframe name="sink"></iframe>
<img id="img" src="{target}/api/advise?{ADVISE}">
<script src="{target}/api/advise?{ADVISE}&x=1"></script>
<script>
window.results = {{}};
async function attempt(name, fn) {{
  try {{ window.results[name] = await fn(); }}
  catch (e) {{ window.results[name] = "failed: " + e; }}
}}
window.done = (async () => {{
  await attempt("post job", () => fetch("{target}/api/jobs?command=advise&{ADVISE}",
    {{ method: "POST", mode: "no-cors" }}).then((r) => "opaque " + r.type));
  await attempt("post replay", () => fetch("{target}/api/replay",
    {{ method: "POST", mode: "no-cors", headers: {{ "Content-Type": "text/plain" }},
       body: "a record" }}).then((r) => "opaque " + r.type));
  await attempt("read health", () => fetch("{target}/api/health").then((r) => r.text()));
  await attempt("read advice", () => fetch("{target}/api/advise?{ADVISE}").then((r) => r.text()));
  document.getElementById("f").submit();
  return true;
}})();
</script>"""


@pytest.fixture(scope="module")
def other_site(app_url):
    """The other site: a plain web server on another port serving its page."""
    page = _attack(app_url[0]).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", _free_port()), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


def test_another_sites_page_can_neither_start_work_nor_read_an_answer(app_url, other_site):
    url, app = app_url
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM)
        try:
            page = browser.new_page()
            page.goto(other_site)
            page.wait_for_function("window.done !== undefined")
            page.evaluate("window.done")
            time.sleep(1.5)              # the form's post and the image had their turn
            results = page.evaluate("window.results")
        finally:
            browser.close()
    # nothing was started: no job, no run, no direct answer
    assert app.state.runs.running == 0
    assert not app.state.jobs.jobs
    # and nothing could be read
    assert results["read health"].startswith("failed"), results
    assert results["read advice"].startswith("failed"), results
    # the app's own page, at its own address, still works
    import httpx
    assert httpx.get(f"{url}/api/health").json()["status"] in ("ready", "warming")
