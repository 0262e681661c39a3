# hold.py - a stand-in for a JVM's hold on its PerfData file (tests only)
#
#   python3 hold.py DIR [SECONDS]
#   python3 hold.py --fd N [SECONDS]
#
# Waits until DIR/<its own pid> is a file with bytes in it, maps it shared
# (read-only) as a live HotSpot maps its PerfData file, then sleeps SECONDS
# (default 3600). Its own pid is the innermost one: run inside a container,
# DIR is the container's folder and the name its pid there. jvmtool lists a
# PerfData file under a live pid only when that process maps that very file
# (docs/security.md §10), so a test's hand-made file needs a holder. A
# 0-byte file cannot be mapped: the holder waits for bytes. A link is
# followed, as a JVM's open would: the file mapped is its target. With
# --fd it maps the file open as its descriptor N instead (one the test
# opened for it outside a container, out of the container's reach).
import mmap, os, signal, sys, time

# SIGTERM ends it even as a container's pid 1 (which has no default action)
signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
args = sys.argv[1:]
fd = int(args.pop(1)) if args[0] == "--fd" else None
secs = float(args[1]) if len(args) > 1 else 3600
end = time.monotonic() + secs
if fd is None:
    path = os.path.join(args[0], str(os.getpid()))
    while True:
        try:
            if os.path.getsize(path):
                break
        except OSError:
            pass
        if time.monotonic() > end:
            sys.exit(1)
        time.sleep(0.02)
    fd = os.open(path, os.O_RDONLY)
m = mmap.mmap(fd, 0, mmap.MAP_SHARED, mmap.PROT_READ)
os.close(fd)
time.sleep(max(0, end - time.monotonic()))
