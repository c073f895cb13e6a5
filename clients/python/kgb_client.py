"""A client of `kgb serve` (docs/service.md), standard library only.

    from kgb_client import Client
    c = Client("http://127.0.0.1:8080", token="...")
    r = c.verify("add", open("add.py").read())   # blocks until judged
    r["reward"], r["result"]["verdict"], r["result"]["speedup"]

verify() submits, then long-polls GET /v1/evaluations/{id}?wait=... until the submission is
done, and returns the server's whole answer (id, status, result in the `kgb eval --json`
schema, reward). A 429 is retried after its Retry-After; every other error raises KgbError
with the server's message. `python kgb_client.py URL TOKEN TASK FILE` verifies one file.
"""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request
import uuid
from typing import Any

__all__ = ["Client", "KgbError"]


class KgbError(Exception):
    """An error answer of the server: its HTTP status and message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message


class Client:
    def __init__(self, url: str, token: str | None = None, timeout_s: float = 3600,
                 poll_s: float = 30) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.timeout_s = timeout_s  # the most verify() waits for one result
        self.poll_s = poll_s        # each long poll's wait (the server bounds it)

    def _call(self, method: str, path: str, body: Any = None,
              timeout: float = 120) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        while True:
            req = urllib.request.Request(self.url + path, data=data, method=method)
            if self.token:
                req.add_header("Authorization", "Bearer " + self.token)
            if data is not None:
                req.add_header("Content-Type", "application/json")
            try:
                with urllib.request.urlopen(req, timeout=timeout) as r:
                    return r.status, json.loads(r.read())
            except urllib.error.HTTPError as e:
                raw = e.read()
                if e.code == 429:  # backpressure: wait as told, then again
                    time.sleep(float(e.headers.get("Retry-After") or 5))
                    continue
                try:
                    msg = json.loads(raw)["error"]["message"]
                except (ValueError, KeyError, TypeError):
                    msg = raw.decode(errors="replace")
                raise KgbError(e.code, msg) from None

    def submit(self, task: str, code: str, **options: Any) -> dict[str, Any]:
        """POST /v1/evaluations (options: seed, heldout, ranked, client_request_id)."""
        body = {"task": task, "code": code, **options}
        body.setdefault("client_request_id", uuid.uuid4().hex)  # retries stay one submission
        return self._call("POST", "/v1/evaluations", body)[1]

    def get(self, sub_id: str, wait_s: float = 0) -> dict[str, Any]:
        path = f"/v1/evaluations/{sub_id}" + (f"?wait={wait_s:g}" if wait_s else "")
        return self._call("GET", path, timeout=wait_s + 60)[1]

    def verify(self, task: str, code: str, **options: Any) -> dict[str, Any]:
        """Submit and wait for the result: the server's answer, status done."""
        r = self.submit(task, code, **options)
        deadline = time.monotonic() + self.timeout_s
        while r["status"] != "done":
            if time.monotonic() > deadline:
                raise TimeoutError(f"submission {r['id']} not done in {self.timeout_s} s")
            r = self.get(r["id"], self.poll_s)
        return r

    def tasks(self) -> list[dict[str, Any]]:
        return self._call("GET", "/v1/tasks")[1]["tasks"]

    def prompt(self, task: str) -> str:
        return self._call("GET", f"/v1/tasks/{task}")[1]["prompt"]


def main(argv: list[str]) -> int:
    if len(argv) != 5:
        print("usage: kgb_client.py URL TOKEN TASK FILE", file=sys.stderr)
        return 2
    r = Client(argv[1], argv[2] or None).verify(argv[3], open(argv[4]).read())
    print(json.dumps(r, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
