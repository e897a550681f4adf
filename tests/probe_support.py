"""Real servers on 127.0.0.1 for the probe tests: a deployed app, a system of record, TLS.

Every server here is a real `http.server` on a port the OS picks, run in a thread and shut
down by the test; each records the requests it saw so a test can prove that the gate sent
none (a refused host) or that a secret arrived in a header and nowhere else.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import json
import sqlite3
import ssl
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()
    declare_length: bool = True  # False: no Content-Length, the body ends when the server closes

    @classmethod
    def json(cls, status: int, value: Any, *headers: tuple[str, str]) -> Reply:
        return cls(status, json.dumps(value).encode(), (("Content-Type", "application/json"),
                                                         *headers))


Handler = Callable[[Seen, bytes], Reply]


@dataclass
class Server:
    url: str
    port: int
    seen: list[Seen] = field(default_factory=list)


class _Http(ThreadingHTTPServer):
    daemon_threads = True
    handler: Handler
    seen: list[Seen]
    lock: threading.Lock


class _RequestHandler(BaseHTTPRequestHandler):
    server: _Http

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        seen = Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()})
        with self.server.lock:
            self.server.seen.append(seen)
        reply = self.server.handler(seen, body)
        self.send_response(reply.status)
        for name, value in reply.headers:
            self.send_header(name, value)
        if reply.declare_length:
            self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        if self.command != "HEAD":
            # The client may stop reading: that is what a size cap does.
            with suppress(BrokenPipeError, ConnectionResetError, ssl.SSLError):
                self.wfile.write(reply.body)

    do_GET = do_HEAD = do_POST = do_PUT = _answer  # noqa: N815 - http.server's naming

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests read what the server saw from `seen`, not from stderr."""


@contextmanager
def serve(handler: Handler, tls: ssl.SSLContext | None = None) -> Iterator[Server]:
    """Run `handler` on 127.0.0.1 (HTTPS when `tls` is given) until the block ends."""
    httpd = _Http(("127.0.0.1", 0), _RequestHandler)
    httpd.handler = handler
    httpd.seen = []
    httpd.lock = threading.Lock()
    if tls is not None:
        httpd.socket = tls.wrap_socket(httpd.socket, server_side=True)
    port = httpd.server_address[1]
    scheme = "https" if tls is not None else "http"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield Server(f"{scheme}://127.0.0.1:{port}", int(port), httpd.seen)
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


@dataclass(frozen=True)
class Certificate:
    cert: Path
    key: Path

    def server_context(self) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert, self.key)
        return context


def make_certificate(directory: Path, name: str = "probe-test") -> Certificate:
    """A self-signed certificate for 127.0.0.1 and localhost, made by the test."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.now(UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=2))
        .add_extension(
            x509.SubjectAlternativeName([
                x509.DNSName("localhost"),
                x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
            ]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path = directory / f"{name}.pem"
    key_path = directory / f"{name}-key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ))
    return Certificate(cert_path, key_path)


class FakeClock:
    """The gate's clock and sleep in one: sleeping moves the clock, nothing waits."""

    def __init__(self, start: datetime) -> None:
        self.now = start
        self.slept: list[float] = []

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=1)
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += timedelta(seconds=seconds)


class RecordsService:
    """A small system of record: SQLite behind HTTP, with a cache that lags.

    - `PUT /accounts/{id}` writes fields to the database (the system of record);
    - `GET /accounts/{id}` reads the record from the database, 404 if there is none;
    - `PUT /cache/accounts/{id}` writes to the cache only (the mistake an agent can make);
    - `GET /cache/accounts/{id}` reads the cache, which is refreshed from the database only
      every `lag` reads, so right after a write it shows the old record.
    Every request needs `Authorization: Bearer <token>`.
    """

    def __init__(self, database: Path, token: str, lag: int = 3) -> None:
        self.token = token
        self.lag = lag
        self.lock = threading.Lock()
        self.db = sqlite3.connect(database, check_same_thread=False)
        self.db.execute("CREATE TABLE IF NOT EXISTS accounts (id TEXT PRIMARY KEY, doc TEXT)")
        self.cache: dict[str, dict[str, Any]] = {}
        self.cache_reads = 0

    def close(self) -> None:
        self.db.close()

    def _read(self, account: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT doc FROM accounts WHERE id = ?", (account,)).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def _write(self, account: str, fields: dict[str, Any]) -> dict[str, Any]:
        record = self._read(account) or {"id": account}
        record.update(fields)
        self.db.execute(
            "INSERT INTO accounts (id, doc) VALUES (?, ?)"
            " ON CONFLICT(id) DO UPDATE SET doc = excluded.doc",
            (account, json.dumps(record)),
        )
        self.db.commit()
        return record

    def __call__(self, seen: Seen, body: bytes) -> Reply:
        if seen.headers.get("authorization") != f"Bearer {self.token}":
            return Reply.json(401, {"error": "unauthorized"})
        parts = seen.path.strip("/").split("/")
        with self.lock:
            if parts[:1] == ["accounts"] and len(parts) == 2:
                if seen.method == "PUT":
                    return Reply.json(200, self._write(parts[1], json.loads(body)))
                record = self._read(parts[1])
                return Reply.json(404, {"error": "no such account"}) if record is None \
                    else Reply.json(200, {"data": record})
            if parts[:2] == ["cache", "accounts"] and len(parts) == 3:
                account = parts[2]
                if seen.method == "PUT":
                    cached = dict(self.cache.get(account) or self._read(account) or {})
                    cached.update(json.loads(body))
                    self.cache[account] = cached
                    return Reply.json(200, cached)
                self.cache_reads += 1
                if account not in self.cache or self.cache_reads % self.lag == 0:
                    fresh = self._read(account)
                    if fresh is not None:
                        self.cache[account] = fresh
                cached_record = self.cache.get(account)
                return Reply.json(404, {"error": "not cached"}) if cached_record is None \
                    else Reply.json(200, {"data": cached_record})
        return Reply.json(404, {"error": "no such endpoint"})


def at(text: str) -> datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


@contextmanager
def records_service(folder: Path, token: str) -> Iterator[tuple[RecordsService, Server]]:
    """A SQLite-backed system of record served on 127.0.0.1 for the block's duration."""
    service = RecordsService(folder / "records.sqlite3", token)
    try:
        with serve(service) as server:
            yield service, server
    finally:
        service.close()
