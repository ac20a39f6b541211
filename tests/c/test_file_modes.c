/*
 * test_file_modes.c — who may use a cache file: the modes normcache_open creates the
 * data and lock files with (owner-only by default, the "mode" option, the umask; the
 * option's invalid values are in test_open_close), and
 * the messages another user gets when it may not read the cache or write its lock file
 * (as root, in a child that drops to uid and gid 65534; skipped otherwise).
 */
#include "check.h"
#include "processes.h"

#include <sys/stat.h>

/** The permission bits of the file at `path`. */
static unsigned file_mode(const char *path)
{
    struct stat info;
    CHECK(stat(path, &info) == 0);
    return (unsigned)(info.st_mode & 07777);
}

/**
 * Creates a cache at a fresh path named `name` with `options` under the umask `mask`,
 * with one record, and checks that the data and lock files got `expected`.
 */
static void create_with_mode(char *path, const char *name, const char *options, mode_t mask,
                             unsigned expected)
{
    char lock_path[NC_PATH_SIZE + 8];
    mode_t previous = umask(mask);
    normcache *cache = NC_OPEN(nc_temp_path(path, name), options);
    umask(previous);
    CHECK_PUT(cache, "{\"P:1\": {\"x\": 1}}", "[\"P:1.x\"]");
    CHECK_OK(normcache_close(cache));
    snprintf(lock_path, sizeof lock_path, "%s-lock", path);
    CHECK(file_mode(path) == expected);
    CHECK(file_mode(lock_path) == expected);
}

/** Under umask 022: 0600 by default, the mode option as a string or an integer, less the umask. */
static void test_modes_under_umask(void)
{
    char path[NC_PATH_SIZE];
    normcache *cache;
    create_with_mode(path, "default", NULL, 022, 0600);
    create_with_mode(path, "octal-string", "{\"mode\": \"0640\"}", 022, 0640);
    create_with_mode(path, "short-string", "{\"mode\": \"640\"}", 022, 0640);
    create_with_mode(path, "integer", "{\"mode\": 416}", 022, 0640);
    create_with_mode(path, "group-write", "{\"mode\": \"0660\"}", 022, 0640);
    create_with_mode(path, "group-write-umask-002", "{\"mode\": \"0660\"}", 002, 0660);
    create_with_mode(path, "everyone", "{\"mode\": \"0666\"}", 022, 0644);
    create_with_mode(path, "none", "{\"mode\": 0}", 022, 0);

    /* An existing file keeps its mode: the option applies to files the open creates. */
    create_with_mode(path, "reopened", NULL, 022, 0600);
    cache = NC_OPEN(path, "{\"mode\": \"0644\"}");
    CHECK_GET(cache, "P:1", "{\"x\":1}");
    CHECK_OK(normcache_close(cache));
    CHECK(file_mode(path) == 0600);
}

/** Creates, as root, the cache `name` in the shared directory with `options` and umask `mask`. */
static void create_shared(char *path, const char *name, const char *options, mode_t mask)
{
    mode_t previous = umask(mask);
    normcache *cache;
    snprintf(path, NC_PATH_SIZE + 32, "%s/%s.cache", nc_shared_dir(), name);
    cache = NC_OPEN(path, options);
    umask(previous);
    CHECK_PUT(cache, "{\"P:1\": {\"x\": 1}}", "[\"P:1.x\"]");
    CHECK_OK(normcache_close(cache));
}

/**
 * Child body, as uid 65534: root's cache at `path` whose lock file has mode `lock_mode`
 * (0600 by default, or 0644): a read-only open names the lock file it may not write,
 * and what to do; so does a read-write one.
 */
static void lock_denied_child(const char *path, int lock_mode)
{
    char expected[64];
    nc_drop_privileges();
    snprintf(expected, sizeof expected, "-lock' (mode 0%o, owner uid 0", (unsigned)lock_mode);
    CHECK_OPEN_FAILS(path, "{\"read_only\": true}", NORMCACHE_ESTORAGE);
    CHECK_ERRMSG(path, "' read-only: Permission denied on its lock file '");
    CHECK_CONTAINS(normcache_errmsg(), expected);
    CHECK_CONTAINS(normcache_errmsg(), "a read-only one too, must write");
    CHECK_CONTAINS(normcache_errmsg(), "\"mode\": \"0660\"");
    CHECK_OPEN_FAILS(path, NULL, NORMCACHE_ESTORAGE);
    CHECK_ERRMSG(path, "' for writing: Permission denied on its lock file '");
}

/** Child body, as uid 65534: the lock file is writable, the cache file is not readable. */
static void unreadable_child(const char *path, int number)
{
    (void)number;
    nc_drop_privileges();
    CHECK_OPEN_FAILS(path, "{\"read_only\": true}", NORMCACHE_ESTORAGE);
    CHECK_ERRMSG(path, "' read-only: Permission denied: this user may not read the cache file (mode 0600, owner uid 0");
}

/** Child body, as uid 65534: a cache created with mode 0666 under umask 0 opens read-only. */
static void shared_child(const char *path, int number)
{
    normcache *cache;
    (void)number;
    nc_drop_privileges();
    cache = NC_OPEN(path, "{\"read_only\": true}");
    CHECK_GET(cache, "P:1", "{\"x\":1}");
    CHECK_OK(normcache_close(cache));
}

/** Another user's opens, as root in children that drop to uid 65534. */
static void test_another_user(void)
{
    char path[NC_PATH_SIZE + 32];
    char lock_path[NC_PATH_SIZE + 40];
    if (geteuid() != 0) {
        printf("test_file_modes: skipping another user's opens: they need root to drop to uid 65534\n");
        return;
    }
    create_shared(path, "owner-only", NULL, 022);
    CHECK_CHILD_PASSED(nc_spawn(lock_denied_child, path, 0600));

    create_shared(path, "readable", "{\"mode\": \"0644\"}", 022);
    CHECK_CHILD_PASSED(nc_spawn(lock_denied_child, path, 0644));

    create_shared(path, "unreadable", NULL, 022);
    snprintf(lock_path, sizeof lock_path, "%s-lock", path);
    CHECK(chmod(lock_path, 0666) == 0);
    CHECK_CHILD_PASSED(nc_spawn(unreadable_child, path, 0));

    create_shared(path, "shared", "{\"mode\": \"0666\"}", 0);
    CHECK_CHILD_PASSED(nc_spawn(shared_child, path, 0));
}

int main(void)
{
    test_modes_under_umask();
    test_another_user();
    return 0;
}
