#!/usr/bin/env python3
"""Serves the built page (build/web/site) on 127.0.0.1 for scripts/web and its test.

With the two cross-origin isolation headers (the default) the page can use SharedArrayBuffer,
and loads the build with threads; --no-isolation leaves them out, as most static hosts do, and
the page loads the single-threaded build. docs/web.md says how to host the site elsewhere.
"""
import argparse
import functools
import http.server
import os
import sys

ISOLATION_HEADERS = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
}


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".js": "text/javascript"}
    isolated = True

    def end_headers(self):
        if self.isolated:
            for name, value in ISOLATION_HEADERS.items():
                self.send_header(name, value)
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, *args):
        pass  # a page load is a dozen requests; the address printed once is enough


def make_server(site, port, isolated):
    if not os.path.isfile(os.path.join(site, "index.html")):
        raise SystemExit(f"serve: {site} has no index.html: build it first (scripts/web --build)")
    handler = type("Handler", (SiteHandler,), {"isolated": isolated})
    return http.server.ThreadingHTTPServer(
        ("127.0.0.1", port), functools.partial(handler, directory=site))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", required=True, help="the folder to serve")
    parser.add_argument("--port", type=int, default=8080, help="0 picks a free port")
    parser.add_argument("--no-isolation", action="store_true",
                        help="leave out the cross-origin isolation headers (one thread)")
    args = parser.parse_args()
    try:
        server = make_server(args.site, args.port, not args.no_isolation)
    except OSError as e:
        raise SystemExit(f"serve: cannot listen on 127.0.0.1:{args.port}: {e.strerror}")
    host, port = server.server_address
    mode = "one thread (not isolated)" if args.no_isolation else "threads (cross-origin isolated)"
    print(f"Collidoscope in the browser: open http://{host}:{port}/  [{mode}; Ctrl-C stops]",
          flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
