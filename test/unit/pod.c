/* pod.c - unit tests of core/pod's OCI config scanner and pod targets:
 * the configs containerd and CRI-O write (their annotation keys), and
 * hostile ones: truncated, nested deep, huge strings, escapes, repeated
 * keys, names no Kubernetes object can have */
#include "core/jvmtool.h"
#include "core/pod.h"
#include "check.h"

static const char ctrd[] =
    "{\"ociVersion\":\"1.0.2-dev\",\"process\":{\"args\":[\"java\",\"-jar\"],"
    "\"env\":[\"HOSTNAME=x\"]},\"hostname\":\"other\",\"annotations\":{"
    "\"io.kubernetes.cri.container-name\":\"app\","
    "\"io.kubernetes.cri.container-type\":\"container\","
    "\"io.kubernetes.cri.sandbox-id\":\"ab\","
    "\"io.kubernetes.cri.sandbox-name\":\"api-7d9f-x2\","
    "\"io.kubernetes.cri.sandbox-namespace\":\"payments\"},"
    "\"linux\":{\"namespaces\":[{\"type\":\"pid\"}],\"x\":[1,-2.5e3,true,"
    "false,null]}}";

static const char crio[] =
    "{ \"annotations\" : { \"io.kubernetes.pod.namespace\" : \"payments\" ,\n"
    "  \"io.kubernetes.pod.name\":\"api\", \"io.kubernetes.container.name\":"
    "\"app\", \"io.kubernetes.cri.sandbox-name\":\"evil\" } }\n";

/* pod_parse_config of the C string s for rt: its return, names in *o. */
static int parse(const char *s, enum pod_runtime rt, struct pod_names *o)
{
  return pod_parse_config(s, strlen(s), rt, o);
}

static void real_configs(void)
{
  struct pod_names o;

  CHECK_INT(parse(ctrd, POD_CONTAINERD, &o), 0, "containerd config parses");
  CHECK_STR(o.ns, "payments", "containerd namespace");
  CHECK_STR(o.pod, "api-7d9f-x2", "containerd pod");
  CHECK_STR(o.container, "app", "containerd container");
  CHECK_INT(parse(ctrd, POD_CRIO, &o), -ENOENT,
            "containerd's config read for CRI-O's keys names no pod");
  CHECK_INT(parse(crio, POD_CRIO, &o), 0, "CRI-O config parses");
  CHECK_STR(o.pod, "api", "CRI-O pod, not the other runtime's key");
  CHECK_STR(o.container, "app", "CRI-O container");
  CHECK_INT(parse("{\"annotations\":{\"io.kubernetes.pod.namespace\":\"a\","
                  "\"io.kubernetes.pod.name\":\"b\"}}",
                  POD_CRIO, &o),
            0, "no container name (a sandbox): still the pod");
  CHECK_STR(o.container, "", "no container name is empty");
  CHECK_INT(parse("{\"hostname\":\"payments\"}", POD_CRIO, &o), -ENOENT,
            "no annotations: no pod");
  CHECK_INT(parse("{\"annotations\":null}", POD_CRIO, &o), -ENOENT,
            "null annotations: no pod");
  CHECK_INT(parse("{}", POD_CRIO, &o), -ENOENT, "empty object: no pod");
}

