"""A scripted chat server speaking the OpenAI chat-completions and Anthropic Messages APIs.

The tests of `kgb generate` (tests/cli/t0210-generate.sh) start it on a free port and point kgb
at it. It answers from a script instead of a model, and logs every request it gets, so a test
can check what kgb sent (headers, body), how it retried and what it counted.

    python3 tests/llm/server.py SCRIPT.json LOG.jsonl PORT_FILE

SCRIPT.json: {"rules": [{"match": "...", "replies": [REPLY, ...]}, ...]}. A request is answered
by the first rule whose `match` occurs in its last message; each request of that rule takes
the rule's next reply (the last one repeats). REPLY fields, all optional:
    code        a module: the reply text becomes a sentence and a ```python block holding it
    text        the reply text as is (default "")
    status      an HTTP error status instead of a reply (429, 500, 400, ...), body `body`
    retry_after the Retry-After header of an error reply
    delay       seconds to wait before answering (timeouts)
    malformed   a 200 whose body is cut-off JSON
    cut         a stream that stops before its end marker
    finish      the stop reason (default "stop"; Anthropic: mapped to end_turn / max_tokens)
    refusal     OpenAI's refusal field instead of content
    usage       {"prompt": p, "completion": c, "cached": k} (default 100, 50, 0)
    no_usage    a reply without token counts
The log gets one JSON line per request: {"path", "auth", "version", "body"} (auth: the
Authorization or x-api-key header, so a test can check the key was sent and nothing else).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()


class Script:
    def __init__(self, path: str) -> None:
        with open(path) as f:
            self.rules = json.load(f)["rules"]
        self.taken = [0] * len(self.rules)

    def reply_for(self, last_message: str) -> dict:
        with LOCK:
            for i, rule in enumerate(self.rules):
                if rule["match"] in last_message:
                    replies = rule["replies"]
                    reply = replies[min(self.taken[i], len(replies) - 1)]
                    self.taken[i] += 1
                    return reply
        return {"status": 404, "body": '{"error": {"message": "no rule matches"}}'}


def _text_of(reply: dict) -> str:
    if "code" in reply:
        return "Here is the module.\n\n```python\n" + reply["code"] + "```\n"
    return reply.get("text", "")


def _usage(reply: dict) -> tuple[int, int, int]:
    u = reply.get("usage", {})
    return u.get("prompt", 100), u.get("completion", 50), u.get("cached", 0)


def _openai(reply: dict, stream: bool) -> list[str] | dict:
    text, finish = _text_of(reply), reply.get("finish", "stop")
    p, c, k = _usage(reply)
    usage = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c,
             "prompt_tokens_details": {"cached_tokens": k}}
    if not stream:
        msg = {"role": "assistant", "content": text}
        if "refusal" in reply:
            msg = {"role": "assistant", "content": None, "refusal": reply["refusal"]}
        body = {"id": "x", "object": "chat.completion",
                "choices": [{"index": 0, "message": msg, "finish_reason": finish}]}
        if not reply.get("no_usage"):
            body["usage"] = usage
        return body
    thirds = [text[: len(text) // 3], text[len(text) // 3: 2 * len(text) // 3],
              text[2 * len(text) // 3:]]
    events = [{"choices": [{"index": 0, "delta": {"content": t}, "finish_reason": None}]}
              for t in thirds]
    events.append({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    if not reply.get("no_usage"):
        events.append({"choices": [], "usage": usage})
    lines = [json.dumps(e) for e in events] + ["[DONE]"]
    return lines[:2] if reply.get("cut") else lines


def _anthropic(reply: dict, stream: bool) -> list[str] | dict:
    text = _text_of(reply)
    finish = {"stop": "end_turn", "length": "max_tokens"}.get(reply.get("finish", "stop"),
                                                                reply.get("finish"))
    p, c, k = _usage(reply)
    # input_tokens excludes the cached part, as Anthropic bills it
    usage = {"input_tokens": p - k, "output_tokens": c, "cache_read_input_tokens": k,
             "cache_creation_input_tokens": 0}
    if not stream:
        body = {"id": "x", "type": "message", "role": "assistant",
                "content": [{"type": "text", "text": text}], "stop_reason": finish}
        if not reply.get("no_usage"):
            body["usage"] = usage
        return body
    start_usage = {} if reply.get("no_usage") else dict(usage, output_tokens=1)
    events = [{"type": "message_start", "message": {"id": "x", "usage": start_usage}},
              {"type": "content_block_start", "index": 0,
               "content_block": {"type": "text", "text": ""}}]
    half = len(text) // 2
    for t in (text[:half], text[half:]):
        events.append({"type": "content_block_delta", "index": 0,
                       "delta": {"type": "text_delta", "text": t}})
    events.append({"type": "content_block_stop", "index": 0})
    delta = {"type": "message_delta", "delta": {"stop_reason": finish}}
    if not reply.get("no_usage"):
        delta["usage"] = {"output_tokens": c}
    events += [delta, {"type": "message_stop"}]
    lines = [json.dumps(e) for e in events]
    return lines[:3] if reply.get("cut") else lines


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            body = {"unparsed": raw.decode(errors="replace")}
        auth = self.headers.get("Authorization") or self.headers.get("x-api-key")
        with LOCK, open(self.server.log_path, "a") as log:
            log.write(json.dumps({"path": self.path, "auth": auth,
                                  "version": self.headers.get("anthropic-version"),
                                  "body": body}) + "\n")
        msgs = body.get("messages") or [{}]
        reply = self.server.script.reply_for(str(msgs[-1].get("content", "")))
        time.sleep(reply.get("delay", 0))
        if "status" in reply:
            payload = reply.get("body", '{"error": {"message": "scripted error"}}').encode()
            self.send_response(reply["status"])
            if "retry_after" in reply:
                self.send_header("Retry-After", str(reply["retry_after"]))
            self._finish(payload, "application/json")
            return
        anthropic = self.path.endswith("/messages")
        stream = bool(body.get("stream"))
        out = (_anthropic if anthropic else _openai)(reply, stream)
        self.send_response(200)
        if reply.get("malformed"):
            self._finish(b'{"choices": [{"message": {"content": "cut', "application/json")
        elif stream:
            data = "".join(f"data: {line}\n\n" for line in out).encode()
            self._finish(data, "text/event-stream")
        else:
            self._finish(json.dumps(out).encode(), "application/json")

    def _finish(self, payload: bytes, ctype: str) -> None:
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        # A client that gave up (kgb's timeout tests) is expected, not worth a traceback.
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


def main() -> None:
    script_path, log_path, port_file = sys.argv[1:4]
    server = Server(("127.0.0.1", 0), Handler)
    server.script = Script(script_path)
    server.log_path = log_path
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
