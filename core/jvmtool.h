/* jvmtool.h - the one header every file includes first */
#ifndef JVMTOOL_H
#define JVMTOOL_H

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "core/lib.h"
#include "core/opt.h"
#include "core/out.h"
#include "core/proc.h"

#ifndef JVMTOOL_VERSION
#define JVMTOOL_VERSION "unknown" /* build.sh passes git describe */
#endif

#include "core/banned.h"

#endif