static void hostile(void)
{
  struct pod_names o;
  struct buf b = {0};
  size_t n = strlen(crio);

  /* every truncation of a valid config is refused, never read past (a
   * copy of exactly k bytes: ASan sees a read past it) */
  size_t refused = 0;

  for (size_t k = 0; k < n - 2; k++) {
    char *cut = xmalloc(k ? k : 1);

    memcpy(cut, crio, k);
    refused += pod_parse_config(cut, k, POD_CRIO, &o) == -EINVAL;
    free(cut);
  }
  CHECK_INT(refused, n - 2, "every truncation refused");
  CHECK_INT(parse("{\"annotations\":{}} x", POD_CRIO, &o), -EINVAL,
            "trailing garbage");
  CHECK_INT(parse("[1]", POD_CRIO, &o), -EINVAL, "not an object");
  CHECK_INT(parse("", POD_CRIO, &o), -EINVAL, "empty file");
  /* nested deep: refused at the bound, not by the stack */
  for (int i = 0; i < 100000; i++) buf_adds(&b, "{\"a\":[");
  CHECK_INT(parse(b.p, POD_CRIO, &o), -EINVAL, "nested 200000 deep");
  b.len = 0;
  buf_adds(&b, "{\"x\":");
  for (int i = 0; i < POD_JSON_DEPTH - 2; i++) buf_adds(&b, "[");
  for (int i = 0; i < POD_JSON_DEPTH - 2; i++) buf_adds(&b, "]");
  buf_adds(&b, ",\"annotations\":{\"io.kubernetes.pod.namespace\":\"a\","
               "\"io.kubernetes.pod.name\":\"b\"}}");
  CHECK_INT(parse(b.p, POD_CRIO, &o), 0, "nested below the bound: read");
  /* a huge name: refused, not cut to fit */
  b.len = 0;
  buf_adds(&b, "{\"annotations\":{\"io.kubernetes.pod.namespace\":\"a\","
               "\"io.kubernetes.pod.name\":\"");
  for (int i = 0; i < 300000; i++) buf_addc(&b, 'p');
  buf_adds(&b, "\"}}");
  CHECK_INT(parse(b.p, POD_CRIO, &o), -EINVAL, "a 300000-byte pod name");
  CHECK_STR(o.pod, "", "nothing kept of it");
  b.len = 0;
  buf_adds(&b, "{\"annotations\":{\"io.kubernetes.pod.namespace\":\"a\","
               "\"io.kubernetes.pod.name\":\"");
  for (int i = 0; i < POD_NAME_MAX; i++) buf_addc(&b, 'p');
  buf_adds(&b, "\"}}");
  CHECK_INT(parse(b.p, POD_CRIO, &o), 0, "a 253-byte pod name is one");
  CHECK_INT(strlen(o.pod), POD_NAME_MAX, "kept whole");
  /* huge other strings are skipped */
  b.len = 0;
  buf_adds(&b, "{\"process\":{\"env\":[\"");
  for (int i = 0; i < 300000; i++) buf_addc(&b, 'e');
  buf_adds(&b, "\"]},\"annotations\":{\"io.kubernetes.pod.namespace\":\"a\","
               "\"io.kubernetes.pod.name\":\"b\"}}");
  CHECK_INT(parse(b.p, POD_CRIO, &o), 0, "a huge environment is skipped");
  buf_free(&b);
  /* repeated keys: a reader that takes the first and one that takes the
   * last would disagree, so neither is guessed */
  CHECK_INT(parse("{\"annotations\":{\"io.kubernetes.pod.namespace\":\"a\","
                  "\"io.kubernetes.pod.name\":\"b\","
                  "\"io.kubernetes.pod.namespace\":\"kube-system\"}}",
                  POD_CRIO, &o),
            -EINVAL, "namespace twice");
  CHECK_INT(parse("{\"annotations\":{\"io.kubernetes.pod.namespace\":\"a\","
                  "\"io.kubernetes.pod.name\":\"b\","
                  "\"io.kubernetes.pod.n\\u0061me\":\"c\"}}",
                  POD_CRIO, &o),
            -EINVAL, "pod name twice, once spelled with an escape");
  CHECK_INT(parse("{\"annotations\":{\"io.kubernetes.pod.namespace\":\"a\","
                  "\"io.kubernetes.pod.name\":\"b\"},\"annotations\":{}}",
                  POD_CRIO, &o),
            -EINVAL, "annotations twice");
  /* escapes */
  CHECK_INT(parse("{\"annotations\":{\"io.kubernetes.pod.namespace\":"
                  "\"p\\u0061yments\",\"io.kubernetes.pod.name\":\"a\\/b\"}}",
                  POD_CRIO, &o),
            -EINVAL, "an escaped '/' in a pod name is no name");
  CHECK_INT(parse("{\"annotations\":{\"io.kubernetes.pod.namespace\":"
                  "\"p\\u0061yments\",\"io.kubernetes.pod.name\":\"api\"}}",
                  POD_CRIO, &o),
            0, "an escaped letter decodes");
  CHECK_STR(o.ns, "payments", "decoded namespace");
  CHECK_INT(parse("{\"annotations\":{\"io.kubernetes.pod.namespace\":"
                  "\"payments\\u0000x\",\"io.kubernetes.pod.name\":\"api\"}}",
                  POD_CRIO, &o),
            -EINVAL, "a NUL cannot cut a name short");
  CHECK_INT(parse("{\"annotations\":{\"io.kubernetes.pod.namespace\":"
                  "\"pay\\u001b[31m\",\"io.kubernetes.pod.name\":\"api\"}}",
                  POD_CRIO, &o),
            -EINVAL, "a terminal escape is no name");
  CHECK_INT(parse("{\"annotations\":{\"io.kubernetes.pod.namespace\":"
                  "\"p\xc3\xa4y\",\"io.kubernetes.pod.name\":\"api\"}}",
                  POD_CRIO, &o),
            -EINVAL, "UTF-8 is no name");
  CHECK_INT(parse("{\"annotations\":{\"io.kubernetes.pod.namespace\":"
                  "\"pay\nx\",\"io.kubernetes.pod.name\":\"api\"}}",
                  POD_CRIO, &o),
            -EINVAL, "a raw newline in a string is not JSON");
  CHECK_INT(parse("{\"annotations\":{\"io.kubernetes.pod.namespace\":"
                  "\"a\\q\",\"io.kubernetes.pod.name\":\"api\"}}",
                  POD_CRIO, &o),
            -EINVAL, "an unknown escape");
  CHECK_INT(parse("{\"annotations\":{\"io.kubernetes.pod.namespace\":"
                  "\"a\\u12\"}}",
                  POD_CRIO, &o),
            -EINVAL, "a short \\u escape");
  CHECK_INT(parse("{\"annotations\":{\"io.kubernetes.pod.namespace\":7,"
                  "\"io.kubernetes.pod.name\":\"api\"}}",
                  POD_CRIO, &o),
            -EINVAL, "a number for a name");
  CHECK_INT(parse("{\"annotations\":{\"io.kubernetes.pod.namespace\":"
                  "\"Payments\",\"io.kubernetes.pod.name\":\"api\"}}",
                  POD_CRIO, &o),
            -EINVAL, "upper case is no namespace");
  CHECK_INT(parse("{\"annotations\":{\"io.kubernetes.pod.namespace\":"
                  "\"a.b\",\"io.kubernetes.pod.name\":\"api\"}}",
                  POD_CRIO, &o),
            -EINVAL, "a dot is no namespace");
  CHECK_INT(parse("{\"annotations\":{\"io.kubernetes.pod.namespace\":"
                  "\"\",\"io.kubernetes.pod.name\":\"api\"}}",
                  POD_CRIO, &o),
            -EINVAL, "an empty namespace");
}

