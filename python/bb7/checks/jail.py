"""Start one check where it cannot touch the project: in a new user, mount and PID namespace,
the project's directory is covered by an overlay (the project below, the pending outputs above
it, a tmpfs on top for whatever the check writes), and the check runs there as PID 1 of its own
namespace, so that every process it leaves (a daemon that left the process group included) ends
with it.

Run as a script by `bb7.checks.process` (`python -I -S jail.py STATUS_FD ROOT SCRATCH CWD N
LAYER... ARGV...`), never imported by bb7: it imports only `os`, `sys` and `ctypes`, so it starts
in milliseconds. ROOT is the project, covered where it is (so absolute paths and editable
installs see the change); the N LAYERs are laid over it (the pending outputs); SCRATCH is an
empty directory for the tmpfs; ARGV is the check, its program resolved, started in CWD with the
script's environment. On STATUS_FD it writes `ready` once the view is mounted,
`fail STEP: REASON` when the kernel refused (the caller then uses a copy instead) or `exec
ERRNO: REASON` when the program could not start; the fd closes when the check starts.
"""

from __future__ import annotations

import ctypes
import os
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
MS_REC = 0x4000
MS_PRIVATE = 1 << 18
PR_SET_PDEATHSIG = 1
SIGKILL = 9
JAIL_FAILED = 125


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, step: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{step}: {os.strerror(err)}")


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as handle:
        handle.write(text)


def _escape(path: str) -> str:
    """A path as overlayfs options take it (`:` and `,` separate, `\\` escapes)."""
    return path.replace("\\", "\\\\").replace(":", "\\:").replace(",", "\\,")


def die_with_parent(libc: ctypes.CDLL) -> None:
    """End when the process that started this one ends (bb7 killed: its checks go too)."""
    libc.prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0)


def mount_view(root: str, scratch: str, layers: list[str]) -> None:
    """The namespaces and the overlay over the project; OSError when the kernel refuses."""
    libc = _libc()
    die_with_parent(libc)
    uid, gid = os.getuid(), os.getgid()
    _check(libc.unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID), "unshare")
    # The check runs as the user it was (files it creates are theirs; git trusts the tree).
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    # Nothing mounted here reaches the user's mount namespace.
    _check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "private mounts")
    _check(libc.mount(b"tmpfs", scratch.encode(), b"tmpfs", 0, b"mode=0700"), "tmpfs")
    upper, work = f"{scratch}/upper", f"{scratch}/work"
    os.mkdir(upper)
    os.mkdir(work)
    options = (
        f"lowerdir={':'.join(_escape(p) for p in [*layers, root])},"
        f"upperdir={_escape(upper)},workdir={_escape(work)}"
    )
    result = libc.mount(b"overlay", root.encode(), b"overlay", 0, options.encode())
    if result != 0:
        # Kernels before 6.x want user xattrs named for an unprivileged overlay.
        result = libc.mount(
            b"overlay", root.encode(), b"overlay", 0, (options + ",userxattr").encode()
        )
    _check(result, "overlay")


def main(argv: list[str]) -> int:
    status_fd, root, scratch, cwd, count = argv[1:6]
    layers = argv[6 : 6 + int(count)]
    args = argv[6 + int(count) :]
    status = os.fdopen(int(status_fd), "w", encoding="utf-8", buffering=1)
    os.set_inheritable(int(status_fd), False)
    try:
        mount_view(root, scratch, layers)
    except OSError as exc:
        status.write(f"fail {exc.strerror or exc}\n")
        return JAIL_FAILED
    except Exception as exc:  # no such call here (not Linux): the caller makes a copy
        status.write(f"fail {type(exc).__name__}: {exc}\n")
        return JAIL_FAILED
    pid = os.fork()
    if pid == 0:  # PID 1 of the new namespace: when it ends, the kernel ends the rest
        try:
            die_with_parent(_libc())
            os.chdir(cwd)
            os.execv(args[0], args)
        except OSError as exc:
            status.write(f"exec {exc.errno}: {exc.strerror}\n")
            status.flush()
        os._exit(127)
    status.write("ready\n")
    status.close()
    _, code = os.waitpid(pid, 0)
    if os.WIFSIGNALED(code):
        return 128 + os.WTERMSIG(code)
    return os.WEXITSTATUS(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
