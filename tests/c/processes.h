/*
 * processes.h — child processes for the C tests of normcache: fork a child that runs
 * a body and check that it passed, one-byte signals on pipes between a parent and its
 * child, and a child that drops root.
 *
 * Include it after check.h. A check that fails in a child ends the child with status
 * 1, which the parent's CHECK_CHILD_PASSED reports at the parent's line.
 */
#ifndef NORMCACHE_TEST_PROCESSES_H
#define NORMCACHE_TEST_PROCESSES_H

#include "check.h"

#include <sys/types.h>
#include <sys/wait.h>

/**
 * Forks; the child runs `body(path, number)`, flushes its output and ends with status
 * 0 when the body returns. Output buffered before the call is flushed first, so that
 * the child does not print it again.
 */
static inline pid_t nc_spawn(void (*body)(const char *, int), const char *path, int number)
{
    pid_t pid;
    fflush(NULL);
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        body(path, number);
        fflush(NULL);
        _exit(0);
    }
    return pid;
}

/** Implements CHECK_CHILD_PASSED. */
static inline void nc_check_child_passed(const char *file, int line, pid_t pid)
{
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) {
        nc_fail(file, line, "waitpid for child %d failed", (int)pid);
    }
    if (WIFSIGNALED(status)) {
        nc_fail(file, line, "child %d was killed by signal %d", (int)pid, WTERMSIG(status));
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        nc_fail(file, line, "child %d failed (wait status %d)", (int)pid, status);
    }
}

/** Waits for the child `pid` and fails unless it ended normally with status 0. */
#define CHECK_CHILD_PASSED(pid) nc_check_child_passed(__FILE__, __LINE__, (pid))

/**
 * Prints the stack of every thread of the process `pid` to standard error through gdb
 * (installed by scripts/install-deps --test), so that a test that finds a child hung
 * says where before it kills the child; says so when gdb cannot.
 */
static inline void nc_print_stacks(pid_t pid)
{
    char command[160];
    snprintf(command, sizeof command,
             "gdb -p %d -batch -nx -ex 'thread apply all bt' </dev/null 1>&2 2>/dev/null",
             (int)pid);
    fprintf(stderr, "the stacks of process %d:\n", (int)pid);
    fflush(NULL);
    if (system(command) != 0) {
        fprintf(stderr, "(gdb is not installed or could not attach to %d)\n", (int)pid);
    }
}

/** The uid and gid an unprivileged child takes when the tests run as root. */
#define NC_NOBODY 65534

/** Drops root for the unprivileged user NC_NOBODY, so that permission bits apply. */
static inline void nc_drop_privileges(void)
{
    if (geteuid() == 0) {
        CHECK(setgid(NC_NOBODY) == 0);
        CHECK(setuid(NC_NOBODY) == 0);
        CHECK(geteuid() == NC_NOBODY);
    }
}

/**
 * A directory for caches that NC_NOBODY may use: "<temp dir>/shared", made on first use
 * with mode 0755 (NC_NOBODY may enter it but not write it), the temporary directory
 * opened to 0711 so that it can be entered.
 */
static inline const char *nc_shared_dir(void)
{
    static char dir[NC_PATH_SIZE];
    if (dir[0] == '\0') {
        snprintf(dir, sizeof dir, "%s/shared", nc_temp_dir());
        CHECK(mkdir(dir, 0755) == 0);
        CHECK(chmod(nc_temp_dir(), 0711) == 0);
    }
    return dir;
}

/** Writes the one-byte signal `signal` to the pipe end `fd`. */
static inline void nc_send_signal(int fd, char signal)
{
    CHECK(write(fd, &signal, 1) == 1);
}

/** Reads a one-byte signal from the pipe end `fd` and fails unless it is `expected`. */
static inline void nc_await_signal(int fd, char expected)
{
    char got = 0;
    CHECK(read(fd, &got, 1) == 1);
    CHECK(got == expected);
}

#endif /* NORMCACHE_TEST_PROCESSES_H */
