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
 * or aborts) or it was ignored when the file was opened. The same
 * handler removes the files noted with wfile_note: ones we did not write
 * through a wfile but must not leave behind (core/attach's trigger file,
 * a heap dump a JVM writes under the name we gave it).
 */
#ifndef WFILE_H
#define WFILE_H

#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
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

/* Have a stop signal remove name in the folder dirfd too (dirfd held open
 * until wfile_unnote), with the file system ids current now (a JVM's
 * user's, inside a root: as root_as_begin or attach set them), and only
 * while the name is a regular file of uid (-1: any) and, sb not NULL, the
 * inode sb describes. Returns the slot for wfile_unnote, or -1 when it
 * could not be noted (a table full, a name too long). */
int wfile_note(int dirfd, const char *name, long long uid,
               const struct stat *sb);
/* Slot's file is gone or kept: no longer the handler's. -1: no-op. */
void wfile_unnote(int slot);

/* Hold the stop signals back (old: the mask to give back), so a file made
 * and then noted is never left between the two. */
void wfile_defer(sigset_t *old);
void wfile_undefer(const sigset_t *old);

#endif
