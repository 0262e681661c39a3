/* serve_http.c - serve's responses (serve.h) */
#include "core/jvmtool.h"
#include "cmd/serve.h"

struct resp *resp_new(int status, const char *type, const char *body,
                      size_t blen, int head, int close_after)
{
  struct resp *r = xzalloc(sizeof(*r));

  r->refs = 1;
  r->head = head;
  http_head(&r->b, status, type, blen, close_after);
  if (!head) buf_add(&r->b, body, blen);
  return r;
}

struct resp *resp_line(int status, const char *line, const char *extra,
                       int head)
{
  struct resp *r = xzalloc(sizeof(*r));
  size_t n = strlen(line) + 1;

  r->refs = 1;
  r->head = head;
  http_head_x(&r->b, status, "text/plain; charset=utf-8", n, 1, extra);
  if (!head) {
    buf_adds(&r->b, line);
    buf_addc(&r->b, '\n');
  }
  return r;
}

void resp_put(struct resp *r)
{
  if (r && !--r->refs) {
    buf_free(&r->b);
    free(r);
  }
}
