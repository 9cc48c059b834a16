#!/usr/bin/env python3
"""Feed part of a stream to a command, then signal it where it waits.

usage: feed-stream.py STREAM BYTES SIGNAL CMD [ARG...]

Starts CMD with a pipe as its stdin, writes the first BYTES bytes of
STREAM into it and keeps the pipe open.  Once CMD has read every byte
(the pipe is empty) and its main thread waits in a pipe read -- so it
has applied every complete command it was given -- it sends SIGNAL
(KILL, TERM, INT, or "close" to close the pipe instead: end of input)
and waits for CMD.  Prints CMD's status the way a shell does (128+N
for a signal) and exits with it, so a test can check that a SIGKILL
really killed the process (137).  Gives up after 300 s (status 124).
"""
import fcntl
import os
import signal
import struct
import subprocess
import sys
import termios
import time


def pending(fd):
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]


def waits_in_pipe_read(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/wchan") as f:
            wchan = f.read()
        return "pipe_read" in wchan or "pipe_wait" in wchan
    except OSError:
        return False


def main():
    if len(sys.argv) < 5:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    stream, nbytes, sig, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    with open(stream, "rb") as f:
        data = f.read(nbytes)
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE)
    proc.stdin.write(data)
    proc.stdin.flush()
    deadline = time.monotonic() + 300
    quiet = 0
    while quiet < 3:
        if proc.poll() is not None:
            break
        if time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            print(124)
            return 124
        if pending(proc.stdin.fileno()) == 0 and waits_in_pipe_read(proc.pid):
            quiet += 1
        else:
            quiet = 0
        time.sleep(0.05)
    if proc.poll() is None:
        if sig == "close":
            proc.stdin.close()
        else:
            os.kill(proc.pid, getattr(signal, "SIG" + sig))
    status = proc.wait()
    try:
        proc.stdin.close()
    except BrokenPipeError:
        pass
    status = 128 - status if status < 0 else status
    print(status)
    return status


sys.exit(main())
