"""A real load balancer for the tests: nginx (Debian's package) in front of replicas.

:func:`load_balancer` writes a configuration into a temporary folder (pid file, logs and
every temp path there, ``daemon off``, one worker) and runs ``nginx`` on 127.0.0.1 at the
given port: round robin over the upstream addresses, the next one tried when one refuses
or times out (``proxy_next_upstream error timeout``: nginx never sends a POST twice once
a replica received it), no buffering (MCP answers in Server-Sent Events), the client's
``Host`` passed on and its own ``$request_id`` as ``X-Request-Id``. Its access log is one
JSON object a line, naming the replica (``upstream``) that answered each request.

Where nginx is missing the tests are skipped with a message, except under CI, where that is
a failure (tests/installed.py): .ci/run installs it from Debian (``apt-get install nginx``).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from installed import missing
from oauth_server import real_clock_env

CONFIG = """\
daemon off;
worker_processes 1;
{user}pid {folder}/nginx.pid;
error_log {folder}/error.log info;
events {{ worker_connections 256; }}
http {{
    log_format replicas escape=json '{{"request_id":"$request_id","method":"$request_method",'
        '"status":"$status","upstream":"$upstream_addr"}}';
    access_log {folder}/access.log replicas;
    client_body_temp_path {folder}/client_body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    upstream replicas {{
{servers}
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://replicas;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_set_header X-Request-Id $request_id;
            proxy_buffering off;
            proxy_request_buffering off;
            proxy_cache off;
            proxy_connect_timeout 5s;
            proxy_read_timeout 120s;
            proxy_next_upstream error timeout;
        }}
    }}
}}
"""


@dataclass
class LoadBalancer:
    """The running nginx: its base URL and its access log."""

    url: str
    folder: Path

    def answered(self) -> list[dict[str, str]]:
        """The access log's records so far, one per request (``upstream``: who answered)."""
        path = self.folder / "access.log"
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def free_port() -> int:
    """A port nobody listens on now, on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def nginx_binary() -> str:
    """The nginx to run; a skip (a failure under CI) where it is not installed."""
    binary = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)), None
    )
    if binary is None:
        missing("nginx is not installed (apt-get install nginx)")
    return binary


@contextlib.contextmanager
def load_balancer(
    binary: str, folder: Path, port: int, upstreams: Sequence[str]
) -> Iterator[LoadBalancer]:
    """nginx on 127.0.0.1:``port`` over ``upstreams`` (``host:port``), until the block ends."""
    folder.mkdir(parents=True, exist_ok=True)
    # As root, nginx's worker would switch to "nobody", who cannot enter pytest's private
    # temporary folder; anyone else runs it as themselves (the directive is ignored).
    user = "user root;\n" if os.geteuid() == 0 else ""
    servers = "\n".join(
        f"        server {address} max_fails=1 fail_timeout=30s;" for address in upstreams
    )
    conf = folder / "nginx.conf"
    conf.write_text(CONFIG.format(user=user, folder=folder, servers=servers, port=port))
    # -e: the error log before the configuration is read (else /var/log/nginx/error.log).
    command = [binary, "-p", str(folder), "-c", str(conf), "-e", str(folder / "error.log")]
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=real_clock_env(),
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                log = (folder / "error.log").read_text(encoding="utf-8", errors="replace")
                pytest.fail(f"nginx did not start: {log[-2000:]}", pytrace=False)
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                    break
            if time.monotonic() > deadline:
                pytest.fail("nginx answered no /readyz within 30 s", pytrace=False)
            time.sleep(0.1)
        yield LoadBalancer(url=url, folder=folder)
    finally:
        process.terminate()  # SIGTERM: nginx's fast shutdown
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)
