"""Checks docs/openapi.json against a running `kgb serve` (tests/cli/t0260-serve.sh).

usage: openapi-check.py SPEC URL TOKEN DONE_ID

Every path of the spec is requested (path parameters: DONE_ID, the task "scale"; bodies: a
submission of the task's shipped-style candidate the server already judged, and one with a
field missing); each answer's status must be one the spec lists for that operation, and its
JSON body must hold every required key of the documented schema and no key the schema does
not name (where it says additionalProperties: false). A path the server does not route fails.
"""

import json
import sys
import urllib.error
import urllib.request


def resolve(spec, s):
    while isinstance(s, dict) and "$ref" in s:
        s = spec["components"]["schemas"][s["$ref"].rsplit("/", 1)[1]]
    return s


def check_keys(spec, schema, body, where, errors):
    schema = resolve(spec, schema)
    if schema.get("type") != "object" or not isinstance(body, dict):
        return
    props = schema.get("properties", {})
    for k in schema.get("required", []):
        if k not in body:
            errors.append(f"{where}: key '{k}' missing")
    if schema.get("additionalProperties") is False:
        for k in body:
            if k not in props:
                errors.append(f"{where}: key '{k}' not in the spec")
    for k, sub in props.items():
        if k in body and isinstance(body[k], dict):
            check_keys(spec, sub, body[k], f"{where}.{k}", errors)


def main():
    spec_path, url, token, done_id = sys.argv[1:5]
    spec = json.load(open(spec_path))
    errors = []
    params = {"id": done_id, "name": "scale"}
    bodies = [{"task": "scale", "code": "x = (\n"}, {"task": "scale"}]
    for path, ops in spec["paths"].items():
        concrete = path
        for k, v in params.items():
            concrete = concrete.replace("{" + k + "}", v)
        for method, op in ops.items():
            sends = [None]
            if method == "post":
                sends = bodies if "batch" not in path else [{"evaluations": bodies}, {}]
            for body in sends:
                data = json.dumps(body).encode() if body is not None else None
                req = urllib.request.Request(url + concrete, data=data, method=method.upper())
                req.add_header("Authorization", "Bearer " + token)
                try:
                    with urllib.request.urlopen(req, timeout=60) as r:
                        status, raw, ctype = r.status, r.read(), r.headers.get("Content-Type")
                except urllib.error.HTTPError as e:
                    status, raw, ctype = e.code, e.read(), e.headers.get("Content-Type")
                where = f"{method.upper()} {concrete} ({status})"
                doc = op["responses"].get(str(status))
                if doc is None:
                    errors.append(f"{where}: status not in the spec")
                    continue
                content = doc.get("content", {})
                if "application/json" in content:
                    if not ctype or not ctype.startswith("application/json"):
                        errors.append(f"{where}: Content-Type {ctype}")
                        continue
                    check_keys(spec, content["application/json"]["schema"],
                               json.loads(raw), where, errors)
                    if "batch" in path and status == 200:
                        for i, item in enumerate(json.loads(raw)["evaluations"]):
                            schema = ("Error" if "error" in item else "Submission")
                            item = {k: v for k, v in item.items() if k != "http_status"}
                            check_keys(spec, {"$ref": "#/components/schemas/" + schema},
                                       item, f"{where}[{i}]", errors)
                elif "text/plain" in content and not (ctype or "").startswith("text/plain"):
                    errors.append(f"{where}: Content-Type {ctype}")
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
