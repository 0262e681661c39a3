/* pod.c - a container JVM's Kubernetes names, from its runtime's state
 *
 * Where each runtime keeps a running container's OCI config and pid file,
 * and which annotations carry the names: docs/pods.md. The config is the
 * runtime's (written on the host when the container was made), the names
 * in it the kubelet's; what runs in the container cannot change either.
 * What it can do is make a cgroup below its own named after another
 * container's id: so the id is the one nearest the cgroup root
 * (proc_container's), and the runtime's pid file must name a process in
 * the JVM's pid namespace whose cgroup holding that id is the JVM's: the
 * same path up to the id's component, not a cgroup of the same name made
 * elsewhere (by a host user given a cgroup subtree of their own, beside a
 * hostPID pod whose pid namespace is the host's).
 *
 * The JSON scanner reads the config's top-level "annotations" object and
 * nothing else: linear in the file, recursion bounded, strings decoded
 * into fixed buffers, a repeated key refused rather than guessed.
 */
#include "core/jvmtool.h"
#include "core/pod.h"
#include "core/vm.h"

/* The JSON text left to read. */
struct js {
  const char *p, *end;
};

static void ws(struct js *s)
{
  while (s->p < s->end &&
         (*s->p == ' ' || *s->p == '\t' || *s->p == '\r' || *s->p == '\n'))
    s->p++;
}

/* Skip c (after white space); 1 if it was there. */
static int eat(struct js *s, char c)
{
  ws(s);
  if (s->p < s->end && *s->p == c) {
    s->p++;
    return 1;
  }
  return 0;
}

static int hexval(char c)
{
  return isdigit((unsigned char)c) ? c - '0' : (c | 32) - 'a' + 10;
}

/* The string at s->p, decoded into out (cap bytes with its NUL; out NULL:
 * skipped). *over is set when it did not fit. A character no Kubernetes
 * name holds (NUL, anything past ASCII) is decoded as 0x80, so no key or
 * name matches it. 0, or -1 when it is not a JSON string. */
static int jstring(struct js *s, char *out, size_t cap, int *over)
{
  size_t k = 0;

  *over = 0;
  if (!eat(s, '"')) return -1;
  while (s->p < s->end) {
    unsigned c = (unsigned char)*s->p++;

    if (c == '"') {
      if (out) out[k] = 0;
      return 0;
    }
    if (c < 0x20) return -1;
    if (c == '\\') {
      if (s->p >= s->end) return -1;
      switch ((c = (unsigned char)*s->p++)) {
      case '"':
      case '\\':
      case '/':
        break;
      case 'b':
        c = '\b';
        break;
      case 'f':
        c = '\f';
        break;
      case 'n':
        c = '\n';
        break;
      case 'r':
        c = '\r';
        break;
      case 't':
        c = '\t';
        break;
      case 'u':
        if (s->end - s->p < 4) return -1;
        c = 0;
        for (int i = 0; i < 4; i++) {
          if (!isxdigit((unsigned char)s->p[i])) return -1;
          c = c * 16 + (unsigned)hexval(s->p[i]);
        }
        s->p += 4;
        break;
      default:
        return -1;
      }
    }
    if (!c || c >= 0x80) c = 0x80;
    if (out && k + 1 < cap)
      out[k++] = (char)c;
    else
      *over = 1;
  }
  return -1;
}

/* Skip one value nested depth deep. 0, or -1 when it is not JSON or nests
 * past POD_JSON_DEPTH. */
