# container.sh - hostile containers for the security tests (sourced)
#
# ct_child PID ROOT: wait (20 s at most) for the child of PID (an unshare)
# whose root is ROOT; sets CPID, tracked; 1 if none came
ct_child() {
  CPID=
  for _i in $(seq 200); do
    CPID=$(pgrep -P "$1" | head -1)
    [ -n "$CPID" ] && [ "$(readlink "/proc/$CPID/root" 2>/dev/null)" = "$2" ] &&
      break
    CPID=
    sleep 0.1
  done
  [ -n "$CPID" ] && track "$CPID"
  [ -n "$CPID" ]
}
# ct_run DIR CHROOT-ARGS...: `chroot CHROOT-ARGS` (options, DIR, command)
# in a new pid + mount namespace, with the host's /usr read-only, /dev and
# a /proc of its own under DIR; sets CPID, the command's host pid.
ct_run() {
  _d=$1
  shift
  mkdir -p "$_d/usr" "$_d/proc" "$_d/dev" "$_d/etc"
  for _l in bin lib lib64 sbin; do
    [ -e "$_d/$_l" ] || [ -L "$_d/$_l" ] || ln -s "usr/$_l" "$_d/$_l"
  done
  unshare --pid --mount --fork sh -c 'd=$1; shift
    mount --bind /usr "$d/usr" && mount -o remount,bind,ro "$d/usr" &&
    mount --rbind /dev "$d/dev" && mount -t proc proc "$d/proc" &&
    exec chroot "$@"' sh "$_d" "$@" > "$_d.log" 2>&1 &
  _u=$!
  track $_u
  cleanup_cmd "rm -f '$_d.log'" # beside DIR, out of the container's reach
  ct_child $_u "$_d"
}
# ct DIR CMD...: CMD as root in a container at DIR
ct() { ct_run "$1" "$@"; }

# ct_userns DIR ROOTFS SCRIPT: sh -c SCRIPT in new user, mount and pid
# namespaces as the root of that user namespace, whose ids 0..65535 are
# the host's 100000..165535 (a userns container as runtimes make them):
# its root is host uid 100000 and has no rights over host root's files.
# SCRIPT ends with `exec chroot ROOTFS CMD`; sets CPID, CMD's host pid.
# DIR.gate and DIR.log are beside DIR.
ct_userns() {
  _d=$1
  _r=$2
  rm -f "$_d.gate"
  mkfifo "$_d.gate"
  cleanup_cmd "rm -f '$_d.gate' '$_d.log'"
  unshare --user --keep-caps --mount --pid --fork sh -c 'read _ < "$1"
    exec setpriv --reuid=0 --regid=0 --clear-groups sh -c "$2"' \
    sh "$_d.gate" "$3" > "$_d.log" 2>&1 &
  _u=$!
  track $_u
  _i=0
  while [ "$(readlink /proc/$_u/ns/user)" = "$(readlink /proc/self/ns/user)" ] &&
    [ $_i -lt 200 ]; do
    sleep 0.05
    _i=$((_i + 1))
  done
  echo '0 100000 65536' > /proc/$_u/uid_map &&
    echo '0 100000 65536' > /proc/$_u/gid_map && echo go > "$_d.gate" ||
    return 1
  ct_child $_u "$_r"
}
# ct_hold DIR FOLDER [SECONDS]: a container at DIR whose first process
# (pid 1 inside, CPID outside) maps FOLDER/1 as a JVM maps its PerfData
# file (test/hold.py, copied to DIR/hold.py), once the test writes it.
# Redirect an open fd to the function (3<FILE) and pass FOLDER "--fd 3"
# for a holder that maps a file it could not reach from inside.
ct_hold() {
  cp "$HOLD_PY" "$1/hold.py"
  _h=$1
  shift
  ct "$_h" python3 /hold.py "$@"
}
# ct_held CPID FOLDER: wait until each child of the container's init CPID
# maps FOLDER/<its pid inside> (FOLDER as the host sees it); 1 if one
# never does
ct_held() {
  for _k in $(pgrep -P "$1"); do
    _ns=$(awk '/^NSpid:/ { print $NF }' "/proc/$_k/status")
    held "$2/$_ns" "$_k" || return 1
  done
}

# ct_fakes DIR N JAVACOMMAND [CMD...]: a container at DIR (root, a pid and
# mount namespace of its own) running N fake JVMs (test/fakejvm.py: a
# PerfData file of JAVACOMMAND, Java 17, mapped shared; a libjvm.so mapped
# as code; SIGQUIT caught, the attach listener made when triggered; every
# attach connection held, never answered), then CMD (say a real JVM) in
# it. Sets CPID (the container's sh), FAKES (the fakes' host pids,
# ascending) once each has mapped its files, and CTCMD (CMD's host pid);
# DIR/fake/log.K says "listening", then "conn BYTES" per connection held.
ct_fakes() {
  mkdir -p "$1/fake" "$1/tmp"
  chmod 1777 "$1/tmp"
  cp "$TOP/test/fakejvm.py" "$1/fake/"
  mkperf -s 4096 "$1/fake/perf" J:6:1:sun.os.hrt.frequency=1000000000 \
    B:5:1:java.rt.vmArgs=-Dfake=1 B:5:1:java.rt.vmFlags= \
    "B:5:1:sun.rt.javaCommand=$3" B:5:1:java.property.java.version=17.0.15 \
    B:5:1:sun.rt.jvmCapabilities=1000000000000000000000000000000000000000000000000000000000000000 ||
    return 1
  _d=$1
  _n=$2
  shift 3
  ct_run "$_d" "$_d" sh -c 'for i in $(seq '"$_n"'); do
      python3 /fake/fakejvm.py /fake/perf /fake/log.$i & done
      while [ "$(cat /fake/log.* 2>/dev/null | grep -c "^ready$")" != '"$_n"' ]
      do sleep 0.1; done
      if [ $# != 0 ]; then "$@" & fi
      wait' sh "$@" ||
    return 1
  for _i in $(seq 300); do
    [ "$(cat "$_d"/fake/log.* 2>/dev/null | grep -c '^ready$')" = "$_n" ] && break
    sleep 0.1
  done
  FAKES=$(pgrep -P "$CPID" -x python3 | sort -n | tr '\n' ' ')
  CTCMD=
  [ $# = 0 ] || for _i in $(seq 300); do
    # the newest child, once it is not the fakes' or the wait's
    CTCMD=$(pgrep -n -P "$CPID")
    case $(cat "/proc/$CTCMD/comm" 2> /dev/null) in
    python3 | sleep | cat | grep | sh | '') CTCMD= ;;
    *) track "$CTCMD"; break ;;
    esac
    sleep 0.1
  done
  [ "$(echo $FAKES | wc -w)" = "$_n" ]
}
