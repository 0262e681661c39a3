/* pod.h - a container JVM's Kubernetes names, from its runtime's state
 *
 * A pod's namespace, name and container name are read from the OCI
 * config the container runtime keeps on the host for the container id
 * the process's cgroup names (docs/pods.md): containerd's task bundle or
 * the containers/storage folder CRI-O and podman use, never from what the
 * container says of itself (its hostname, environment or files). The
 * state counts only when the runtime's own pid file names a process in
 * the JVM's pid namespace whose cgroup holding that id is the JVM's (the
 * same path up to the id): a process in a cgroup named after another
 * container's id, made below its own or elsewhere, gets no names.
 */
#ifndef POD_H
#define POD_H

#include <stddef.h>
#include <stdint.h>

/* Kubernetes' own bounds: a namespace and a container name are DNS
 * labels (63), a pod name a DNS subdomain (253). */
enum {
  POD_NS_MAX = 63,
  POD_NAME_MAX = 253,
  POD_CTR_MAX = 63,
  POD_CONFIG_MAX = 1 << 20, /* a config.json past this is refused */
  POD_JSON_DEPTH = 64,      /* nesting past this is refused */
};

struct pod_names {
  char ns[POD_NS_MAX + 1];
  char pod[POD_NAME_MAX + 1];
  char container[POD_CTR_MAX + 1]; /* "" when the config names none */
};

/* Whose annotations a config carries: containerd's CRI plugin writes
 * io.kubernetes.cri.sandbox-namespace/-name and .container-name; CRI-O
 * (and podman given them) io.kubernetes.pod.namespace/.name and
 * io.kubernetes.container.name. */
enum pod_runtime { POD_CONTAINERD, POD_CRIO };

/* Parse an OCI config (n bytes of JSON, need not be NUL-terminated) for
 * rt's annotations only, linear in n, recursion bounded by
 * POD_JSON_DEPTH. Returns 0 with *out set, -ENOENT when the config names
 * no namespace and pod, or -EINVAL when it is not JSON, nests too deep,
 * repeats "annotations" or one of the keys read (escapes decoded first),
 * or a name is not a Kubernetes name (lower-case letters, digits, '-',
 * '.' in a pod name; within the bounds above). */
int pod_parse_config(const char *json, size_t n, enum pod_runtime rt,
                     struct pod_names *out);

/* The names of the process whose /proc folder is procfd (an opened JVM's)
 * and whose cgroup names container id (core/proc's proc_container_at, 64
 * hex digits): 0 with *out, -ENOENT when no runtime keeps state for id (or
 * it names no pod), -ESRCH when the state's pid file names a process
 * outside that process's pid namespace or another cgroup of that id (not
 * this process's container), -EINVAL when the config is refused
 * (pod_parse_config), or -errno (-EACCES: not root). Reads only the
 * host's runtime folders, each file opened without following links, a
 * regular file owned by root, at most POD_CONFIG_MAX. */
int pod_names(int procfd, const char *id, struct pod_names *out);

/* The names as pod_names finds them for the container id of the cgroup
 * of the process whose /proc folder is procfd; 0 or as pod_names. */
int pod_of(int procfd, struct pod_names *out);

/* A listed JVM's (core/vm's walk), read through its /proc folder while it
 * is the process the walk saw; 0 or as pod_names. */
struct vm;
int pod_of_vm(const struct vm *v, struct pod_names *out);

/* "ns/pod/container" (or "ns/pod" when no container is named) into b of
 * n bytes; "" when names is NULL or names no pod. */
void pod_text(const struct pod_names *names, char *b, size_t n);

/* 1 when s has the shape of a pod target, NAMESPACE/POD[/CONTAINER], each
 * part a Kubernetes name as above. */
int pod_is_target(const char *s);

/* The one live JVM the pod target s names (pod_is_target): 0 and its
 * listing row in *row (vm_free it; jvm_open_row opens it without a
 * second lookup),
 * -ESRCH with "no JVM in pod 's'" in err, or -E2BIG when it names several
 * (err lists them: "'s' names 2 JVMs: 12 (ns/pod/a), 34 (ns/pod/b): give
 * one pid"), or -errno when JVMs cannot be listed. */
struct vm;
int pod_find(const char *s, struct vm *row, char *err, size_t errlen);

#endif
