"""Start one check where it cannot touch the project, one of two ways:

- `overlay`: in a new user, mount and PID namespace, the project's directory is covered by an
  overlay (the project below, the pending outputs above it, a tmpfs on top for whatever the
  check writes), and the check runs there as PID 1 of its own namespace, so that every process
  it leaves (a daemon that left the process group included) ends with it.
- `landlock` (the copy in the cache directory, where namespaces are refused): the check may
  write only beneath the directories it is given (the copy, its own TMPDIR, /dev, the user's
  caches), by a Landlock ruleset (Linux 5.13+, no privilege needed) that it and all it starts
  keep. Reading is not restricted; a write through the copy's links into the project (an
  ignored directory, `.venv`) fails with EACCES.

Run as a script by `bb7.checks.process` (`python -I -S jail.py STATUS_FD overlay ROOT SCRATCH
CWD N LAYER... ARGV...` or `... STATUS_FD landlock CWD N WRITABLE... ARGV...`); bb7 imports it
only for `landlock_abi`: it imports only `os`, `sys` and `ctypes`, so it starts in
milliseconds. ROOT is the project, covered where it is (so absolute paths and editable installs
see the change); the N LAYERs are laid over it (the pending outputs); SCRATCH is an empty
directory for the tmpfs; ARGV is the check, its program resolved, started in CWD with the
script's environment. On STATUS_FD it writes `ready` once the view is mounted or the ruleset in
force, `fail STEP: REASON` when the kernel refused (the caller then uses a copy instead, or
refuses) or `exec ERRNO: REASON` when the program could not start; the fd closes when the check
starts.
"""

from __future__ import annotations

import ctypes
import io
import os
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
MS_REC = 0x4000
MS_PRIVATE = 1 << 18
PR_SET_PDEATHSIG = 1
SIGKILL = 9
SIGPIPE = 13
SIGXFSZ = 25
SIG_DFL = 0
JAIL_FAILED = 125
PR_SET_NO_NEW_PRIVS = 38
# The Landlock calls (one number on every architecture since Linux 5.13).
SYS_LANDLOCK_CREATE_RULESET = 444
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1
# The rights that change the file system, by the ABI version that brought them: 1 writing,
# removing and making files of every kind; 2 REFER (linking or renaming across directories);
# 3 TRUNCATE. Reading and executing are not handled, so they stay allowed everywhere.
WRITE_FILE = 1 << 1
WRITES = {1: WRITE_FILE | (1 << 4) | (1 << 5) | sum(1 << b for b in range(6, 13)), 2: 1 << 13}
TRUNCATE = 1 << 14
O_PATH = 0o10000000


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # the kernel's struct is packed: a u64 then an s32
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


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


def landlock_abi() -> int:
    """The Landlock ABI version this kernel offers (0: none: not Linux, too old, not enabled
    at boot, or refused by a container's seccomp filter)."""
    if not sys.platform.startswith("linux"):
        return 0
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    version = libc.syscall(SYS_LANDLOCK_CREATE_RULESET, None, 0, LANDLOCK_CREATE_RULESET_VERSION)
    return max(0, int(version))


def write_rights(abi: int) -> int:
    """The file-system writes Landlock can forbid at ABI version `abi`."""
    rights = sum(bits for since, bits in WRITES.items() if abi >= since)
    return rights | (TRUNCATE if abi >= 3 else 0)


def _syscall(libc: ctypes.CDLL, step: str, *args: object) -> int:
    libc.syscall.restype = ctypes.c_long
    result = int(libc.syscall(*args))
    if result < 0:
        _check(result, step)
    return result


def confine(writable: list[str]) -> None:
    """From here on, this process and all it starts write only beneath `writable` (a
    directory, or a file: then only into it); OSError when the kernel refuses."""
    abi = landlock_abi()
    if abi < 1:
        raise OSError(95, "landlock: not offered by this kernel")
    libc = _libc()
    handled = write_rights(abi)
    attr = _RulesetAttr(handled)
    size = ctypes.sizeof(attr)
    ruleset = _syscall(libc, "landlock", SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), size, 0)
    try:
        for path in writable:
            try:
                fd = os.open(path, O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # not there (a cache directory the user has not got): nothing to allow
            try:
                is_dir = os.path.isdir(f"/proc/self/fd/{fd}")
                rule = _PathBeneathAttr(
                    handled if is_dir else handled & (WRITE_FILE | TRUNCATE), fd
                )
                rule_ref = ctypes.byref(rule)
                kind = LANDLOCK_RULE_PATH_BENEATH
                _syscall(
                    libc, f"landlock {path}", SYS_LANDLOCK_ADD_RULE, ruleset, kind, rule_ref, 0
                )
            finally:
                os.close(fd)
        # Required of an unprivileged process; also keeps a setuid program from shedding it.
        _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        _syscall(libc, "landlock restrict", SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0)
    finally:
        os.close(ruleset)


def _exec(cwd: str, args: list[str], status: io.TextIOWrapper) -> None:
    """Start the check here; on failure, say why on the status fd."""
    libc = _libc()
    for number in (SIGPIPE, SIGXFSZ):  # Python ignores them; the check gets them as a shell would
        libc.signal(number, SIG_DFL)
    try:
        os.chdir(cwd)
        os.execv(args[0], args)
    except OSError as exc:
        status.write(f"exec {exc.errno}: {exc.strerror}\n")
        status.flush()


def main(argv: list[str]) -> int:
    status = os.fdopen(int(argv[1]), "w", encoding="utf-8", buffering=1)
    os.set_inheritable(int(argv[1]), False)
    if argv[2] == "landlock":
        cwd, count = argv[3:5]
        writable = argv[5 : 5 + int(count)]
        try:
            die_with_parent(_libc())
            confine(writable)
        except OSError as exc:
            status.write(f"fail {exc.strerror or exc}\n")
            return JAIL_FAILED
        status.write("ready\n")
        _exec(cwd, argv[5 + int(count) :], status)
        return 127
    root, scratch, cwd, count = argv[3:7]
    layers = argv[7 : 7 + int(count)]
    args = argv[7 + int(count) :]
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
        die_with_parent(_libc())
        _exec(cwd, args, status)
        os._exit(127)
    status.write("ready\n")
    status.close()
    _, code = os.waitpid(pid, 0)
    if os.WIFSIGNALED(code):
        return 128 + os.WTERMSIG(code)
    return os.WEXITSTATUS(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
