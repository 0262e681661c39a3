# fakejvm.py - a fake JVM that never answers (tests only)
#
#   python3 fakejvm.py TEMPLATE [LOG]
#
# What an attacker in a container can make (issue 41): a process that is
# everything jvmtool checks a JVM by, and holds every attach connection
# without a word. It
#  - copies TEMPLATE (a PerfData file the test wrote with mkperf) to its own
#    /tmp/hsperfdata_<user>/<pid> and maps it shared, as HotSpot maps its
#    PerfData file (pid: its own, the innermost; user: its euid's name,
#    "root" for 0 when there is no passwd entry);
#  - maps a file named libjvm.so (beside this script, made when missing)
#    readable and executable, as a loaded libjvm.so is mapped;
#  - catches SIGQUIT and then, as HotSpot does, looks for .attach_pid<pid>
#    in its cwd and /tmp; when one is there it makes the listener
#    /tmp/.java_pid<pid> (bind to a temporary name, listen, rename);
#  - accepts every connection, reads the request (to EOF or the request's
#    five strings) and holds the connection open, never answering.
# LOG (optional) gets "ready" once the files are mapped, "listening" once
# the socket is up, and "conn N" (bytes read) per connection held.
# SIGTERM and SIGINT end it (also as a container's pid 1), removing its
# PerfData file and socket.
import mmap, os, select, signal, socket, sys

tmpl, log = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
pid = os.getpid()
uid = os.geteuid()
try:
    import pwd
    user = pwd.getpwuid(uid).pw_name
except (ImportError, KeyError):
    user = "root" if uid == 0 else str(uid)
perf_dir = "/tmp/hsperfdata_%s" % user
perf = os.path.join(perf_dir, str(pid))
sock_path = "/tmp/.java_pid%d" % pid
made = []


def note(line):
    if log:
        with open(log, "a") as f:
            f.write(line + "\n")


def bye(*_):
    for p in made:
        try:
            os.unlink(p)
        except OSError:
            pass
    os._exit(0)


signal.signal(signal.SIGTERM, bye)
signal.signal(signal.SIGINT, bye)
quit_seen = [False]
signal.signal(signal.SIGQUIT, lambda *_: quit_seen.__setitem__(0, True))

# its PerfData file, mapped shared
with open(tmpl, "rb") as f:
    data = f.read()
os.makedirs(perf_dir, mode=0o755, exist_ok=True)
fd = os.open(perf, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
made.append(perf)
os.write(fd, data)
perf_map = mmap.mmap(fd, len(data), mmap.MAP_SHARED,
                     mmap.PROT_READ | mmap.PROT_WRITE)
os.close(fd)

# a libjvm.so mapped as code
lib = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libjvm.so")
fd = os.open(lib, os.O_RDWR | os.O_CREAT, 0o755)
if os.fstat(fd).st_size < 4096:
    os.ftruncate(fd, 4096)
lib_map = mmap.mmap(fd, 4096, mmap.MAP_PRIVATE,
                    mmap.PROT_READ | mmap.PROT_EXEC)
os.close(fd)
note("ready")

listener = None
held = []  # every connection, held open until we end
reading = {}  # connection -> [bytes, NULs] read so far


def trigger_there():
    name = ".attach_pid%d" % pid
    for d in (os.getcwd(), "/tmp"):
        if os.path.lexists(os.path.join(d, name)):
            return True
    return False


while True:
    if quit_seen[0] and listener is None:
        quit_seen[0] = False
        if trigger_there():
            tmp = "%s.tmp" % sock_path
            try:
                os.unlink(tmp)
            except OSError:
                pass
            listener = socket.socket(socket.AF_UNIX)
            listener.bind(tmp)
            listener.listen(64)
            os.chmod(tmp, 0o600)
            os.rename(tmp, sock_path)
            made.append(sock_path)
            note("listening")
    fds = ([listener] if listener else []) + list(reading)
    try:
        r, _, _ = select.select(fds, [], [], 0.1)
    except InterruptedError:
        continue
    for s in r:
        if s is listener:
            c, _ = listener.accept()
            reading[c] = [0, 0]
            held.append(c)
            continue
        try:
            b = s.recv(4096)
        except OSError:
            b = b""
        reading[s][0] += len(b)
        reading[s][1] += b.count(b"\0")
        # the request is read (EOF, or its five strings): held, unanswered
        if not b or reading[s][1] >= 5:
            note("conn %d" % reading.pop(s)[0])