static void targets(void)
{
  struct pod_names n = {"payments", "api", "app"};
  char t[400];

  CHECK(pod_is_target("payments/api"), "ns/pod");
  CHECK(pod_is_target("payments/api-7d9f.x/app"), "ns/pod/container");
  CHECK(!pod_is_target("payments"), "one part");
  CHECK(!pod_is_target("a/b/c/d"), "four parts");
  CHECK(!pod_is_target("/tmp/hsperfdata_bob/42"), "an absolute path");
  CHECK(!pod_is_target("./x/42"), "a relative path with a dot part");
  CHECK(!pod_is_target("payments/"), "an empty pod");
  CHECK(!pod_is_target("Pay/api"), "upper case");
  CHECK(!pod_is_target("a.b/api"), "a dotted namespace");
  CHECK(!pod_is_target("com/example/Main"), "a module/class main class");
  pod_text(&n, t, sizeof(t));
  CHECK_STR(t, "payments/api/app", "pod_text");
  n.container[0] = 0;
  pod_text(&n, t, sizeof(t));
  CHECK_STR(t, "payments/api", "pod_text, no container");
  pod_text(NULL, t, sizeof(t));
  CHECK_STR(t, "", "pod_text, none");
}

int main(void)
{
  struct pod_names o;

  real_configs();
  hostile();
  targets();
  CHECK_INT(pod_names(AT_FDCWD, "zz", &o), -ENOENT, "not an id");
  CHECK_INT(pod_of(-1, &o), -ENOENT, "no /proc folder");
  return check_failures != 0;
}
