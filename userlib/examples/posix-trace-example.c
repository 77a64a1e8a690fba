// SPDX-License-Identifier: MIT
/*
 * posix-trace-example: the three roles of the POSIX Trace API
 * (<trace.h>, libposixtrace), in one program.
 *
 *  - The trace controller (this process) creates a trace stream for a
 *    child process with a log (posix_trace_create_withlog), starts it,
 *    lets the child work, stops it and shuts it down.
 *  - The traced process (the child) needs nothing but its events:
 *    posix_trace_eventid_open() names the event types, posix_trace_event()
 *    records them with their data.
 *  - The trace analyzer (this process again) opens the log
 *    (posix_trace_open) and reads every event back (posix_trace_getnext_event),
 *    by type, in timestamp order.
 *
 *	posix-trace-example [-n REQUESTS] [-o LOG]
 *
 * The log (default posix-trace.fxt) is an FXT trace: tracebufctl dump,
 * tracebufctl report and the Perfetto UI open it.  Needs the tracebuf
 * module and a tracebuf manager's rights (root, CAP_PERFMON, or the
 * module's manager group).  Exits 0 when the log holds every request the
 * child made, 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <trace.h>

struct request {
	uint32_t seq;
	uint32_t bytes;
};

/* The traced process: a server handling requests. */
static int target(int go, int done, unsigned int requests)
{
	trace_event_id_t ev_request, ev_reply, ev_idle;
	char c;

	/*
	 * Wait for the stream: the first eventid_open makes this process a
	 * tracebuf provider, which a stream that names it gets, even under
	 * a "tracebufctl record" of every provider.
	 */
	if (read(go, &c, 1) != 1)
		return 2;
	/* Naming an event type makes this process traceable. */
	if (posix_trace_eventid_open("request", &ev_request) ||
	    posix_trace_eventid_open("reply", &ev_reply) ||
	    posix_trace_eventid_open("idle", &ev_idle))
		return 2;
	for (unsigned int i = 0; i < requests; i++) {
		struct request r = { .seq = i, .bytes = 512 + 64 * (i % 8) };
		char reply[32];
		int len = snprintf(reply, sizeof(reply), "ok %u", i);

		posix_trace_event(ev_request, &r, sizeof(r));
		posix_trace_event(ev_reply, reply, (size_t)len);
		if (i % 100 == 99)
			posix_trace_event(ev_idle, NULL, 0);
	}
	return write(done, "d", 1) == 1 ? 0 : 2;
}

/* The analyzer: every event of the log, counted by type. */
static int analyze(int fd, unsigned int requests)
{
	struct posix_trace_event_info info, first = { 0 };
	trace_event_id_t id, request = 0;
	struct request r;
	char name[TRACE_EVENT_NAME_MAX + 1];
	unsigned long counts[512] = { 0 }, total = 0;
	uint32_t next_seq = 0;
	int unavailable, ret, bad = 0;
	trace_attr_t attr;
	trace_id_t trid;
	size_t len;

	ret = posix_trace_open(fd, &trid);
	if (ret) {
		fprintf(stderr, "posix_trace_open: %s\n", strerror(ret));
		return 1;
	}
	if (!posix_trace_get_attr(trid, &attr) && !posix_trace_attr_getname(&attr, name))
		printf("log of stream \"%s\"\n", name);
	for (;;) {
		ret = posix_trace_getnext_event(trid, &info, &r, sizeof(r), &len, &unavailable);
		if (ret || unavailable)
			break;
		if (!total++)
			first = info;
		if (info.posix_event_id < 512)
			counts[info.posix_event_id]++;
		if (!posix_trace_eventid_get_name(trid, info.posix_event_id, name) &&
		    !strcmp(name, "request")) {
			request = info.posix_event_id;
			/* each request once, in order */
			if (len != sizeof(r) || r.seq != next_seq++)
				bad++;
		}
	}
	if (ret)
		fprintf(stderr, "posix_trace_getnext_event: %s\n", strerror(ret));
	printf("%lu events from pid %d, the first at %lld.%09ld s\n", total,
	       (int)first.posix_pid, (long long)first.posix_timestamp.tv_sec,
	       first.posix_timestamp.tv_nsec);
	posix_trace_eventtypelist_rewind(trid);
	while (!posix_trace_eventtypelist_getnext_id(trid, &id, &unavailable) && !unavailable)
		if (id < 512 && counts[id] &&
		    !posix_trace_eventid_get_name(trid, id, name))
			printf("  %-10s %8lu\n", name, counts[id]);
	posix_trace_close(trid);
	if (ret || bad || !request || counts[request] != requests) {
		fprintf(stderr, "posix-trace-example: the log does not hold the %u requests in order\n",
			requests);
		return 1;
	}
	return 0;
}

/* The controller failed: the target goes too, never left behind. */
static int fail(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return 2;
}

int main(int argc, char **argv)
{
	const char *log = "posix-trace.fxt";
	unsigned int requests = 1000;
	int go[2], done[2], fd, opt, ret, status;
	trace_attr_t attr;
	trace_id_t trid;
	pid_t pid;
	char c;

	while ((opt = getopt(argc, argv, "n:o:h")) != -1) {
		switch (opt) {
		case 'n':
			requests = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'o':
			log = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-n REQUESTS] [-o LOG]\n", argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (pipe(go) || pipe(done)) {
		perror("pipe");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (pid == 0) {
		/* the parent's ends: a parent that dies leaves an end of file */
		close(go[1]);
		close(done[0]);
		_exit(target(go[0], done[1], requests));
	}
	close(go[0]);
	close(done[1]);
	/* The controller: a stream of the child, with a log. */
	fd = open(log, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", log, strerror(errno));
		return fail(pid);
	}
	posix_trace_attr_init(&attr);
	posix_trace_attr_setname(&attr, "posix-trace-example");
	ret = posix_trace_create_withlog(pid, &attr, fd, &trid);
	if (!ret)
		ret = posix_trace_start(trid);
	if (ret) {
		fprintf(stderr, "posix_trace_create_withlog/start: %s\n", strerror(ret));
		return fail(pid);
	}
	if (write(go[1], "g", 1) != 1 || read(done[0], &c, 1) != 1)
		fprintf(stderr, "posix-trace-example: the target failed\n");
	ret = posix_trace_stop(trid);
	if (!ret)
		ret = posix_trace_shutdown(trid);
	if (ret)
		fprintf(stderr, "posix_trace_stop/shutdown: %s\n", strerror(ret));
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return 2;
	printf("wrote %s\n", log);
	/* The analyzer. */
	ret = analyze(fd, requests);
	close(fd);
	return ret;
}
