/* banned.h - functions that have no place in jvmtool
 *
 * Included last by core/jvmtool.h so that using one is a compile error.
 * Use snprintf, the buf_* helpers and parse_num() instead.
 */
#ifndef BANNED_H
#define BANNED_H

#define BANNED(func) sorry_##func##_is_banned_in_jvmtool

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef atoi
#define atoi(x) BANNED(atoi)
#undef atol
#define atol(x) BANNED(atol)
#undef gets
#define gets(x) BANNED(gets)
#undef getpwnam
#define getpwnam(x) BANNED(getpwnam)
#undef getpwuid
#define getpwuid(x) BANNED(getpwuid)

#endif
