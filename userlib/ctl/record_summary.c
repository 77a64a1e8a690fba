// SPDX-License-Identifier: MIT
/*
 * tracebufctl record: how a recording ended, as its user sees it: the
 * summary table, a warning for each thing the trace lacks, and the exit
 * status (TBCTL_EXIT_*; README, "Exit status of record").
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include <tracebuf_manager.h>

#include "record_priv.h"
#include "tracebufctl.h"
#include "util.h"

/*
 * Why provider @p (r->prov[@i]), harvested as it left it (p->crashed),
 * ended while tracing, in @buf: that it closed its file and ran on, or
 * how its process ended ("killed by SIGTERM", "crashed with SIGSEGV",
 * "exited with status 0 without stopping tracing"), as the kernel saw
 * its file close (module ABI 1.11), else by its wait() status when record
 * reaped it (COMMAND, or one COMMAND left behind: record_reap()); else
 * (an older module, or a file another process closed last) @otherwise.
 */
static const char *record_gone_cause(const struct record_run *r, int i,
				     const char *otherwise, char *buf, size_t len)
{
	const struct tracebuf_session_provider *p = &r->prov[i];
	const struct record_end *end = r->ends ? &r->ends[i] : NULL;
	const char *abbrev;
	bool crash, known;
	int st = 0, sig;

	if (end && end->how == TRACEBUF_LIB_END_CLOSED) {
		snprintf(buf, len, "closed its tracebuf file without exiting");
		return buf;
	}
	known = end && end->how == TRACEBUF_LIB_END_EXITED;
	if (known)
		st = end->wait;
	if (!known && r->command && r->child_exited && p->pid == (uint32_t)r->command) {
		known = true;
		st = r->child_wait;
	}
	for (int k = 0; k < r->nprocs && !known; k++) {
		const struct record_proc *pr = &r->procs[k];

		known = pr->reaped && pr->id == p->id && pr->pid == (pid_t)p->pid;
		if (known)
			st = pr->wait;
	}
	if (!known)
		return otherwise;
	if (WIFEXITED(st)) {
		snprintf(buf, len, "exited with status %d without stopping tracing",
			 WEXITSTATUS(st));
		return buf;
	}
	if (!WIFSIGNALED(st))
		return otherwise;
	sig = WTERMSIG(st);
	/* the signals of a fault, or of abort(): what a crash ends with */
	crash = sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
		sig == SIGABRT || sig == SIGTRAP || sig == SIGSYS;
	abbrev = sigabbrev_np(sig);
	if (abbrev)
		snprintf(buf, len, "%s SIG%s", crash ? "crashed with" : "killed by", abbrev);
	else
		snprintf(buf, len, "%s signal %d", crash ? "crashed with" : "killed by", sig);
	return buf;
}

