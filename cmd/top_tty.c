/* top_tty.c - jvmtool top on a terminal: a full-screen display
 *
 * Plain ANSI (no curses): the alternate screen, the cursor hidden, the
 * terminal in non-canonical mode without echo (signals kept: Ctrl-C is
 * SIGINT). Whatever ends it (q, Ctrl-C, SIGTERM, SIGHUP, an error exit)
 * puts back the termios it found and the main screen. SIGWINCH redraws at
 * the new size. Everything from a JVM or a container is escaped.
 * Keys: q quits; c r g a sort by cpu, rss, gc, alloc; up/down or k/j
 * select; Enter or 1-9 opens a JVM's threads; b, Esc or Backspace goes
 * back. In a JVM's threads: s shows the hot threads' stacks under the
 * table; up/down, j/k or a row number selects a thread and Enter shows
 * its whole stack from a fresh dump (one safepoint per Enter). Every
 * view fits the terminal's width: columns are dropped by priority, the
 * main class and a thread's name are always shown.
 */
#include "core/jvmtool.h"
#include "cmd/top.h"
#include <sys/ioctl.h>
#include <termios.h>

static struct termios saved;
static int raw_on;
static volatile sig_atomic_t resized;

static void restore(void)
{
  static const char leave[] = "\033[0m\033[?25h\033[?1049l";

  if (!raw_on) return;
  raw_on = 0;
  tcsetattr(0, TCSAFLUSH, &saved);
  (void)!write(1, leave, sizeof(leave) - 1);
}

static void on_winch(int sig)
{
  (void)sig;
  resized = 1;
}

/* Raw-ish mode: no echo, no line editing, reads return at once. */
static int enter(void)
{
  static const char start[] = "\033[?1049h\033[?25l\033[H\033[2J";
  struct termios t;
  struct sigaction sa;

  if (tcgetattr(0, &saved)) return -errno;
  t = saved;
  t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
  t.c_cc[VMIN] = 0;
  t.c_cc[VTIME] = 0;
  if (tcsetattr(0, TCSAFLUSH, &t)) return -errno;
  raw_on = 1;
  atexit(restore); /* xmalloc's out-of-memory exit too */
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_winch;
  sigaction(SIGWINCH, &sa, NULL);
  (void)!write(1, start, sizeof(start) - 1);
  return 0;
}

static void size(int *rows, int *cols)
{
  struct winsize w;

  *rows = 24;
  *cols = 80;
  if (!ioctl(1, TIOCGWINSZ, &w) && w.ws_row && w.ws_col) {
    *rows = w.ws_row;
    *cols = w.ws_col;
  }
}

struct screen {
  struct top_node *node;
  struct top_jvm jvm;    /* the open JVM, when pid */
  struct top_jvm *proto; /* the command line's --stacks, --alloc */
  int pid, sel;
  int tid;     /* the selected thread of the JVM view (0: the first row) */
  int stack;   /* its whole stack is shown */
  size_t skip; /* frames scrolled off the stack view */
  int num;     /* a row number being typed */
  enum top_sort by;
};

/* The row of the selected thread (0 when it is gone). */
static size_t thread_row(const struct screen *s)
{
  for (size_t i = 0; i < s->jvm.n; i++)
    if (s->jvm.t[i].task.tid == s->tid) return i;
  return 0;
}

static const char *key_bar(const struct screen *s)
{
  if (!s->pid)
    return " q quit  c r g a sort  up/down select  Enter/1-9 threads ";
  if (s->stack) return " q quit  b back  up/down scroll ";
  return " q quit  b back  s stacks  up/down/1-9 select  Enter its stack ";
}

static void draw(struct screen *s)
{
  struct buf b = {0}, out = {0};
  int rows, cols;
  size_t body = 1, bar;
  const char *keys = key_bar(s);

  size(&rows, &cols);
  /* every view leaves the last line to the key bar: the screen never
   * scrolls */
  if (rows > 2) body = (size_t)rows - 1;
  buf_adds(&b, "\033[H");
  if (s->pid && s->stack)
    top_jvm_stack_text(&s->jvm, thread_row(s), &b, body, cols, s->skip);
  else if (s->pid)
    top_jvm_text(&s->jvm, &b, body, cols, 1, (int)thread_row(s));
  else
    top_node_text(s->node, &b, body > 2 ? body - 2 : 1, cols, 1, s->sel);
  /* every line cleared to its end, then the rest of the screen */
  for (size_t i = 0; i < b.len; i++) {
    if (b.p[i] == '\n') buf_adds(&out, "\033[K\r");
    buf_addc(&out, b.p[i]);
  }
  bar = strlen(keys) < (size_t)cols ? strlen(keys) : (size_t)cols;
  buf_adds(&out, "\033[J\033[7m");
  buf_add(&out, keys, bar);
  buf_adds(&out, "\033[0m");
  (void)!write(1, out.p, out.len);
  buf_free(&out);
  buf_free(&b);
}

static int refresh(struct screen *s)
{
  if (s->pid) {
    if (top_jvm_read(&s->jvm)) { /* it ended: back to the node view */
      top_jvm_free(&s->jvm);
      s->pid = 0;
      s->stack = 0;
    }
    return 0;
  }
  top_node_read(s->node);
  top_node_sort(s->node, s->by);
  if (s->sel >= (int)s->node->n) s->sel = s->node->n ? (int)s->node->n - 1 : 0;
  return 0;
}

/* Open pid's view: the JVM the command opened (proto's, taken), or the
 * one a node view's line holds (line: its JVM, as listed), opened now
 * from its row (core/jvm); a process gone since stays in the node view. */