static int jskip(struct js *s, int depth)
{
  static const char *const lit[] = {"true", "false", "null"};
  char c, close;
  int over;

  ws(s);
  if (s->p >= s->end) return -1;
  c = *s->p;
  if (c == '"') return jstring(s, NULL, 0, &over);
  if (c == '{' || c == '[') {
    if (depth >= POD_JSON_DEPTH) return -1;
    close = c == '{' ? '}' : ']';
    s->p++;
    if (eat(s, close)) return 0;
    do {
      if (c == '{' && (jstring(s, NULL, 0, &over) || !eat(s, ':'))) return -1;
      if (jskip(s, depth + 1)) return -1;
    } while (eat(s, ','));
    return eat(s, close) ? 0 : -1;
  }
  for (size_t i = 0; i < sizeof(lit) / sizeof(*lit); i++) {
    size_t n = strlen(lit[i]);

    if ((size_t)(s->end - s->p) >= n && !memcmp(s->p, lit[i], n)) {
      s->p += n;
      return 0;
    }
  }
  if (c != '-' && !isdigit((unsigned char)c)) return -1;
  while (s->p < s->end &&
         (isdigit((unsigned char)*s->p) || *s->p == '-' || *s->p == '+' ||
          *s->p == '.' || *s->p == 'e' || *s->p == 'E'))
    s->p++;
  return 0;
}

/* The annotation keys of each runtime: namespace, pod, container. */
static const char *const keys[2][3] = {
    [POD_CONTAINERD] = {"io.kubernetes.cri.sandbox-namespace",
                        "io.kubernetes.cri.sandbox-name",
                        "io.kubernetes.cri.container-name"},
    [POD_CRIO] = {"io.kubernetes.pod.namespace", "io.kubernetes.pod.name",
                  "io.kubernetes.container.name"},
};

/* The annotations object at s->p: the three names of rt into out, got[]
 * set for each key seen. 0, or -EINVAL (not JSON, a key twice, a value of
 * a key read that is not a string, or too long for its name). */
static int annotations(struct js *s, enum pod_runtime rt, struct pod_names *out,
                       int got[3])
{
  char *dst[3] = {out->ns, out->pod, out->container};
  size_t cap[3] = {sizeof(out->ns), sizeof(out->pod), sizeof(out->container)};
  char key[48];
  int over, bad = 0;

  if (!eat(s, '{')) return -EINVAL;
  if (eat(s, '}')) return 0;
  do {
    int f = -1;

    if (jstring(s, key, sizeof(key), &over) || !eat(s, ':')) return -EINVAL;
    for (int i = 0; i < 3 && !over; i++)
      if (!strcmp(key, keys[rt][i])) f = i;
    if (f < 0) {
      if (jskip(s, 2)) return -EINVAL;
      continue;
    }
    ws(s);
    if (got[f]++ || s->p >= s->end || *s->p != '"') return -EINVAL;
    if (jstring(s, dst[f], cap[f], &over)) return -EINVAL;
    bad |= over;
  } while (eat(s, ','));
  if (!eat(s, '}') || bad) return -EINVAL;
  return 0;
}

/* 1 when s is a Kubernetes name of at most max bytes: lower-case letters,
 * digits and '-' (and '.' when dots), starting and ending with a letter
 * or digit. */
static int k8s_name(const char *s, size_t n, size_t max, int dots)
{
  if (!n || n > max) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    int alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');

    if (!alnum && c != '-' && !(dots && c == '.')) return 0;
    if (!alnum && (i == 0 || i == n - 1)) return 0;
  }
  return 1;
}

int pod_parse_config(const char *json, size_t n, enum pod_runtime rt,
                     struct pod_names *out)
{
  struct js s = {json, json + n};
  int got[3] = {0}, seen = 0, over, rc = 0;
  char key[16];