void record_summary(struct record_run *r, uint64_t elapsed)
{
	int w = 8, from = 0;
	char bytes[32];

	for (int i = 0; i < r->nprov; i++) {
		int len = (int)strlen(r->prov[i].name);

		if (len > w)
			w = len;
		/* one left to another manager gave this trace nothing */
		from += r->prov[i].state != TRACEBUF_LIB_TRACEE_LEFT;
	}
	if (r->nprov) {
		fprintf(stderr, "%-*s %8s  %-11s %10s %8s %10s %8s\n", w, "PROVIDER",
			"PID", "STATE", "BYTES", "SAVES", "DROPPED", "WINDOWS");
	}
	for (int i = 0; i < r->nprov; i++) {
		const struct tracebuf_session_provider *p = &r->prov[i];
		char why[64];

		tbctl_fputs_safe(stderr, p->name, w);
		fprintf(stderr, " %8u  %-11s %10llu %8llu", p->pid,
			tbctl_tracee_state_name(p->state),
			(unsigned long long)p->bytes_written, (unsigned long long)p->saves);
		if (p->dropped_doubtful)
			fprintf(stderr, " %10s %8u", "?", p->drop_windows);
		else
			fprintf(stderr, " %10llu %8u", (unsigned long long)p->records_dropped,
				p->drop_windows);
		if (p->state == TRACEBUF_LIB_TRACEE_FAILED && p->error)
			fprintf(stderr, "  (%s)", strerror(-p->error));
		else if (p->state == TRACEBUF_LIB_TRACEE_LEFT)
			fprintf(stderr, "  (another manager's trace names it)");
		else if (p->crashed)
			fprintf(stderr, "  (%s)", record_gone_cause(r, i, "ended while tracing",
								    why, sizeof(why)));
		fputc('\n', stderr);
	}
	if (r->nfile)	/* --rotate */
		fprintf(stderr, "wrote %u files, %s %s %s: ", r->nfile + 1, r->o->output,
			r->nfile == 1 ? "and" : "...", r->out.path);
	else
		fprintf(stderr, "wrote %s: ", r->out.is_stdout ? "standard output" : r->o->output);
	fprintf(stderr, "%s from %d provider%s in %llu.%01llu s",
		tbctl_human_bytes(r->bytes, bytes, sizeof(bytes)),
		from, from == 1 ? "" : "s",
		(unsigned long long)(elapsed / NS_PER_SEC),
		(unsigned long long)(elapsed % NS_PER_SEC / (NS_PER_SEC / 10)));
	if (r->snapshots)
		fprintf(stderr, ", %u snapshot%s", r->snapshots, r->snapshots == 1 ? "" : "s");
	if (r->triggered)
		fprintf(stderr, ", stopped by alert '%s'", r->alert);
	else if (r->max_size_reached)
		fputs(", stopped at --max-size", stderr);
	else if (r->stop_requested)
		fputs(", stopped by '" TBCTL_PROG " stop'", stderr);
	else if (r->signo)
		fprintf(stderr, ", stopped by %s", strsignal(r->signo));
	fputc('\n', stderr);
}

