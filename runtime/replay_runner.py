"""A runner that waits: the L2 replay's runner on every platform, and the job's runner itself
on a CPU platform (docs/protocol.md, "Judge and runner"; src/platform.c
platform_runner_module).

As the replay runner, kgb starts it beside the job's runner, in a sandbox like it; the judge
holds its socket as fd runtime.wire.REPLAY_FD. The replay (the case again with Triton launches
skipped and allocations poisoned) then runs in a process where the candidate has made no call
before, so nothing the honest calls left behind (a cache of answers, a count of calls) reaches
it. As a CPU platform's runner it answers on fd runtime.wire.PEER_FD.

Most jobs never replay (a candidate that fails first, a task exempt from L2), and on the CPU
many never load a candidate (refused by L1 in the judge, a validity job), so it waits for its
judge's first request before it imports anything: until then it costs a Python start only, and
a socket closed without a request ends it. Then it is runtime.runner, whole."""

from __future__ import annotations

import select
import socket
import sys

PEER_FD = 5  # runtime.wire.PEER_FD: the socket is this process's fd 5 (wire imports torch)


def main() -> int:
    sock = socket.socket(fileno=PEER_FD)
    try:
        select.select([sock], [], [])
        first = sock.recv(1, socket.MSG_PEEK)
    except OSError:
        return 0
    finally:
        sock.detach()
    if not first:
        return 0  # the judge closed it: no replay in this job
    from runtime import runner
    return runner.main()


if __name__ == "__main__":
    sys.exit(main())
