/* SPDX-License-Identifier: MIT */
/*
 * Running tracebufctl from a unit test (tests/NAME_test.c): a program's exit
 * status and what it printed, captured through files.  Include after
 * ktap.h.
 */
#ifndef TBCTL_TEST_RUN_H
#define TBCTL_TEST_RUN_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

struct run {
	int status;		/* exit status, 128+N for signal N */
	char *out, *err;	/* what it printed (NUL-terminated) */
	size_t out_len, err_len;
};

/* The whole file at path, NUL-terminated, its length in *len; NULL if none. */
static inline char *slurp(const char *path, size_t *len)
{
	char *buf = NULL;
	size_t cap = 0, n;
	FILE *f = fopen(path, "rb");

	*len = 0;
	if (!f)
		return NULL;
	do {
		if (*len + 1 >= cap) {
			char *nb = realloc(buf, cap = cap ? 2 * cap : 4096);

			if (!nb)
				break;
			buf = nb;
		}
		n = fread(buf + *len, 1, cap - *len - 1, f);
		*len += n;
	} while (n);
	fclose(f);
	if (buf)
		buf[*len] = '\0';
	return buf;
}

/*
 * Run the program prog, as "tracebufctl" ARGS... (NULL-terminated, 30 at
 * most), in the directory cwd, its output captured in scratch/stdout and
 * scratch/stderr.
 */
static inline void run_in(struct run *r, const char *prog, const char *cwd, const char *scratch,
			  const char *const *args)
{
	char out[PATH_MAX], err[PATH_MAX];
	char *argv[32];
	int status = 0, n = 0;
	pid_t pid;

	snprintf(out, sizeof(out), "%s/stdout", scratch);
	snprintf(err, sizeof(err), "%s/stderr", scratch);
	argv[n++] = (char *)"tracebufctl";
	while (*args && n < 31)
		argv[n++] = (char *)*args++;
	argv[n] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fo < 0 || fe < 0 || chdir(cwd))
			_exit(126);
		dup2(fo, 1);
		dup2(fe, 2);
		execv(prog, argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		;
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	r->out = slurp(out, &r->out_len);
	r->err = slurp(err, &r->err_len);
	unlink(out);
	unlink(err);
	if (!r->out || !r->err)
		T_FAIL("no captured output");
}

static inline void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

#endif /* TBCTL_TEST_RUN_H */
