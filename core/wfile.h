/* wfile.h - output files that replace their name, never write through it
 *
 * Every file a command writes (-o, --svg) is written as a new temporary
 * file in the same folder and renamed over the name at the end: a link or
 * FIFO planted at the name (in /tmp, by another user) is replaced, never
 * followed, truncated or blocked on; a failed run leaves the old file. The
 * name "-" means standard output; a name that is not a regular file and
 * belongs to us or root (/dev/null, /dev/stdout, our own FIFO) is written
 * through, as the user asked.
 *
 * A SIGINT, SIGTERM or SIGHUP while a temporary file is open removes it,
 * and the process then dies of that signal (its exit status 128 +
 * signal), unless the command handles the signal itself (then it commits
 * or aborts) or it was ignored when the file was opened.
 */
#ifndef WFILE_H
#define WFILE_H

#include <stdio.h>
#include <sys/types.h>

struct wfile {
  FILE *f;          /* write here */
  int fd;           /* f's descriptor */
  int dirfd;        /* the folder (O_PATH), -1 for standard output */
  int direct;       /* written through the name (a device, our FIFO) */
  char *name, *tmp; /* the final and the temporary name in dirfd */
};

/* Create the temporary file beside path (checks that the folder exists
 * and is writable, before any work is done). Returns 0, or -errno with w
 * untouched but safe to abort. */
int wfile_open(struct wfile *w, const char *path);
/* The same with the file's permissions (before the umask): 0600 for what
 * only its owner may read, such as a heap dump. wfile_open is 0666. */
int wfile_open_mode(struct wfile *w, const char *path, mode_t mode);

/* Flush, close and rename over the name. Returns 0, or -errno (a write
 * that failed at any time; the temporary file is then removed). */
int wfile_commit(struct wfile *w);

/* Drop the temporary file; the name keeps what it had. Idempotent. */
void wfile_abort(struct wfile *w);

#endif
