/* serve_sd.c - /sd: Prometheus HTTP service discovery, one group per JVM
 *
 * A JSON array with a target group for every JVM /metrics shows (alive,
 * ours unless --all-users): "targets" is serve itself, as the client
 * reached it (the Host header, when it is HOST:PORT of host characters;
 * else the socket's own address) or --advertise; "labels" are pid,
 * main_class, container_id and pod_uid (those /metrics puts on every
 * series; empty ones left out) and __param_pid, which a scraper turns into
 * ?pid= of its profile pulls and of /metrics. A main class is read under
 * the budgets /metrics has (core/vm's per JVM, PROM_SCRAPE_BUDGET_MS for
 * the answer; a JVM past them has no main_class label). Every value is a JSON string (core/out's
 * escaper: a main class is the target's text).
 */
#include "core/jvmtool.h"
#include "cmd/serve.h"
#include "core/out.h"
#include "core/perfdata.h"
#include "core/prom.h"
#include "core/proc.h"
#include "core/vm.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

int sd_bad_addr(const char *s, size_t n)
{
  size_t i = 0, port = 0, digits = 0;

  if (n && s[0] == '[') {
    for (i = 1;
         i < n && (isxdigit((unsigned char)s[i]) || s[i] == ':' || s[i] == '.');
         i++)
      ;
    if (i < 3 || i >= n || s[i++] != ']') return 1;
  } else {
    while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '-' ||
                     s[i] == '.' || s[i] == '_'))
      i++;
    if (!i) return 1;
  }
  if (i >= n || s[i++] != ':') return 1;
  for (; i < n && isdigit((unsigned char)s[i]) && digits < 6; i++, digits++)
    port = port * 10 + (size_t)(s[i] - '0');
  return i != n || !digits || port < 1 || port > 65535;
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

/* v's main class (its java command) into cmd, read as /metrics reads a
 * JVM: under core/vm's per-JVM budget, and not at all once the answer has
 * spent the scrape's (start: when it began); "" then. */
static void java_command(const struct vm *v, uint64_t start, struct buf *cmd)
{
  struct perfdata pd;

  if (!v->path || now_ms() - start > PROM_SCRAPE_BUDGET_MS ||
      vm_open_budget(v, &pd)) {
    vm_text(NULL, NULL, "", cmd);
    return;
  }
  vm_text(&pd, "sun.rt.javaCommand", "", cmd);
  pd_close(&pd);
}

static void label(struct buf *b, const char *name, const char *v, size_t n)
{
  if (!n) return;
  buf_printf(b, ",\"%s\":", name);
  json_buf(b, v, n);
}

struct resp *sd_answer(const struct sd_conf *sc, int fd, const char *buf,
                       const struct http_req *r, int head)
{
  struct buf body = {0}, target = {0}, cmd = {0};
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
  buf_addc(&body, '[');
  for (size_t i = 0, k = 0; i < n; i++) {
    char id[65] = "", pod[37] = "", pid[16];

    if (!v[i].alive || (!sc->all_users && v[i].uid != geteuid())) continue;
    snprintf(pid, sizeof(pid), "%d", v[i].pid);
    java_command(&v[i], start, &cmd);
    if (proc_container(v[i].pid, id, pod)) id[0] = pod[0] = 0;
    buf_adds(&body, k++ ? ",\n" : "\n");
    buf_adds(&body, "{\"targets\":[");
    json_buf(&body, target.p, target.len);
    buf_printf(&body, "],\"labels\":{\"__param_pid\":\"%s\"", pid);
    label(&body, "pid", pid, strlen(pid));
    label(&body, "main_class", cmd.p ? cmd.p : "",
          cmd.p ? strcspn(cmd.p, " ") : 0);
    label(&body, "container_id", id, strlen(id));
    label(&body, "pod_uid", pod, strlen(pod));
    buf_adds(&body, "}}");
  }
  buf_adds(&body, "]\n");
  vm_list_free(v, n);
  out = resp_new(200, "application/json; charset=utf-8", body.p, body.len, head,
                 0);
  buf_free(&body);
  buf_free(&target);
  buf_free(&cmd);
  return out;
}