/* A line on stderr that does not stop anything. */
static void record_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void record_warn(const char *fmt, ...)
{
	va_list ap;

	fputs(TBCTL_PROG ": warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Sets *status to @code unless an earlier cause set it. */
static void record_cause(int *status, int code)
{
	if (!*status)
		*status = code;
}

static bool record_has_provider(const struct record_run *r, const char *name)
{
	for (int i = 0; i < r->nprov; i++)
		if (!strcmp(r->prov[i].name, name))
			return true;
	return false;
}

/*
 * Is the trace what was asked?  A warning per thing that is missing;
 * returns 0 or the TBCTL_EXIT_* of the first cause (see the usage).
 */
int record_outcome(const struct record_run *r)
{
	const struct record_opts *o = r->o;
	int busy = 0, failed = 0, missing = 0, unknown = 0, traced = 0, left = 0, status = 0;
	uint64_t dropped = 0, windows = 0;
	int with_drops = 0;

	for (int i = 0; i < r->nprov; i++) {
		const struct tracebuf_session_provider *p = &r->prov[i];
		char name[sizeof(p->name)], why[64];
		const char *cause;

		tbctl_safe(p->name, name, sizeof(name));
		/* not this trace's to take: asked for by name elsewhere */
		if (p->state == TRACEBUF_LIB_TRACEE_LEFT) {
			left++;
			continue;
		}
		if (p->state == TRACEBUF_LIB_TRACEE_BUSY) {
			record_warn("provider '%s' (pid %u) was not traced: another manager "
				    "traces it", name, p->pid);
			busy++;
			continue;
		}
		if (p->state == TRACEBUF_LIB_TRACEE_FAILED) {
			if (p->error == -ESRCH)
				record_warn("provider '%s' (pid %u) exited before it could be "
					    "traced", name, p->pid);
			else if (p->error == -EDQUOT)
				record_warn("provider '%s' (pid %u) could not be traced: its user's "
					    "share of buffer memory is used up (module parameter "
					    "max_user_memory)", name, p->pid);
			else
				record_warn("provider '%s' (pid %u) could not be traced: %s",
					    name, p->pid, strerror(-p->error));
			failed++;
			continue;
		}
		traced++;
		if (p->error == -ETIMEDOUT) {
			record_warn("provider '%s' (pid %u) may be incomplete: it did not "
				    "start or stop in time", name, p->pid);
			failed++;
		} else if (p->error == -ETIME) {
			record_warn("provider '%s' (pid %u) is incomplete: it had stopped "
				    "waiting for its start when the start came, and what it "
				    "recorded before is missing", name, p->pid);
			failed++;
		} else if (p->error == -EPROTO) {
			record_warn("provider '%s' (pid %u) is incomplete: it broke the "
				    "tracing protocol and was terminated", name, p->pid);
			failed++;
		} else if (p->error == -EINVAL) {
			record_warn("provider '%s' (pid %u) may be incomplete: its buffer "
				    "did not check out, and only what did was kept", name,
				    p->pid);
			failed++;
		} else if (p->error) {
			record_warn("provider '%s' (pid %u) may be incomplete: %s", name,
				    p->pid, strerror(-p->error));
			failed++;
		}
		cause = p->crashed ? record_gone_cause(r, i, NULL, why, sizeof(why)) : NULL;
		if (p->bytes_rejected)
			record_warn("provider '%s' (pid %u): %llu bytes of its buffer were "
				    "not whole records that decode, and were left out%s%s%s%s",
				    name, p->pid, (unsigned long long)p->bytes_rejected,
				    p->crashed ? " (it ended while tracing" : "",
				    cause ? ": " : "", cause ? cause : "", p->crashed ? ")" : "");
		if (p->dropped_doubtful)
			record_warn("provider '%s' (pid %u): its header claims %llu records "
				    "dropped, more than it could have dropped: not counted",
				    name, p->pid, (unsigned long long)p->records_dropped);
		dropped += record_dropped(p);
		windows += p->drop_windows;
		with_drops += record_dropped(p) != 0;
	}
	for (size_t i = 0; i < o->nproviders; i++) {
		if (record_has_provider(r, o->providers[i]))
			continue;
		record_warn("-p %s: no provider of that name registered", o->providers[i]);
		missing++;
	}
	for (size_t i = 0; i < o->noverrides; i++)
		if (!record_has_provider(r, o->overrides[i].name))
			record_warn("-b %s:...: no provider of that name registered",
				    o->overrides[i].name);
	if (!traced && !busy && !failed && !left)
		record_warn("no provider was traced: none %sregistered (a program that "
			    "started before the module was loaded is not one)",
			    o->nproviders ? "of those names " : "");
	for (size_t i = 0; traced && i < o->ncategories; i++) {
		if (r->cat_known && r->cat_known[i])
			continue;
		/* a dropped record may have been its first event: not a typo then */
		if (dropped) {
			record_warn("-c %s: no event of this category is in the trace, and "
				    "no provider published it; some of the dropped records "
				    "may have been in it", o->categories[i]);
			continue;
		}
		record_warn("-c %s: no traced provider knows this category (none "
			    "published it or wrote an event in it)", o->categories[i]);
		unknown++;
	}
	/* streaming drops when a half fills before the other is saved */
	if (dropped)
		record_warn("%llu records dropped by %d provider%s (%llu drop window%s in "
			    "the trace): %s", (unsigned long long)dropped, with_drops,
			    with_drops == 1 ? "" : "s", (unsigned long long)windows,
			    windows == 1 ? "" : "s", o->mode == TRACEBUF_MODE_STREAMING ?
			    "a larger buffer (-b) gives the saves more time" :
			    "a larger buffer (-b) or -m streaming keeps more");
	if (r->snapshots_failed)
		record_warn("%u of the snapshots the triggers asked for failed or lack a "
			    "provider's data (see above)", r->snapshots_failed);
	if (busy)
		record_cause(&status, TBCTL_EXIT_BUSY);
	if (failed)
		record_cause(&status, TBCTL_EXIT_FAILED);
	if (missing)
		record_cause(&status, TBCTL_EXIT_NO_PROVIDER);
	if (!traced && !left)
		record_cause(&status, TBCTL_EXIT_EMPTY);
	if (unknown)
		record_cause(&status, TBCTL_EXIT_CATEGORY);
	if (r->snapshots_failed)
		record_cause(&status, TBCTL_EXIT_SNAPSHOT);
	return status;
}

/* What record exits with, for what happened so far (see record_run()). */
int record_status_of(const struct record_run *r, int ret, int outcome)
{
	if (ret)
		return ret > 0 ? ret : 1;
	if (outcome && !(r->o->present & TBCTL_OPT_BEST_EFFORT))
		return outcome;
	return r->child_exited ? r->child_status : 0;
}
