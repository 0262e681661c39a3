/* fuzz_root.c - the in-root path walk (core/root.c)
 *
 * The input is lines: "d PATH" a folder, "f PATH" a file, "l PATH TARGET" a
 * symlink (any target: absolute, "..", loops), "q PATH" a path to resolve.
 * The tree is built in a fresh temp folder <tmp>/root, next to decoys of
 * the same names outside it (<tmp>/a, <tmp>/b, ...). Invariants for every
 * query: whatever resolves is an inode of the tree (never a decoy, never
 * <tmp> itself), and openat2 RESOLVE_IN_ROOT and the fallback walk give the
 * same answer (both fail, or both open the same inode).
 */
#include "core/jvmtool.h"
#include "core/root.h"
#include "test/fuzz/check.h"
#include <ftw.h>

enum { MAX_LINES = 64, MAX_INODES = 256 };

static ino_t inodes[MAX_INODES];
static int ninodes;

static int remember(const char *path, const struct stat *sb, int type,
                    struct FTW *ftw)
{
  if (ninodes < MAX_INODES) inodes[ninodes++] = sb->st_ino;
  return 0;
}

static int drop(const char *path, const struct stat *sb, int type,
                struct FTW *ftw)
{
  remove(path);
  return 0;
}

/* Create one entry of the tree, walking its folders without following
 * links so that setting up never writes outside the root either. */
static void create(int rootfd, char op, char *path, const char *target)
{
  int dir = fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
  char *name, *next;

  for (name = path; name; name = next) {
    if ((next = strchr(name, '/'))) *next++ = 0;
    if (!*name) continue;
    if (!strcmp(name, ".") || !strcmp(name, "..") || strlen(name) > 64) break;
    if (next) {
      int d =
          openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

      if (d < 0) break;
      close(dir);
      dir = d;
      continue;
    }
    if (op == 'd')
      mkdirat(dir, name, 0755);
    else if (op == 'f')
      close(openat(dir, name, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
    else
      symlinkat(target, dir, name);
  }
  close(dir);
}

static long long resolve(const struct root *r, const char *path,
                         enum root_method how)
{
  struct stat sb;
  int fd;

  root_method(how);
  if (root_openat(r, -1, path, O_RDONLY, 0, &fd)) return -1;
  fstat(fd, &sb);
  close(fd);
  return (long long)sb.st_ino;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  char top[PATH_MAX], dir[PATH_MAX + 8], *text, *line, *next;
  struct root r;
  int lines = 0;

  snprintf(top, sizeof(top), "%s/fuzzrootXXXXXX", tmp);
  if (!mkdtemp(top)) return 0;
  snprintf(dir, sizeof(dir), "%s/root", top);
  mkdir(dir, 0755);
  /* decoys: what an escape would find */
  for (const char *d = "abcxyz"; *d; d++) {
    char decoy[PATH_MAX + 8];

    snprintf(decoy, sizeof(decoy), "%s/%c", top, *d);
    close(open(decoy, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
  }
  if (root_open_dir(dir, &r)) goto out;
  text = xstrndup((const char *)data, size);
  for (line = text; line && lines < MAX_LINES; line = next, lines++) {
    char *arg, *target;

    if ((next = strchr(line, '\n'))) *next++ = 0;
    if (strlen(line) < 3 || line[1] != ' ') continue;
    arg = line + 2;
    if (line[0] == 'q') {
      long long a = resolve(&r, arg, ROOT_OPENAT2);
      long long b = resolve(&r, arg, ROOT_WALK);
      int inside = 0;

      ninodes = 0;
      nftw(dir, remember, 16, FTW_PHYS);
      for (int i = 0; i < ninodes; i++) inside |= (long long)inodes[i] == a;
      INVARIANT(a == b);
      INVARIANT(a < 0 || inside || ninodes == MAX_INODES);
    } else if (line[0] == 'l' && (target = strchr(arg, ' '))) {
      *target++ = 0;
      create(r.fd, 'l', arg, target);
    } else if (line[0] == 'd' || line[0] == 'f') {
      create(r.fd, line[0], arg, NULL);
    }
  }
  free(text);
  root_close(&r);
out:
  nftw(top, drop, 16, FTW_PHYS | FTW_DEPTH);
  root_method(ROOT_AUTO);
  return 0;
}