  memset(out, 0, sizeof(*out));
  if (!eat(&s, '{')) return -EINVAL;
  if (!eat(&s, '}')) {
    do {
      if (jstring(&s, key, sizeof(key), &over) || !eat(&s, ':')) {
        rc = -EINVAL;
        break;
      }
      ws(&s);
      if (!over && !strcmp(key, "annotations") && s.p < s.end && *s.p == '{')
        rc = seen++ ? -EINVAL : annotations(&s, rt, out, got);
      else if (!over && !strcmp(key, "annotations") && seen++)
        rc = -EINVAL;
      else if (jskip(&s, 1))
        rc = -EINVAL;
    } while (!rc && eat(&s, ','));
    if (!rc && !eat(&s, '}')) rc = -EINVAL;
  }
  ws(&s);
  if (!rc && s.p != s.end) rc = -EINVAL;
  if (!rc && (!got[0] || !got[1])) rc = -ENOENT;
  if (!rc && (!k8s_name(out->ns, strlen(out->ns), POD_NS_MAX, 0) ||
              !k8s_name(out->pod, strlen(out->pod), POD_NAME_MAX, 1) ||
              (got[2] && !k8s_name(out->container, strlen(out->container),
                                   POD_CTR_MAX, 0))))
    rc = -EINVAL;
  if (rc) memset(out, 0, sizeof(*out));
  return rc;
}

/* Where the runtimes keep a running container's state (docs/pods.md). */
static const char crio_run[] = "/run/containers/storage/overlay-containers";
static const char crio_lib[] = "/var/lib/containers/storage/overlay-containers";
static const char ctrd_tasks[] =
    "/run/containerd/io.containerd.runtime.v2.task";
enum { CTRD_MAX_NS = 64 }; /* containerd namespaces looked in */

/* A runtime's state file: a regular file owned by root, not a symbolic
 * link, at most max bytes (-EFBIG past it). */
static int state_file(const char *path, size_t max, char **data, size_t *len)
{
  struct stat sb;
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), rc;

  if (fd < 0) return errno == ELOOP ? -EINVAL : -errno;
  if (fstat(fd, &sb))
    rc = -errno;
  else if (!S_ISREG(sb.st_mode) || sb.st_uid != 0)
    rc = -EINVAL;
  else if (sb.st_size > (off_t)max)
    rc = -EFBIG;
  else
    rc = read_fd(fd, max, data, len);
  close(fd);
  return rc;
}

