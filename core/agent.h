/* agent.h - our allocation agent (agent/) in a running JVM: one per JVM
 *
 * What agent-install and profile's jvmti sampler share: the target's /tmp
 * (inside its root), the copy of the agent the JVM already maps (a JVMTI
 * agent cannot be unloaded, and HotSpot maps every new file anew: a file
 * per run would pile up), the attach "load" request, and which files of
 * jvmtool a /tmp may hold (for clean). Nothing here prints: 0 or -errno,
 * with a one-line reason in why where a command shows it.
 */
#ifndef AGENT_H
#define AGENT_H

#include <stddef.h>
#include <stdint.h>
#include "core/proc.h"
#include "core/root.h"

/* The agent's bytes gzip'd, put into the binary by build.d/agent.sh
 * (cmd/'s agent_image inflates them). */
extern const unsigned char jt_agent_gz[];
extern const uint64_t jt_agent_gz_size;

enum { AGENT_PATH_MAX = 96, AGENT_MAX_LOADED = 16 };

/* Our agent files j maps (paths as it sees them, "/tmp/jvmtool-agent-
 * <hex>.so", each once), at most max, and their inodes (ino may be NULL).
 * Its maps are read through a fixed buffer. Returns how many. */
struct jvm;
int agent_mapped(const struct jvm *j, char paths[][AGENT_PATH_MAX],
                 uint64_t *ino, int max);

/* attach "load" lib (absolute: a path) with opts: 0 and the agent's return
 * code in *rc, or -errno with why. A JVM still starting is asked again
 * until timeout_ms. */
int agent_load(const struct jvm *t, const char *lib, int absolute,
               const char *opts, int *rc, int timeout_ms, char *why, size_t n);

/* Load so[0..len) with opts: into the copy the JVM maps when that copy is
 * these bytes (our name, a regular file of the JVM's user with one link
 * in its /tmp, the mapped inode), else a fresh copy put into its /tmp
 * (O_EXCL, a random name). A fresh copy whose load failed or was refused
 * is removed. Sets lib (the path loaded) and *reused. 0 and the agent's
 * return code in *rc, or -errno with why. */
int agent_start(const struct jvm *t, const void *so, size_t len,
                const char *opts, int timeout_ms, char *lib, size_t libn,
                int *reused, int *rc, char *why, size_t n);

/* Remove our agent file path (in the target's /tmp) unless the JVM maps
 * it. Quiet. */
void agent_drop(const struct jvm *t, const char *path);

/* A fresh name for a samples file: "/tmp/jvmtool-alloc-<nspid>-<16 hex>
 * .txt" (agent/protocol.h). */
void agent_samples_name(const struct jvm *t, char *path, size_t n);

/* Open our samples file path ("/tmp/..." as t sees it) in t's /tmp: a
 * regular file of the JVM's user, never through a link or blocking. 0,
 * *fd and *sb (its size: what is read, the JVM's side may still write),
 * or -errno (root_check_msg says it). With take, the name is removed at
 * once if it still leads to that file (the open fd keeps the data). */
int agent_samples_open(const struct jvm *t, const char *path, int take, int *fd,
                       struct stat *sb);

/* Files of jvmtool a /tmp may hold, by name. */
enum agent_file {
  AGENT_FILE_NONE,
  AGENT_FILE_SO,
  AGENT_FILE_SAMPLES,
  AGENT_FILE_RECORDING
};
enum agent_file agent_file_kind(const char *name);

/* profile's recording name in a target's /tmp, "/tmp/jvmtool-<hex>.jfr",
 * from 16 random hex digits (core/lib random_hex) it also names the
 * recording with. */
void agent_recording_name(const char *hex, char *path, size_t n);

/* What the processes we can see use (for clean: a file in use is kept):
 * the inodes of every file one maps or holds open, sorted, and the euids
 * of those whose maps or fds cannot be read while their root can be
 * opened (for them we cannot tell). */
struct agent_in_use {
  uint64_t *ino;
  size_t n;
  uid_t *unread;
  size_t nunread;
};
/* Fill u (each /proc/<pid>/maps read through a fixed buffer, each
 * /proc/<pid>/fd listed: an fd whose link names one of our files counts
 * with the inode its fdinfo gives; nothing is opened or stat'ed through a
 * link). 0 or -errno when /proc cannot be read. */
int agent_in_use_read(struct agent_in_use *u);
/* 1 if some process uses inode ino, -1 if one we cannot read runs as
 * uid, else 0. */
int agent_in_use_by(const struct agent_in_use *u, uint64_t ino, uid_t uid);
void agent_in_use_free(struct agent_in_use *u);

#endif
