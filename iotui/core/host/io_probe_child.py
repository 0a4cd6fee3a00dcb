"""The I/O probe's child process, as the source it runs (``python -I -S -c``).

Arguments: interval, report period, parent pid, block bytes, file bytes, the read
and write file names, the start-up probe's interval (0: off), its file bytes and file
count, then the probe directories. It writes one JSON line a
second to stdout and exits when its stdin closes or its parent is gone.
"""

# The child's whole program: standard library only, run with -I -S. One thread per
# place and kind does a timed operation every interval; the main thread reports once a
# second a JSON line: per place, the latencies completed (µs) and the age of any
# operation still in flight (a stalled fsync is reported while it stalls).
# The start-up probe (one more thread per place) starts a program that reads its own
# files, as a program reads its binary and libraries when it starts: before each start
# those files are dropped from the page cache (POSIX_FADV_DONTNEED on them alone) and
# mincore must find none of their pages left, else the start is reported warm.
IO_PROBE_CHILD_SOURCE = r"""
import json, mmap, os, random, signal, sys, threading, time

interval_s = float(sys.argv[1])
report_every_s = float(sys.argv[2])
parent_pid = int(sys.argv[3])
block = int(sys.argv[4])
file_bytes = int(sys.argv[5])
read_name, write_name = sys.argv[6], sys.argv[7]
start_interval_s = float(sys.argv[8])
start_file_bytes = int(sys.argv[9])
start_names = ["start-%d.probe" % index for index in range(int(sys.argv[10]))]
places = sys.argv[11:]
signal.signal(signal.SIGINT, signal.SIG_IGN)

lock = threading.Lock()
state = {}  # (place, kind) -> [latencies_us, inflight_started or None, direct]
starts = {}  # place -> {"done": [[us, warm]], "inflight": [started, warm] or None, "last": [us, warm] or None}

def cleanup():
    for place in places:
        for name in (read_name, write_name, *start_names):
            try:
                os.unlink(os.path.join(place, name))
            except OSError:
                pass
        try:
            os.rmdir(place)
        except OSError:
            pass

def exit_on_eof():
    try:
        while sys.stdin.buffer.read(4096):
            pass
    finally:
        cleanup()
        os._exit(0)

def prepare(place):
    path = os.path.join(place, read_name)
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    try:
        chunk = os.urandom(block) * 16
        written = 0
        while written < file_bytes:
            written += os.write(fd, chunk[: file_bytes - written])
        os.fsync(fd)
    finally:
        os.close(fd)
    direct = True
    try:
        read_fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECT", 0))
    except OSError:
        direct = False  # tmpfs and some network filesystems refuse O_DIRECT
        read_fd = os.open(path, os.O_RDONLY)
    write_fd = os.open(os.path.join(place, write_name), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    os.write(write_fd, b"\0" * (block * 16))
    os.fsync(write_fd)
    return read_fd, write_fd, direct

def timed_loop(place, kind, operation):
    entry = state[(place, kind)]
    next_at = time.monotonic()
    while True:
        started = time.monotonic()
        with lock:
            entry[1] = started
        try:
            operation()
        except OSError:
            with lock:
                entry[1] = None
            time.sleep(interval_s)
            continue
        ended = time.monotonic()
        with lock:
            entry[0].append(round((ended - started) * 1e6))
            entry[1] = None
        next_at += interval_s
        delay = next_at - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        else:
            next_at = time.monotonic()

def start_place(place):
    read_fd, write_fd, direct = prepare(place)
    buffer = mmap.mmap(-1, block)  # page-aligned, as O_DIRECT wants
    blocks = file_bytes // block
    rng = random.Random()
    data = os.urandom(block)
    counter = [0]

    def read_once():
        offset = rng.randrange(blocks) * block
        if not direct:
            os.posix_fadvise(read_fd, offset, block, os.POSIX_FADV_DONTNEED)
        os.preadv(read_fd, [buffer], offset)

    def write_once():
        # As an editor saves: the old content goes, the new block needs allocating, and
        # fdatasync must commit that allocation (the journal), not just the data.
        os.ftruncate(write_fd, 0)
        os.pwrite(write_fd, data, 0)
        os.fdatasync(write_fd)

    for kind, operation in (("read", read_once), ("write", write_once)):
        state[(place, kind)] = [[], None, direct]
        threading.Thread(target=timed_loop, args=(place, kind, operation), daemon=True).start()

def page_counter():
    # A function counting a file's pages in the page cache (mincore), or None where it cannot.
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long)
        libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
        libc.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)
    except (ImportError, OSError, AttributeError):
        return None
    failed = ctypes.c_void_p(-1).value
    page = mmap.PAGESIZE

    def resident(fd, size):
        address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if address is None or address == failed:
            return None
        try:
            vector = (ctypes.c_ubyte * ((size + page - 1) // page))()
            if libc.mincore(ctypes.c_void_p(address), size, vector) != 0:
                return None
            return sum(byte & 1 for byte in vector)
        finally:
            libc.munmap(ctypes.c_void_p(address), size)
    return resident

def prepare_start(place):
    paths, fds = [], []
    for name in start_names:
        path = os.path.join(place, name)
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
        chunk = os.urandom(65536)
        written = 0
        while written < start_file_bytes:
            written += os.write(fd, chunk[: start_file_bytes - written])
        os.fsync(fd)  # clean pages: only clean pages leave the cache on DONTNEED
        paths.append(path)
        fds.append(fd)
    return paths, fds

def start_loop(place, paths, fds, resident):
    entry = starts[place]
    null = os.devnull
    actions = [(os.POSIX_SPAWN_OPEN, 0, null, os.O_RDONLY, 0), (os.POSIX_SPAWN_OPEN, 1, null, os.O_WRONLY, 0)]
    program = ["cat", "--", *paths]
    while True:
        began = time.monotonic()
        warm = resident is None
        for fd in fds:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            if resident is not None:
                left = resident(fd, start_file_bytes)
                warm = warm or left is None or left > 0
        started = time.monotonic()
        with lock:
            entry["inflight"] = [started, warm]
        try:
            pid = os.posix_spawnp("cat", program, os.environ, file_actions=actions)
            status = os.waitpid(pid, 0)[1]
        except OSError:
            status = -1
        ended = time.monotonic()
        with lock:
            entry["inflight"] = None
            if status == 0:
                figure = [round((ended - started) * 1e6), warm]
                entry["done"].append(figure)
                entry["last"] = figure
        delay = began + start_interval_s - time.monotonic()
        if delay > 0:
            time.sleep(delay)

def start_starts(place):
    paths, fds = prepare_start(place)
    starts[place] = {"done": [], "inflight": None, "last": None}
    threading.Thread(target=start_loop, args=(place, paths, fds, page_counter()), daemon=True).start()

threading.Thread(target=exit_on_eof, daemon=True).start()
try:
    for place in places:
        start_place(place)
    if start_interval_s > 0:
        for place in places:
            start_starts(place)
except OSError as error:
    sys.stdout.write(json.dumps({"error": f"{error.strerror or error} ({error.filename or ''})"}) + "\n")
    sys.stdout.flush()
    cleanup()
    os._exit(0)

next_report = time.monotonic() + report_every_s
while True:
    time.sleep(max(0.0, next_report - time.monotonic()))
    now = time.monotonic()
    if os.getppid() != parent_pid:
        cleanup()
        os._exit(0)
    report = []
    with lock:
        for place in places:
            row = {"place": place}
            for kind in ("read", "write"):
                entry = state[(place, kind)]
                row[kind + "_us"] = entry[0]
                entry[0] = []
                row[kind + "_inflight_us"] = round((now - entry[1]) * 1e6) if entry[1] is not None else 0
                row["direct"] = entry[2]
            entry = starts.get(place)
            if entry is not None:
                row["start"] = entry["done"]
                entry["done"] = []
                inflight = entry["inflight"]
                row["start_inflight"] = [round((now - inflight[0]) * 1e6), inflight[1]] if inflight else None
                row["start_last"] = entry["last"]
            report.append(row)
    try:
        sys.stdout.write(json.dumps({"places": report}) + "\n")
        sys.stdout.flush()
    except (BrokenPipeError, OSError):
        cleanup()
        os._exit(0)
    next_report += report_every_s
    if next_report <= now:
        next_report = now + report_every_s
"""
