/* serve_sd.c - /sd: Prometheus HTTP service discovery, one group per JVM
 *
 * A JSON array with a target group for every JVM /metrics shows (alive,
 * ours unless --all-users): "targets" is serve itself, as the client
 * reached it (the Host header, when it is HOST:PORT of host characters;
 * else the socket's own address) or --advertise; "labels" are those
 * /metrics puts on every series (core/prom's prom_jvm_labels: pid,
 * main_class, container_id, pod_uid; empty ones left out),
 * __param_pid, which a scraper turns into ?pid= of its profile pulls and
 * of /metrics, and instance, "<target>/<pid>": Prometheus, Parca and
 * Alloy keep a target's own instance label (else they set it to the
 * target, serve's address, the same for every JVM), so each JVM is an
 * instance of its own and a dashboard grouped by instance keeps them
 * apart. A main class is read under the budgets /metrics has
 * (core/vm's per JVM, PROM_SCRAPE_BUDGET_MS for the answer; a JVM past
 * them has no main_class label). Every value is a JSON string (core/out's
 * escaper: a main class is the target's text).
 */
#include "core/jvmtool.h"
#include "cmd/cmd.h"
#include "cmd/serve.h"
#include "core/out.h"
#include "core/perfdata.h"
#include "core/prom.h"
#include "core/proc.h"
#include "core/vm.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

/* 1 unless each of the n bytes at s is a letter, a digit (hex: a hex
 * digit) or one of more. */
static int bad_chars(const char *s, size_t n, int hex, const char *more)
{
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];

    if (!(hex ? isxdigit(c) : isalnum(c)) && (!c || !strchr(more, c))) return 1;
  }
  return 0;
}

int sd_bad_addr(const char *s, size_t n)
{
  struct http_hostport hp;

  if (http_hostport(s, n, &hp) || hp.port < 1) return 1;
  if (hp.v6) /* an IPv6 address, perhaps an IPv4 tail */
    return hp.host_len < 2 || bad_chars(hp.host, hp.host_len, 1, ":.");
  return !hp.host_len || bad_chars(hp.host, hp.host_len, 0, "-._");
}

/* The address the request reached: the socket's own, as HOST:PORT. */
static void sock_addr(int fd, const char *listen, struct buf *b)
{
  struct sockaddr_storage ss;
  socklen_t len = sizeof(ss);
  char host[INET6_ADDRSTRLEN];

  if (getsockname(fd, (struct sockaddr *)&ss, &len)) {
    buf_adds(b, listen);
  } else if (ss.ss_family == AF_INET6) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

    inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
    buf_printf(b, "[%s]:%d", host, ntohs(a->sin6_port));
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *)&ss;

    inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
    buf_printf(b, "%s:%d", host, ntohs(a->sin_port));
  }
}

/* v's labels (core/prom's prom_jvm_labels) added to o, read as
 * /metrics reads a JVM: opened as listed (core/jvm's jvm_open_listed:
 * v is taken), its PerfData under core/vm's per-JVM budget, and not at
 * all once the answer has spent the scrape's (start: when it began); no
 * main_class then. Empty values are left out. */
static void labels(struct vm *v, uint64_t start, struct json_obj *o)
{
  struct jvm j;
  struct prom_labels l;
  char err[8];

  jvm_open_listed(&j, v);
  if (now_ms() - start <= PROM_SCRAPE_BUDGET_MS) jvm_read(&j, err, sizeof(err));
  prom_jvm_labels(&j, &l);
  for (size_t i = 0; i < l.n; i++)
    if (l.l[i].len) json_str(o, l.l[i].name, l.l[i].value, l.l[i].len);
  jvm_close(&j);
}

struct resp *sd_answer(const struct sd_conf *sc, int fd, const char *buf,
                       const struct http_req *r, int head)
{
  struct buf body = {0}, target = {0}, inst = {0};
  const char *host;
  long hl = http_header(buf, r, "Host", &host);
  struct vm *v;
  size_t n;
  struct resp *out;
  uint64_t start = now_ms();

  if (sc->advertise)
    buf_adds(&target, sc->advertise);
  else if (hl > 0 && !sd_bad_addr(host, (size_t)hl))
    buf_add(&target, host, (size_t)hl);
  else
    sock_addr(fd, sc->listen, &target);
  if (vm_list(&v, &n)) n = 0;
  say_skipped();
  buf_addc(&body, '[');
  for (size_t i = 0, k = 0; i < n; i++) {
    struct json_obj group, l;
    char pid[16];

    if (!v[i].alive || (!sc->all_users && v[i].uid != geteuid())) continue;
    buf_adds(&body, k++ ? ",\n" : "\n");
    json_open(&group, &body, 0);
    json_key(&group, "targets");
    buf_addc(&body, '[');
    json_buf(&body, target.p, target.len);
    buf_addc(&body, ']');
    json_key(&group, "labels");
    json_open(&l, &body, 0);
    snprintf(pid, sizeof(pid), "%d", v[i].pid);
    json_strz(&l, "__param_pid", pid);
    inst.len = 0;
    buf_printf(&inst, "%.*s/%s", (int)target.len, target.p, pid);
    json_str(&l, "instance", inst.p, inst.len);
    labels(&v[i], start, &l);
    json_close(&l);
    json_close(&group);
  }
  buf_adds(&body, "]\n");
  vm_list_free(v, n);
  out = resp_new(200, "application/json; charset=utf-8", body.p, body.len, head,
                 0);
  buf_free(&body);
  buf_free(&target);
  buf_free(&inst);
  return out;
}
