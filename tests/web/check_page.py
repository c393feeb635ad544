#!/usr/bin/env python3
"""The browser test (ctest label `web`, scripts/web --check): serves the built site on
127.0.0.1, opens it in headless Chromium (SwiftShader's WebGL2) and drives it over the DevTools
protocol, once cross-origin isolated (the build with threads) and once not (one thread):

- waits for the first frame (the app's state, written where --report-state writes it, read
  from the page's file system);
- takes a screenshot and checks that it is not blank and shows the tour's first stop;
- clicks Next with real mouse events and sees the stop change;
- presses 1 and reads the newly chosen algorithm in the state;
- fails on any console error or uncaught exception.

Screenshots go to --out (default build/web/check). Exit code 0 when every check passed.
"""
import argparse
import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "web"))
import serve  # noqa: E402  (web/serve.py: the same server scripts/web runs)

try:
    import websocket  # Debian's python3-websocket (scripts/install-deps web)
except ImportError:
    raise SystemExit("check_page: no Python module 'websocket': run scripts/install-deps web, "
                     "and run this with /usr/bin/python3")

STATE_PATH = "/collidoscope-state.json"
FIRST_FRAME_TIMEOUT_S = 60
STEP_TIMEOUT_S = 20


class CheckFailed(Exception):
    pass


