"""A scripted stand-in server for the client's error paths (malformed lines, timeouts, exits).

It speaks just enough of the protocol: `initialize`, and test methods:
- `test/garbage`: writes a line that is not JSON;
- `test/silent`: never answers;
- `test/ask` `{"method", "params"}`: sends that server request, then answers with
  `{"reply": <the client's response or error message>}`;
- `test/exit` `{"status"}`: writes to stderr and exits with that status.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> int:
    for line in sys.stdin:
        message = json.loads(line)
        method = message.get("method")
        request_id = message.get("id")
        params = message.get("params") or {}
        if request_id is None:
            continue
        if method == "initialize":
            send({"id": request_id, "result": {
                "userAgent": "fake/0.169.0", "codexHome": "/nowhere",
                "platformFamily": "unix", "platformOs": "linux",
            }})
        elif method == "test/garbage":
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
        elif method == "test/silent":
            pass
        elif method == "test/ask":
            send({"id": 0, "method": params["method"], "params": params.get("params", {})})
            reply = json.loads(sys.stdin.readline())
            send({"id": request_id, "result": {"reply": reply}})
        elif method == "test/exit":
            sys.stderr.write("fake server: exiting on request\n")
            sys.stderr.flush()
            return int(params.get("status", 0))
        else:
            send({"id": request_id, "error": {"code": -32600, "message": f"unknown method {method}"}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