static void open_jvm(struct screen *s, int pid, struct top_vm *line)
{
  char err[256];

  top_jvm_free(&s->jvm);
  if (s->proto->opened && s->proto->pid == pid) {
    s->jvm.jvm = s->proto->jvm;
    s->jvm.opened = 1;
    s->proto->opened = 0;
    jvm_init(&s->proto->jvm);
  } else if (top_jvm_open(&s->jvm, pid, line ? &line->jvm->vm : NULL, err,
                          sizeof(err))) {
    s->pid = 0;
    return;
  }
  s->jvm.pid = pid;
  s->jvm.stacks = s->proto->stacks;
  s->jvm.alloc = s->proto->alloc;
  s->jvm.dump_every_ns = s->proto->dump_every_ns;
  s->pid = pid;
  s->tid = 0;
  s->stack = 0;
  s->num = 0;
  if (top_jvm_read(&s->jvm)) { /* gone since: the node view */
    top_jvm_free(&s->jvm);
    s->pid = 0;
  }
}

/* Select row i of the JVM view. */
static void select_row(struct screen *s, size_t i)
{
  if (i < s->jvm.n) s->tid = s->jvm.t[i].task.tid;
}

/* A key in a JVM's view (threads, or a thread's stack). */
static int jvm_key(struct screen *s, int c, int up, int down)
{
  size_t r = thread_row(s);

  if (c == 'b' || c == 127 || c == 8 || c == 27) {
    if (s->stack)
      s->stack = 0;
    else {
      top_jvm_free(&s->jvm);
      s->pid = 0;
    }
    return 2;
  }
  if (s->stack) {
    if (down) s->skip++;
    if (up && s->skip) s->skip--;
    return 2;
  }
  if (c >= '0' && c <= '9') {
    s->num = s->num % 1000 * 10 + (c - '0');
    if (s->num >= 1) select_row(s, (size_t)s->num - 1);
    return 2;
  }
  s->num = 0;
  if (c == 's') { /* the hot stacks, from a dump no older than --dump-every */
    s->jvm.stacks = s->jvm.stacks ? 0 : s->proto->stacks ? s->proto->stacks : 3;
    if (s->jvm.stacks &&
        (!s->jvm.td || top_now_ns() - s->jvm.dump_ns >= s->jvm.dump_every_ns))
      top_jvm_dump(&s->jvm);
  }
  if (c == '\r' || c == '\n') { /* its stack as it is now: a fresh dump */
    select_row(s, r);
    top_jvm_dump(&s->jvm);
    s->stack = 1;
    s->skip = 0;
  }
  if (down && r + 1 < s->jvm.n) select_row(s, r + 1);
  if (up && r > 0) select_row(s, r - 1);
  return 2;
}

/* One key (with an escape sequence's bytes); returns 1 to quit, 2 to
 * read again at once. */
static int key(struct screen *s, const char *k, size_t n)
{
  int c = (unsigned char)k[0], up = 0, down = 0;

  if (c == 'q') return 1;
  if (n == 3 && c == 27 && k[1] == '[') { /* arrow keys: ESC [ A / B */
    up = k[2] == 'A';
    down = k[2] == 'B';
    c = 0;
  }
  if (c == 27 && n != 1) return 0; /* another sequence */
  up |= c == 'k';
  down |= c == 'j';
  if (s->pid) return jvm_key(s, c, up, down);
  switch (c) {
  case 'c':
    s->by = TOP_CPU;
    break;
  case 'r':
    s->by = TOP_RSS;
    break;
  case 'g':
    s->by = TOP_GC;
    break;
  case 'a':
    s->by = TOP_ALLOC;
    break;
  case '\r':
  case '\n':
    if (s->sel < (int)s->node->n)
      open_jvm(s, s->node->vm[s->sel].jvm->pid, &s->node->vm[s->sel]);
    return 2;
  default:
    if (c >= '1' && c <= '9' && c - '1' < (int)s->node->n) {
      s->sel = c - '1';
      open_jvm(s, s->node->vm[s->sel].jvm->pid, &s->node->vm[s->sel]);
      return 2;
    }
  }
  if (down && s->sel + 1 < (int)s->node->n) s->sel++;
  if (up && s->sel > 0) s->sel--;
  top_node_sort(s->node, s->by);
  return 2;
}

int top_tty(struct top_node *node, struct top_jvm *proto, enum top_sort by,
            uint64_t delay_ns, long long count)
{
  struct screen s;
  uint64_t next;
  long long done = 0;
  int rc;

  memset(&s, 0, sizeof(s));
  s.node = node;
  s.proto = proto;
  s.by = by;
  if ((rc = enter())) {
    errno_msg(rc, "cannot set up the terminal");
    return 1;
  }
  refresh(&s); /* the baseline: the first figures are one interval on */
  if (proto->pid) open_jvm(&s, proto->pid, NULL);
  next = top_now_ns() + delay_ns;
  draw(&s);
  while (!jt_stop_signal) {
    char k[8];
    ssize_t n;

    if (top_wait(next, 0)) {
      n = read(0, k, sizeof(k));
      if (n <= 0) continue;
      rc = key(&s, k, (size_t)n);
      if (rc == 1) break;
      draw(&s);
      continue;
    }
    if (resized) {
      resized = 0;
      draw(&s);
    }
    if (jt_stop_signal || top_now_ns() < next) continue;
    refresh(&s);
    draw(&s);
    next += delay_ns;
    if (count && ++done >= count) break;
  }
  top_jvm_free(&s.jvm);
  restore();
  return stop_status(0);
}
