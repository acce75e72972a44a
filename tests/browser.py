"""A headless Chromium driven over the DevTools protocol, with nothing but the standard library (for tests).

``Browser.find()`` returns the path of a Chromium from the OS packages or None; ``with Browser(path) as b``
starts it on a free port with a throw-away profile, ``b.open(url)``, ``b.evaluate(js)``, ``b.click(x, y)``
(real mouse events) and ``b.screenshot(path)``.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


class Browser:
    def __init__(self, path: str, *, width: int = 1200, height: int = 900):
        self.path, self.width, self.height = path, width, height
        self.proc: subprocess.Popen | None = None
        self.sock: socket.socket | None = None
        self.profile = ""
        self.next_id = 0

    @staticmethod
    def find() -> str | None:
        for name in NAMES:
            found = shutil.which(name)
            if found:
                return found
        return None

    # -- start and stop ---------------------------------------------------------------------------
    def __enter__(self) -> Browser:
        self.profile = tempfile.mkdtemp(prefix="judgelog-chromium-")
        port = _free_port()
        self.proc = subprocess.Popen(
            [
                self.path,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                f"--user-data-dir={self.profile}",
                f"--remote-debugging-port={port}",
                f"--window-size={self.width},{self.height}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        target = None
        deadline = time.monotonic() + 60
        while target is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2) as r:
                    pages = [t for t in json.load(r) if t.get("type") == "page"]
                target = pages[0]["webSocketDebuggerUrl"] if pages else None
            except OSError:
                pass
            if target is None:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError("Chromium did not start its DevTools endpoint")
                time.sleep(0.2)
        self._connect(target)
        self.call("Page.enable")
        self.call("Runtime.enable")
        return self

    def __exit__(self, *exc) -> None:
        if self.sock is not None:
            self.sock.close()
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    # -- the protocol ---------------------------------------------------------------------------------
    def call(self, method: str, **params) -> dict:
        self.next_id += 1
        mine = self.next_id
        self._send(json.dumps({"id": mine, "method": method, "params": params}))
        while True:
            message = json.loads(self._receive())
            if message.get("id") == mine:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def open(self, url: str) -> None:
        self.call("Page.navigate", url=url)
        deadline = time.monotonic() + 30
        while self.evaluate("document.readyState") != "complete":
            if time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not load")
            time.sleep(0.1)

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    def click(self, x: float, y: float) -> None:
        """A real mouse click (press and release of the left button) at page coordinates."""
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def screenshot(self, path: str) -> None:
        data = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)["data"]
        with open(path, "wb") as handle:
            handle.write(base64.b64decode(data))

    # -- a minimal websocket client (RFC 6455: text frames, client-masked) ---------------------------------
    def _connect(self, url: str) -> None:
        rest = url.split("://", 1)[1]
        hostport, path = rest.split("/", 1)
        host, port = hostport.split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += self.sock.recv(4096)
        if b" 101 " not in answer.split(b"\r\n", 1)[0]:
            raise RuntimeError("the DevTools websocket refused the connection")
        self._buffer = answer.split(b"\r\n\r\n", 1)[1]

    def _send(self, text: str) -> None:
        data = text.encode()
        head = bytes([0x81])
        n = len(data)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _read(self, n: int) -> bytes:
        while len(self._buffer) < n:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise RuntimeError("the DevTools websocket closed")
            self._buffer += chunk
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def _receive(self) -> str:
        message = b""
        while True:
            b1, b2 = self._read(2)
            n = b2 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            payload = self._read(n)
            opcode = b1 & 0x0F
            if opcode in (0x1, 0x0):
                message += payload
                if b1 & 0x80:
                    return message.decode()
            # ping/pong/close frames are not expected from DevTools in a short test; skip them


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