def png_pixels(data):
    """Decodes an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium writes) into
    (width, height, channels, rows)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise CheckFailed("the screenshot is not a PNG")
    at, idat, header = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise CheckFailed(f"unexpected PNG format (depth {depth}, colour type {colour})")
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            up_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else up_left)) & 255
        rows.append(line)
        previous = line
    return width, height, channels, rows


def colour_census(png):
    """Distinct colours, and the share of pixels that differ from the most common one (the
    background), sampled every 4th pixel."""
    width, height, channels, rows = png_pixels(png)
    counts = {}
    for y in range(0, height, 4):
        row = rows[y]
        for x in range(0, width, 4):
            c = bytes(row[x * channels:x * channels + 3])
            counts[c] = counts.get(c, 0) + 1
    total = sum(counts.values())
    return len(counts), 1.0 - max(counts.values()) / total


class Page:
    """One Chromium tab over the DevTools protocol."""

    def __init__(self, ws_url):
        self.ws = websocket.create_connection(ws_url, timeout=60)
        self.next_id = 0
        self.errors = []
        self.console = []

    def call(self, method, **params):
        self.next_id += 1
        my_id = self.next_id
        self.ws.send(json.dumps({"id": my_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == my_id:
                if "error" in message:
                    raise CheckFailed(f"{method}: {message['error']}")
                return message.get("result", {})
            self.on_event(message)

    def on_event(self, message):
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
            self.console.append(f"{params['type']}: {text}")
            if params["type"] in ("error", "assert"):
                self.errors.append("console." + params["type"] + ": " + text)
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            self.errors.append("uncaught: " + str(text))
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            entry = params["entry"]
            self.errors.append(f"log ({entry.get('source')}): {entry.get('text')} {entry.get('url', '')}")

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise CheckFailed(f"{expression}: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def pump(self, seconds):
        """Lets events arrive (console messages) for a while."""
        end = time.monotonic() + seconds
        self.ws.settimeout(0.1)
        try:
            while time.monotonic() < end:
                try:
                    self.on_event(json.loads(self.ws.recv()))
                except websocket.WebSocketTimeoutException:
                    pass
        finally:
            self.ws.settimeout(60)

    def state(self):
        text = self.evaluate(
            "(() => { try { return Module.FS.readFile(%r, {encoding: 'utf8'}); }"
            " catch (e) { return null; } })()" % STATE_PATH)
        return json.loads(text) if text else None

    def wait_state(self, what, test, timeout):
        end = time.monotonic() + timeout
        state = None
        while time.monotonic() < end:
            self.pump(0.2)
            state = self.state()
            if state is not None and test(state):
                return state
        raise CheckFailed(f"timed out after {timeout} s waiting for {what}; last state: "
                          + (json.dumps({k: state.get(k) for k in ('frames', 'algorithm', 'preset', 'scene')})
                             if state else "none"))

    def screenshot(self, path):
        data = base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])
        with open(path, "wb") as f:
            f.write(data)
        return data

    def click(self, x, y):
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left",
                      buttons=0 if kind == "mouseReleased" else 1, clickCount=1)
            self.pump(0.05)

    def touch(self, points, dx=0, dy=0, steps=8):
        """Touches `points` at once, moves them all by (dx, dy) in `steps`, and lifts them."""
        def at(k):
            return [{"x": x + dx * k / steps, "y": y + dy * k / steps, "id": i}
                    for i, (x, y) in enumerate(points)]
        self.call("Input.dispatchTouchEvent", type="touchStart", touchPoints=at(0))
        self.pump(0.15)
        for k in range(1, steps + 1 if dx or dy else 1):
            self.call("Input.dispatchTouchEvent", type="touchMove", touchPoints=at(k))
            self.pump(0.1)
        self.call("Input.dispatchTouchEvent", type="touchEnd", touchPoints=[])
        self.pump(0.15)

    def press(self, key, code, key_code):
        text = {"text": key} if len(key) == 1 else {}
        self.call("Input.dispatchKeyEvent", type="keyDown", key=key, code=code,
                  windowsVirtualKeyCode=key_code, nativeVirtualKeyCode=key_code, **text)
        self.pump(0.05)
        self.call("Input.dispatchKeyEvent", type="keyUp", key=key, code=code,
                  windowsVirtualKeyCode=key_code, nativeVirtualKeyCode=key_code)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_chromium(profile, width, height):
    port = free_port()
    command = [shutil.which("chromium") or "chromium", "--headless=new", "--no-sandbox",
               f"--user-data-dir={profile}", "--use-angle=swiftshader",
               "--enable-unsafe-swiftshader", f"--window-size={width},{height}",
               f"--remote-debugging-port={port}", "--remote-allow-origins=*",
               "--no-first-run", "--disable-background-timer-throttling",
               "--disable-renderer-backgrounding", "about:blank"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    end = time.monotonic() + 30
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2) as r:
                pages = [t for t in json.load(r) if t["type"] == "page"]
            if pages:
                return process, pages[0]["webSocketDebuggerUrl"]
        except OSError:
            pass
        if process.poll() is not None:
            raise CheckFailed(f"chromium exited with {process.returncode} before its DevTools port opened")
        time.sleep(0.2)
    process.kill()
    raise CheckFailed("chromium's DevTools port did not open in 30 s")


def centre(rect):
    return rect["x"] + rect["w"] / 2, rect["y"] + rect["h"] / 2


def check(site, isolated, out, width, height, log):
    name = "isolated" if isolated else "not-isolated"
    server = serve.make_server(site, 0, isolated)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    profile = tempfile.mkdtemp(prefix="collidoscope-chromium-")
    process = None
    try:
        process, ws_url = run_chromium(profile, width, height)
        page = Page(ws_url)
        for domain in ("Runtime", "Log", "Page"):
            page.call(domain + ".enable")
        url = f"http://127.0.0.1:{server.server_address[1]}/?no-settings&report-state={STATE_PATH}"
        started = time.monotonic()
        page.call("Page.navigate", url=url)
        first = page.wait_state("the first frame", lambda s: s.get("frames", 0) >= 1,
                                FIRST_FRAME_TIMEOUT_S)
        first_frame_s = time.monotonic() - started
        isolation = page.evaluate("self.crossOriginIsolated === true")
        threaded = page.evaluate("Module.threaded === true")
        if isolation != isolated or threaded != isolated:
            raise CheckFailed(f"crossOriginIsolated is {isolation} and the page loaded the "
                              f"{'threaded' if threaded else 'single-threaded'} build")
        cores = page.evaluate("navigator.hardwareConcurrency")
        wanted_threads = min(cores, 8) if isolated else 1
        if first["threads"] != wanted_threads:
            raise CheckFailed(f"the app runs {first['threads']} threads; wanted {wanted_threads}")
        log(f"{name}: first frame {first_frame_s:.2f} s after navigation; "
            f"{first['threads']} thread(s) of {cores} cores; stop '{first.get('preset')}'")

        # The first tour stop, drawn: a few frames in, so the tour panel has laid out.
        state = page.wait_state("a few frames", lambda s: s["frames"] >= first["frames"] + 5, STEP_TIMEOUT_S)
        if not state.get("preset"):
            raise CheckFailed("the page did not open on a tour stop")
        if not state.get("tour_paragraph"):
            raise CheckFailed("the tour's paragraph is not shown")
        shot = page.screenshot(os.path.join(out, f"{name}-first-stop.png"))
        colours, drawn = colour_census(shot)
        log(f"{name}: screenshot: {colours} colours, {100 * drawn:.0f}% of pixels off the background")
        if colours < 20 or drawn < 0.05:
            raise CheckFailed(f"the screenshot looks blank ({colours} colours, "
                              f"{100 * drawn:.1f}% drawn)")
        first_stop = state["preset"]

        # Next, clicked where the app says the button is.
        x, y = centre(state["widgets"]["tour_next"])
        page.click(x, y)
        state = page.wait_state("the next tour stop", lambda s: s.get("preset") not in (None, "", first_stop),
                                STEP_TIMEOUT_S)
        page.screenshot(os.path.join(out, f"{name}-second-stop.png"))
        log(f"{name}: Next: '{first_stop}' -> '{state['preset']}'")
        x, y = centre(state["widgets"]["tour_next"])
        page.click(x, y)
        third = page.wait_state("the third tour stop",
                                lambda s: s.get("preset") not in (None, "", first_stop, state["preset"]),
                                STEP_TIMEOUT_S)
        page.wait_state("a few frames", lambda s: s["frames"] >= third["frames"] + 5, STEP_TIMEOUT_S)
        page.screenshot(os.path.join(out, f"{name}-third-stop.png"))

        # The first algorithm's key, with the pointer back on the world as a user's would be
        # (over the panel it just clicked, ImGui keeps the keyboard).
        before = third["algorithm"]
        view = third["world_view"]
        page.call("Input.dispatchMouseEvent", type="mouseMoved", buttons=0,
                  x=view["x"] + view["w"] / 2, y=view["y"] + view["h"] / 2)
        page.pump(0.3)
        page.press("1", "Digit1", 49)
        state = page.wait_state("the algorithm to change", lambda s: s["algorithm"] != before,
                                STEP_TIMEOUT_S)
        log(f"{name}: key 1: algorithm '{before}' -> '{state['algorithm']}'")

        # Touch: two fingers dragged across the world pan it; a tap selects what it lands on.
        cx, cy = view["x"] + view["w"] / 2, view["y"] + view["h"] / 2
        was = state["world_centre_screen"]
        page.touch([(cx - 40, cy), (cx + 40, cy)], dx=120, dy=0)
        state = page.wait_state("two fingers to pan the view",
                                lambda s: s["world_centre_screen"][0] > was[0] + 60, STEP_TIMEOUT_S)
        log(f"{name}: two-finger drag of 120 px: the world's centre moved "
            f"{state['world_centre_screen'][0] - was[0]:.0f} px")
        selected = state["selected"]["id"] if state["selected"] else None
        page.touch([(cx + 200, cy + 100)])
        state = page.wait_state("a tap to change the selection",
                                lambda s: (s["selected"]["id"] if s["selected"] else None) != selected,
                                STEP_TIMEOUT_S)
        log(f"{name}: tap: selected body {selected} -> "
            f"{state['selected']['id'] if state['selected'] else None}")

        page.pump(1.0)
        if page.errors:
            raise CheckFailed("the console has errors:\n  " + "\n  ".join(page.errors))
        return {"first_frame_s": first_frame_s, "threads": first["threads"]}
    finally:
        if process:
            process.kill()
            process.wait()
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", default="build/web/site")
    parser.add_argument("--out", default="build/web/check")
    parser.add_argument("--size", default="1280x720", help="the browser window, WxH")
    args = parser.parse_args()
    try:
        width, height = (int(v) for v in args.size.split("x"))
    except ValueError:
        raise SystemExit(f"check_page: --size '{args.size}' is not WIDTHxHEIGHT")
    os.makedirs(args.out, exist_ok=True)
    failures = 0
    for isolated in (True, False):
        try:
            check(args.site, isolated, args.out, width, height, lambda m: print("check_page: " + m, flush=True))
        except CheckFailed as e:
            failures += 1
            print(f"check_page: FAILED ({'isolated' if isolated else 'not isolated'}): {e}", flush=True)
    print(f"check_page: screenshots in {args.out}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