static int is_hex(char c)
{
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* The cgroup of the process whose /proc folder is procfd that names
 * container id, as "<line's hierarchy>:<path up to the end of the
 * component holding id>" in b (n bytes): where the runtime made the
 * container's cgroup. The id must be proc_container's (the first
 * 64-hex-digit name of the file). 0, -ESRCH when it is not, or -errno. */
static int cg_home(int procfd, const char *id, char *b, size_t n)
{
  char cid[65], *cg, *at, *line, *end;
  size_t len;
  int rc;

  if ((rc = proc_container_at(procfd, cid, NULL))) return rc;
  if (strcmp(cid, id)) return -ESRCH;
  if ((rc = read_file(procfd, "cgroup", 0, 65536, &cg, &len))) return rc;
  rc = -ESRCH;
  /* the id as a whole name, as proc_container found it */
  for (at = strstr(cg, id); at; at = strstr(at + 1, id))
    if ((at == cg || !is_hex(at[-1])) && !is_hex(at[64])) break;
  if (at) {
    for (line = at; line > cg && line[-1] != '\n'; line--) continue;
    end = at + strcspn(at, "/\n");
    if ((size_t)(end - line) < n) {
      memcpy(b, line, (size_t)(end - line));
      b[end - line] = 0;
      rc = 0;
    }
  }
  free(cg);
  return rc;
}

/* The pid namespace of the process whose /proc folder is procfd. */
static int pidns_at(int procfd, uint64_t *ino)
{
  struct stat sb;

  if (fstatat(procfd, "ns/pid", &sb, 0)) return -errno;
  *ino = sb.st_ino;
  return 0;
}

/* The pid file at path names a process in the pid namespace of the
 * process whose /proc folder is procfd, whose cgroup holding container id
 * is the one that process is in (not a cgroup of the same name
 * elsewhere: a process with a cgroup of its own to write, a host process
 * in a hostPID pod's pid namespace): 0, -ENOENT (no such file), -ESRCH
 * (another process), or -errno. */
static int verify(const char *path, int procfd, const char *id)
{
  char *d, home[1024], init_home[1024], dir[32];
  size_t n;
  uint64_t ino, pidns;
  int init, initfd, rc;

  if ((rc = state_file(path, 32, &d, &n))) return rc == -EFBIG ? -EINVAL : rc;
  d[strcspn(d, "\n")] = 0;
  rc = parse_pid(d, &init) ? -EINVAL : 0;
  free(d);
  if (rc) return rc;
  if ((rc = pidns_at(procfd, &pidns))) return rc;
  snprintf(dir, sizeof(dir), "/proc/%d", init);
  if ((initfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) return -ESRCH;
  rc = pidns_at(initfd, &ino) || ino != pidns ||
               cg_home(procfd, id, home, sizeof(home)) ||
               cg_home(initfd, id, init_home, sizeof(init_home)) ||
               strcmp(home, init_home)
           ? -ESRCH
           : 0;
  close(initfd);
  return rc;
}

/* The state in folder dir (its pid file named pidfile, its config.json
 * there or else at alt), verified and parsed for rt. As pod_names. */
static int from_state(const char *dir, const char *pidfile, const char *alt,
                      enum pod_runtime rt, int procfd, const char *id,
                      struct pod_names *out)
{
  char path[PATH_MAX], *d;
  size_t n;
  int rc;

  snprintf(path, sizeof(path), "%s/%s", dir, pidfile);
  if ((rc = verify(path, procfd, id))) return rc == -ENOTDIR ? -ENOENT : rc;
  snprintf(path, sizeof(path), "%s/config.json", dir);
  rc = state_file(path, POD_CONFIG_MAX, &d, &n);
  if (rc == -ENOENT && alt) rc = state_file(alt, POD_CONFIG_MAX, &d, &n);
  if (rc) return rc == -EFBIG ? -EINVAL : rc;
  rc = pod_parse_config(d, n, rt, out);
  free(d);
  return rc;
}

int pod_names(int procfd, const char *id, struct pod_names *out)
{
  char dir[PATH_MAX], alt[PATH_MAX];
  struct dirent *e;
  DIR *tasks;
  int rc, seen = 0;

  memset(out, 0, sizeof(*out));
  if (!id || strlen(id) != 64 || strspn(id, "0123456789abcdef") != 64)
    return -ENOENT;
  if (procfd < 0) return -ESRCH;
  /* CRI-O and podman: containers/storage's run root (config.json there
   * for CRI-O, under the graph root for podman) */
  snprintf(dir, sizeof(dir), "%s/%s/userdata", crio_run, id);
  snprintf(alt, sizeof(alt), "%s/%s/userdata/config.json", crio_lib, id);
  rc = from_state(dir, "pidfile", alt, POD_CRIO, procfd, id, out);
  if (rc != -ENOENT) return rc;
  /* containerd: the task's bundle in one of its namespaces (k8s.io) */
  if (!(tasks = opendir(ctrd_tasks))) return -ENOENT;
  while (rc == -ENOENT && (e = readdir(tasks)) && seen++ < CTRD_MAX_NS) {
    if (e->d_name[0] == '.') continue;
    snprintf(dir, sizeof(dir), "%s/%s/%s", ctrd_tasks, e->d_name, id);
    rc = from_state(dir, "init.pid", NULL, POD_CONTAINERD, procfd, id, out);
  }
  closedir(tasks);
  if (rc) memset(out, 0, sizeof(*out));
  return rc;
}

int pod_of(int procfd, struct pod_names *out)
{
  char id[65];

  memset(out, 0, sizeof(*out));
  if (procfd < 0 || proc_container_at(procfd, id, NULL) || !*id) return -ENOENT;
  return pod_names(procfd, id, out);
}

/* A listed JVM's names, read through its /proc folder while it is the
 * process the walk saw (core/vm's vm_proc_open). */
int pod_of_vm(const struct vm *v, struct pod_names *out)
{
  int fd, rc;

  memset(out, 0, sizeof(*out));
  if (!v->alive || !v->pid || (fd = vm_proc_open(v)) < 0) return -ENOENT;
  rc = pod_of(fd, out);
  close(fd);
  return rc;
}

void pod_text(const struct pod_names *names, char *b, size_t n)
{
  if (!n) return;
  b[0] = 0;
  if (!names || !*names->ns) return;
  snprintf(b, n, "%s/%s%s%s", names->ns, names->pod,
           *names->container ? "/" : "", names->container);
}

/* The parts of a pod target: 2 or 3, into want (0 when s is not one). */
static int split(const char *s, struct pod_names *want)
{
  const char *a = strchr(s, '/'), *b;
  size_t n[3];

  memset(want, 0, sizeof(*want));
  if (!a) return 0;
  b = strchr(a + 1, '/');
  n[0] = (size_t)(a - s);
  n[1] = b ? (size_t)(b - a - 1) : strlen(a + 1);
  n[2] = b ? strlen(b + 1) : 0;
  if (!k8s_name(s, n[0], POD_NS_MAX, 0) ||
      !k8s_name(a + 1, n[1], POD_NAME_MAX, 1) ||
      (b && !k8s_name(b + 1, n[2], POD_CTR_MAX, 0)))
    return 0;
  memcpy(want->ns, s, n[0]);
  memcpy(want->pod, a + 1, n[1]);
  if (b) memcpy(want->container, b + 1, n[2]);
  return b ? 3 : 2;
}

int pod_is_target(const char *s)
{
  struct pod_names want;

  return split(s, &want) != 0;
}

/* At most this many candidates are named in one line. */
enum { POD_NAMES_SHOWN = 16 };

int pod_find(const char *s, struct vm *row, char *err, size_t errlen)
{
  struct pod_names want, got, *names;
  struct vm *v;
  struct buf b = {0};
  size_t n, k = 0, shown;
  int rc, *hit, one = -1;
  char text[POD_NS_MAX + POD_NAME_MAX + POD_CTR_MAX + 3];

  vm_init(row);
  if (!split(s, &want)) {
    snprintf(err, errlen, "not a pod name: %s", s);
    return -EINVAL;
  }
  if ((rc = vm_list(&v, &n))) {
    snprintf(err, errlen, "cannot list JVMs: %s", strerror(-rc));
    return rc;
  }
  hit = xmalloc((n ? n : 1) * sizeof(*hit));
  names = xmalloc((n ? n : 1) * sizeof(*names));
  for (size_t i = 0; i < n; i++) {
    if (pod_of_vm(&v[i], &got)) continue;
    if (!strcmp(got.ns, want.ns) && !strcmp(got.pod, want.pod) &&
        (!*want.container || !strcmp(got.container, want.container))) {
      names[k] = got;
      hit[k++] = v[i].pid;
      one = (int)i;
    }
  }
  if (k == 1) { /* the row itself, with what the walk saw of it */
    *row = v[one];
    memset(&v[one], 0, sizeof(v[one]));
  }
  vm_list_free(v, n);
  if (k == 1) {
    free(hit);
    free(names);
    return 0;
  }
  if (!k) {
    free(hit);
    free(names);
    snprintf(err, errlen, "no JVM in pod '%s'", s);
    return -ESRCH;
  }
  buf_printf(&b, "'%s' names %zu JVMs:", s, k);
  for (shown = 0; shown < k && shown < POD_NAMES_SHOWN; shown++) {
    size_t at = b.len;

    pod_text(&names[shown], text, sizeof(text));
    buf_printf(&b, "%s %d (%s)", shown ? "," : "", hit[shown], text);
    if (b.len + 40 >= errlen) {
      b.len = at;
      b.p[at] = 0;
      break;
    }
  }
  if (shown < k) buf_printf(&b, " and %zu more", k - shown);
  snprintf(err, errlen, "%s: give one pid", b.p);
  buf_free(&b);
  free(hit);
  free(names);
  return -E2BIG;
}
