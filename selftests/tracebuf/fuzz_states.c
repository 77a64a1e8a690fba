// SPDX-License-Identifier: GPL-2.0
/*
 * The state-directed fuzzer: the uapi header's state table is the oracle.
 *
 * scripts/model-uapi.sh --c turns the table at the top of
 * uapi/linux/tracebuf.h (request / legal in / effect, and its refusals)
 * into tb_uapi_table.h at build time: the same table the model of the
 * protocol checks itself against (make model).  This program drives a
 * provider and a manager through the table's own transitions into each
 * state and makes each request of the table there, again and again,
 * choosing each time a (state, request) pair made least so far and a
 * path to its state, until every pair has been made TB_FUZZ_STATE_MIN
 * times.  Each answer of the module is checked against the table:
 *
 *  - the return value: success where the request is legal (and what it
 *    answers is outstanding), else the table's errno for that state;
 *  - the state after it, as the manager (LIST) and the provider
 *    (GET_CONFIG) see it: the effect's "-> STATE", or unchanged;
 *  - the messages: exactly one to each side the effect tells (the
 *    provider's packet, the manager's message with the state after it),
 *    none for a refusal.
 *
 * A request that answers something outstanding (BUFFER_SAVED,
 * SNAPSHOT_TAKEN, CATEGORIES_APPLIED) is made with and without a match:
 * the fuzzer makes the request it answers first where the table allows
 * it, and answers each at once, so nothing stays outstanding and the
 * state alone decides every other answer, but for the buffering mode:
 * INITIALIZE asks streaming mode half the time, where SAVE_BUFFER is
 * legal, else circular or oneshot, where the table's refusal of it
 * outside streaming mode applies; and buffers of 1 to 8 times the
 * smallest size.
 *
 * It prints the table of counts, state by request, with the
 * disagreements beside them.  Last, the oracle checks itself: for a few
 * pairs in turn, it makes that pair alone with a copy of the table whose
 * entry for it says otherwise (refused, or with another errno; going to
 * another state; telling the manager or not), and each try must
 * disagree, at that pair only.
 *
 * On a kernel with KCOV (/sys/kernel/debug/kcov, and the module built
 * with KCOV_INSTRUMENT: check.sh --coverage), a 64-bit build also counts
 * the module's code it reaches: the distinct PCs and edges (pairs of
 * PCs in a row) after 1, 2, 4, ... requests, and the request that found
 * the last new edge, so that a run says when it stopped finding new
 * paths.
 *
 * Environment: TB_FUZZ_STATE_MIN (each pair at least, default 100),
 * TB_FUZZ_SEED (default: from the clock; printed).
 */
#define _GNU_SOURCE
#define TB_NO_HARNESS
#include "tracebuf_selftests.h"
#include "../kselftest.h"
#include "tb_uapi_table.h"

#define SF_STATES	(TB_UAPI_STATE_MAX + 1)
#define SF_BAD_MAX	20	/* disagreements described */
#define SF_ALTER_PAIRS	9	/* altered entries the oracle must catch */
#define SF_ALTER_TRIES	5	/* tries of each */
#define SF_WALK_PCT	25	/* a random legal step instead of the shortest */

#if __SIZEOF_LONG__ == 8
#include <linux/kcov.h>
#define SF_KCOV		"/sys/kernel/debug/kcov"
#define SF_KCOV_WORDS	(256 * 1024)	/* PCs one request may leave */
#define SF_KCOV_BITS	18		/* 2^18 PCs, as many edges */
#endif

/* The module's code reached: distinct PCs and edges (sets of hashes). */
struct sf_kcov {
	int fd;
	unsigned long *area;
	__u64 *pcs, *edges;
	unsigned long npcs, nedges;
	unsigned long last_new;		/* the request that found an edge */
	unsigned long report;		/* the next count of requests to print at */
};

struct sf {
	struct tb_uapi_row table[TB_UAPI_NREQ];	/* the oracle */
	__u64 rng;
	int prov, mgr;		/* mgr: the provider's owner, if it has one */
	int mgr2;		/* another manager */
	bool other;		/* the request at hand is mgr2's */
	__u32 id;
	int state;		/* the provider's, by the table */
	__u32 mode, init_mode;	/* its buffer's (TRACEBUF_MODE_*), asked */
	__u64 size, init_size;
	/* outstanding, and what answers it */
	bool save, snap, update;
	__u32 save_wrapped, gen;
	__u64 save_end;
	struct tb_cats cats;
	unsigned long count[TB_UAPI_NREQ][SF_STATES];
	unsigned long bad[TB_UAPI_NREQ][SF_STATES];
	unsigned long nbad, nmsg, steps;	/* disagreeing requests */
	char bad_msg[SF_BAD_MAX][240];
	bool quiet;		/* the self-check: no descriptions */
	bool setup_failed;
	struct sf_kcov *kcov;	/* or NULL */
};

static __u64 sf_rand(struct sf *f)
{
	return tb_splitmix64(&f->rng);
}

static unsigned int sf_below(struct sf *f, unsigned int n)
{
	return n ? (unsigned int)(sf_rand(f) % n) : 0;
}

static bool sf_in(unsigned int mask, int s)
{
	return s >= 0 && s < 32 && (mask >> s) & 1;
}

/* ------------------------------------------------------------------ */
/* The oracle                                                         */

struct sf_answer {
	int err;		/* 0, an errno, or -1: the table has none */
	int state;		/* after it */
	unsigned int tells;	/* TB_UAPI_TELLS_* */
};

/*
 * What the table says request @r gets in state @s: @matched, what it
 * answers is outstanding and equal (for the requests that answer one).
 */
static struct sf_answer sf_expect(const struct sf *f, int r, int s, bool matched)
{
	const struct tb_uapi_row *row = &f->table[r];
	struct sf_answer a = { -1, s, 0 };
	int i;

	if (sf_in(row->legal, s)) {
		if (row->unmatched_err && !matched) {
			a.err = row->unmatched_err;
			return a;
		}
		if (row->unstreamed_err && f->mode != TRACEBUF_MODE_STREAMING) {
			a.err = row->unstreamed_err;
			return a;
		}
		for (i = 0; i < TB_UAPI_RULES_MAX; i++) {
			if (sf_in(row->ok[i].states, s)) {
				a.err = 0;
				a.state = row->ok[i].next ? row->ok[i].next : s;
				a.tells = row->ok[i].tells;
				break;
			}
		}
		return a;
	}
	for (i = 0; i < TB_UAPI_RULES_MAX; i++) {
		if (sf_in(row->refused[i].states, s)) {
			a.err = row->refused[i].err;
			break;
		}
	}
	return a;
}

/*
 * A provider has an owner from the INITIALIZE that takes it until it is
 * back in REGISTERED: messages of its closing go to that owner only
 * ("manager told", "each provider it owned").
 */
static bool sf_owned(const struct sf *f, int s)
{
	return !sf_in(f->table[TB_UAPI_mgr_INITIALIZE].legal, s);
}

static void sf_disagree(struct sf *f, int r, int s, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void sf_disagree(struct sf *f, int r, int s, const char *fmt, ...)
{
	va_list ap;
	char what[160];

	if (f->quiet || f->nmsg >= SF_BAD_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(f->bad_msg[f->nmsg++], sizeof(f->bad_msg[0]),
		 "%s in %s (step %lu): %s", f->table[r].name,
		 tb_uapi_state_names[s], f->steps, what);
}

static const char *sf_err_name(int err)
{
	const char *n = err > 0 ? strerrorname_np(err) : NULL;

	return err == 0 ? "success" : err < 0 ? "(none in the table)" : n ? n : "?";
}

/* ------------------------------------------------------------------ */
/* The pair                                                           */

static void sf_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Records waiting on @fd, read: packets for a provider, else messages. */
static int sf_read_all(int fd, bool provider, void *first, size_t len)
{
	struct tracebuf_mgr_msg msg;
	struct tracebuf_pkt pkt;
	int n = 0;

	for (;;) {
		if (provider) {
			if (tb_read_pkt(fd, &pkt, 0))
				break;
			if (!n && first)
				memcpy(first, &pkt, len);
		} else {
			if (tb_read_msg(fd, &msg, 0))
				break;
			if (msg.type == TRACEBUF_MSG_REGISTRY)
				continue;
			if (!n && first)
				memcpy(first, &msg, len);
		}
		n++;
	}
	return n;
}

static int sf_new_provider(struct sf *f)
{
	f->prov = tb_open_provider("fuzz-states", &f->id);
	if (f->prov < 0)
		return f->prov;
	f->state = TRACEBUF_STATE_REGISTERED;
	f->mode = TRACEBUF_MODE_STREAMING;
	f->save = f->snap = f->update = false;
	return 0;
}

static int sf_new_manager(struct sf *f)
{
	f->mgr = tb_open_manager(0, NULL);
	return f->mgr < 0 ? f->mgr : 0;
}

/* A fresh pair: a provider in REGISTERED, a manager, empty inboxes. */
static int sf_reset(struct sf *f)
{
	int ret;

	sf_close(&f->prov);
	sf_close(&f->mgr);
	sf_close(&f->mgr2);
	f->mgr2 = tb_open_manager(0, NULL);
	ret = f->mgr2 < 0 ? f->mgr2 : sf_new_manager(f);
	if (!ret)
		ret = sf_new_provider(f);
	if (ret) {
		f->setup_failed = true;
		return ret;
	}
	sf_read_all(f->mgr, false, NULL, 0);
	sf_read_all(f->mgr2, false, NULL, 0);
	return 0;
}

static bool sf_is_mgr(const struct sf *f, int r)
{
	return !strncmp(f->table[r].name, "mgr_", 4);
}

/* The packet the provider gets from each request that tells it. */
static __u16 sf_pkt_told(int r)
{
	switch (r) {
	case TB_UAPI_mgr_INITIALIZE: return TRACEBUF_PKT_INITIALIZE;
	case TB_UAPI_mgr_START: return TRACEBUF_PKT_START;
	case TB_UAPI_mgr_STOP: return TRACEBUF_PKT_STOP;
	case TB_UAPI_mgr_TERMINATE: return TRACEBUF_PKT_TERMINATE;
	case TB_UAPI_mgr_BUFFER_SAVED: return TRACEBUF_PKT_BUFFER_SAVED;
	case TB_UAPI_mgr_SNAPSHOT: return TRACEBUF_PKT_SNAPSHOT;
	case TB_UAPI_mgr_START_F_UPDATE: return TRACEBUF_PKT_CATEGORIES;
	case TB_UAPI_manager_closes_its_file: return TRACEBUF_PKT_MANAGER_GONE;
	}
	return 0;
}

/* The message type and packet the manager gets from each that tells it. */
static __u16 sf_msg_told(int r, __u16 *request)
{
	*request = 0;
	switch (r) {
	case TB_UAPI_pkt_STARTED: *request = TRACEBUF_PKT_STARTED; break;
	case TB_UAPI_pkt_STOPPED: *request = TRACEBUF_PKT_STOPPED; break;
	case TB_UAPI_pkt_SAVE_BUFFER: *request = TRACEBUF_PKT_SAVE_BUFFER; break;
	case TB_UAPI_pkt_ALERT: *request = TRACEBUF_PKT_ALERT; break;
	case TB_UAPI_pkt_SNAPSHOT_TAKEN: *request = TRACEBUF_PKT_SNAPSHOT_TAKEN; break;
	case TB_UAPI_pkt_CATEGORIES_APPLIED:
		*request = TRACEBUF_PKT_CATEGORIES_APPLIED;
		break;
	case TB_UAPI_provider_RELEASE: return TRACEBUF_MSG_TERMINATED;
	case TB_UAPI_provider_closes_its_file: return TRACEBUF_MSG_GONE;
	default: return 0;
	}
	return TRACEBUF_MSG_PACKET;
}

/* The request that makes what @r answers outstanding, or -1. */
static int sf_asker(int r)
{
	switch (r) {
	case TB_UAPI_mgr_BUFFER_SAVED: return TB_UAPI_pkt_SAVE_BUFFER;
	case TB_UAPI_pkt_SNAPSHOT_TAKEN: return TB_UAPI_mgr_SNAPSHOT;
	case TB_UAPI_pkt_CATEGORIES_APPLIED: return TB_UAPI_mgr_START_F_UPDATE;
	}
	return -1;
}

static int sf_answerer(int r)
{
	for (int a = 0; a < TB_UAPI_NREQ; a++) {
		if (sf_asker(a) == r)
			return a;
	}
	return -1;
}

static bool sf_outstanding(const struct sf *f, int answerer)
{
	switch (answerer) {
	case TB_UAPI_mgr_BUFFER_SAVED: return f->save;
	case TB_UAPI_pkt_SNAPSHOT_TAKEN: return f->snap;
	case TB_UAPI_pkt_CATEGORIES_APPLIED: return f->update;
	}
	return false;
}

/* Make request @r; 0 or -errno.  @matched: answer what is outstanding. */
static int sf_make(struct sf *f, int r, bool matched)
{
	__u64 durable = tracebuf_layout_durable_size(f->size, f->mode);
	__u64 rolling = tracebuf_layout_rolling_size(f->size, f->mode);
	struct tracebuf_start_args sa;
	struct tracebuf_pkt p;
	int ret, bfd, m = f->other ? f->mgr2 : f->mgr;

	switch (r) {
	case TB_UAPI_mgr_INITIALIZE:
		/* streaming half the time (always for the self-check) */
		f->init_mode = f->quiet || sf_below(f, 2) ? TRACEBUF_MODE_STREAMING :
			       sf_below(f, 2) ? TRACEBUF_MODE_CIRCULAR :
			       TRACEBUF_MODE_ONESHOT;
		f->init_size = (1 + sf_below(f, 8)) * tb_buffer_min();
		ret = mgr_initialize(m, f->id, f->init_mode, f->init_size,
				     sf_below(f, 2) ? &f->cats : NULL, &bfd);
		if (!ret)
			close(bfd);
		return ret;
	case TB_UAPI_mgr_START:
		return mgr_start(m, f->id, 1 + sf_below(f, 3),
				 sf_below(f, 2) ? &f->cats : NULL);
	case TB_UAPI_pkt_STARTED:
		return provider_started(f->prov);
	case TB_UAPI_mgr_STOP:
		return mgr_stop(m, f->id);
	case TB_UAPI_pkt_STOPPED:
		return provider_stopped(f->prov);
	case TB_UAPI_pkt_SAVE_BUFFER:
		f->save_wrapped = sf_below(f, 1000);
		f->save_end = (__u64)sf_below(f, (unsigned int)(durable / 8 + 1)) * 8;
		return provider_send(f->prov, TRACEBUF_PKT_SAVE_BUFFER, 0,
				     f->save_wrapped, f->save_end);
	case TB_UAPI_mgr_BUFFER_SAVED:
		if (matched)
			return mgr_buffer_saved(m, f->id, f->save_wrapped,
						f->save_end);
		return mgr_buffer_saved(m, f->id, f->save_wrapped + 1,
					f->save_end);
	case TB_UAPI_pkt_ALERT:
		return provider_alert(f->prov, "fz");
	case TB_UAPI_mgr_SNAPSHOT:
		p = tb_pkt(TRACEBUF_PKT_SNAPSHOT, 0, 0, 0);
		return mgr_send(m, f->id, &p);
	case TB_UAPI_pkt_SNAPSHOT_TAKEN:
		return provider_send(f->prov, TRACEBUF_PKT_SNAPSHOT_TAKEN, 0,
				     sf_below(f, 1000),
				     (__u64)sf_below(f, (unsigned int)(rolling / 8 + 1)) * 8);
	case TB_UAPI_mgr_START_F_UPDATE:
		tb_start_args(&sa, f->id, 0, sf_below(f, 2) ? &f->cats : NULL);
		sa.flags = TRACEBUF_START_F_UPDATE;
		return tb_ioctl(m, TRACEBUF_IOC_MGR_START, &sa);
	case TB_UAPI_pkt_CATEGORIES_APPLIED:
		return provider_send(f->prov, TRACEBUF_PKT_CATEGORIES_APPLIED, 0,
				     matched ? f->gen : f->gen + 1, 0);
	case TB_UAPI_mgr_TERMINATE:
		return mgr_terminate(m, f->id);
	case TB_UAPI_provider_RELEASE:
		return provider_release(f->prov);
	case TB_UAPI_provider_closes_its_file:
		return close(f->prov) ? -errno : 0;
	case TB_UAPI_manager_closes_its_file:
		return close(f->mgr) ? -errno : 0;
	}
	return -ENOSYS;
}

/* ------------------------------------------------------------------ */
/* KCOV                                                               */

#ifdef SF_KCOV
static struct sf_kcov *sf_kcov_open(void)
{
	static struct sf_kcov k;
	size_t set = sizeof(__u64) << SF_KCOV_BITS;

	k.fd = open(SF_KCOV, O_RDWR | O_CLOEXEC);
	if (k.fd < 0)
		return NULL;
	if (ioctl(k.fd, KCOV_INIT_TRACE, SF_KCOV_WORDS))
		goto fail;
	k.area = mmap(NULL, SF_KCOV_WORDS * sizeof(unsigned long),
		      PROT_READ | PROT_WRITE, MAP_SHARED, k.fd, 0);
	k.pcs = calloc(1, set);
	k.edges = calloc(1, set);
	if (k.area == MAP_FAILED || !k.pcs || !k.edges ||
	    ioctl(k.fd, KCOV_ENABLE, KCOV_TRACE_PC))
		goto fail;
	k.report = 1;
	return &k;
fail:
	ksft_print_msg("kcov: %s: %s\n", SF_KCOV, strerror(errno));
	close(k.fd);
	return NULL;
}

/* Add @key (not 0) to a set: true when it is new. */
static bool sf_kcov_add(__u64 *set, __u64 key)
{
	unsigned int mask = (1u << SF_KCOV_BITS) - 1;
	unsigned int i = (unsigned int)((key * 0x9e3779b97f4a7c15ULL) >> (64 - SF_KCOV_BITS));

	for (unsigned int n = 0; n <= mask; n++, i = (i + 1) & mask) {
		if (set[i] == key)
			return false;
		if (!set[i]) {
			set[i] = key;
			return true;
		}
	}
	return false;	/* full: counted as seen */
}

static void sf_kcov_begin(struct sf_kcov *k)
{
	__atomic_store_n(&k->area[0], 0, __ATOMIC_RELAXED);
}

/* The PCs the last request left; @steps: requests so far. */
static void sf_kcov_end(struct sf_kcov *k, unsigned long steps)
{
	unsigned long n = __atomic_load_n(&k->area[0], __ATOMIC_RELAXED);
	__u64 prev = 0;

	if (n >= SF_KCOV_WORDS)
		n = SF_KCOV_WORDS - 1;
	for (unsigned long i = 1; i <= n; i++) {
		__u64 pc = k->area[i];

		k->npcs += sf_kcov_add(k->pcs, pc);
		if (sf_kcov_add(k->edges, ((prev * 0xff51afd7ed558ccdULL) ^ pc) | 1)) {
			k->nedges++;
			k->last_new = steps;
		}
		prev = pc;
	}
	if (steps >= k->report) {
		ksft_print_msg("kcov: after %lu requests, %lu PCs and %lu edges of the module\n",
			       steps, k->npcs, k->nedges);
		k->report *= 2;
	}
}
#else
static struct sf_kcov *sf_kcov_open(void)
{
	return NULL;
}

static void sf_kcov_begin(struct sf_kcov *k)
{
	(void)k;
}

static void sf_kcov_end(struct sf_kcov *k, unsigned long steps)
{
	(void)k;
	(void)steps;
}
#endif

/* A manager's request of the table, at random. */
static int sf_gone_request(struct sf *f)
{
	int q;

	do {
		q = (int)sf_below(f, TB_UAPI_NREQ);
	} while (!sf_is_mgr(f, q));
	return q;
}

/*
 * Make request @r in the current state and check the module's answer
 * against the table.  A disagreement ends the pair (a fresh one goes
 * on): the table no longer says where it stands.  Returns whether the
 * answer agreed.  With f->other, the other manager makes it: on a
 * provider the first one owns, it is refused (TB_UAPI_ERR_NOT_OWNER)
 * but for INITIALIZE, which the table answers.
 */
static bool sf_do_one(struct sf *f, int r, bool matched)
{
	int s = f->state, ret, ps, ms, n;
	struct sf_answer a;
	struct tracebuf_mgr_msg msg = { 0 };
	struct tracebuf_pkt pkt = { 0 };
	bool owned = sf_owned(f, s), ok = true;
	__u16 type, request;

	if (sf_asker(r) >= 0)
		matched = matched && sf_outstanding(f, r);
	a = sf_expect(f, r, s, matched);
	if (f->other && owned && r != TB_UAPI_mgr_INITIALIZE)
		a = (struct sf_answer){ TB_UAPI_ERR_NOT_OWNER, s, 0 };
	f->steps++;
	f->count[r][s]++;
	ret = sf_make(f, r, matched);
	if (f->other && !ret) {
		/* it took the provider: the owner now */
		int m = f->mgr;

		f->mgr = f->mgr2;
		f->mgr2 = m;
	}
	if (r == TB_UAPI_provider_closes_its_file)
		f->prov = -1;
	if (r == TB_UAPI_manager_closes_its_file)
		f->mgr = -1;

	if (a.err < 0) {
		sf_disagree(f, r, s, "the table has no answer; the module's: %s",
			    sf_err_name(-ret));
		ok = false;
	} else if (-ret != a.err) {
		sf_disagree(f, r, s, "%s, the table says %s", sf_err_name(-ret),
			    sf_err_name(a.err));
		ok = false;
	}
	/* the closes tell the owner only; a refusal tells nobody */
	if (ret || ((r == TB_UAPI_provider_closes_its_file ||
		     r == TB_UAPI_manager_closes_its_file) && !owned))
		a.tells = 0;
	if (a.err != 0)
		a.state = s;

	/* what each side was told */
	if (r == TB_UAPI_manager_closes_its_file && sf_new_manager(f)) {
		f->setup_failed = true;
		return false;
	}
	if (f->prov >= 0) {
		n = sf_read_all(f->prov, true, &pkt, sizeof(pkt));
		if (n != !!(a.tells & TB_UAPI_TELLS_PROVIDER)) {
			sf_disagree(f, r, s, "the provider got %d packets, the table says %d",
				    n, !!(a.tells & TB_UAPI_TELLS_PROVIDER));
			ok = false;
		} else if (n && pkt.request != sf_pkt_told(r)) {
			sf_disagree(f, r, s, "the provider got packet %#x, not %#x",
				    pkt.request, sf_pkt_told(r));
			ok = false;
		} else if (n && r == TB_UAPI_mgr_START_F_UPDATE) {
			f->gen = pkt.data32;
		}
	}
	n = sf_read_all(f->mgr2, false, NULL, 0);
	if (n) {
		sf_disagree(f, r, s, "the manager that does not own it got %d messages", n);
		ok = false;
	}
	n = sf_read_all(f->mgr, false, &msg, sizeof(msg));
	type = sf_msg_told(r, &request);
	if (n != !!(a.tells & TB_UAPI_TELLS_MANAGER)) {
		sf_disagree(f, r, s, "the manager got %d messages, the table says %d",
			    n, !!(a.tells & TB_UAPI_TELLS_MANAGER));
		ok = false;
	} else if (n && (msg.type != type || msg.provider_id != f->id ||
			 (type == TRACEBUF_MSG_PACKET && msg.pkt.request != request))) {
		sf_disagree(f, r, s, "the manager got message %u (packet %#x) of %u, not %u (%#x) of %u",
			    msg.type, msg.pkt.request, msg.provider_id, type,
			    request, f->id);
		ok = false;
	} else if (n && msg.state != a.state) {
		sf_disagree(f, r, s, "the manager's message says %s, the table %s",
			    msg.state <= TB_UAPI_STATE_MAX ?
			    tb_uapi_state_names[msg.state] : "?",
			    tb_uapi_state_names[a.state]);
		ok = false;
	}

	/*
	 * the state after it, as each side sees it; a closed provider is
	 * gone: a manager's request on it is refused (TB_UAPI_ERR_UNSEEN)
	 */
	if (r == TB_UAPI_provider_closes_its_file) {
		int q = sf_gone_request(f), gone;

		ms = mgr_state(f->mgr, f->id);
		if (ms != -ESRCH) {
			sf_disagree(f, r, s, "the manager still lists it (%d)", ms);
			ok = false;
		}
		gone = sf_make(f, q, false);
		if (-gone != TB_UAPI_ERR_UNSEEN) {
			sf_disagree(f, r, s, "%s on it after: %s, the uapi says %s",
				    f->table[q].name, sf_err_name(-gone),
				    sf_err_name(TB_UAPI_ERR_UNSEEN));
			ok = false;
		}
		if (sf_new_provider(f)) {
			f->setup_failed = true;
			return false;
		}
		sf_read_all(f->mgr, false, NULL, 0);
	} else {
		ps = provider_state(f->prov);
		ms = mgr_state(f->mgr, f->id);
		if (ps != a.state || ms != a.state) {
			sf_disagree(f, r, s, "in %s (provider) and %s (manager), the table says %s",
				    ps > 0 && ps <= TB_UAPI_STATE_MAX ?
				    tb_uapi_state_names[ps] : "?",
				    ms > 0 && ms <= TB_UAPI_STATE_MAX ?
				    tb_uapi_state_names[ms] : "?",
				    tb_uapi_state_names[a.state]);
			ok = false;
		}
		f->state = a.state;
	}
	if (!ok) {
		f->bad[r][s]++;
		f->nbad++;
		sf_reset(f);
		return false;
	}
	/* what is outstanding now */
	if (!ret) {
		switch (r) {
		case TB_UAPI_mgr_INITIALIZE:
			f->mode = f->init_mode;
			f->size = f->init_size;
			break;
		case TB_UAPI_pkt_SAVE_BUFFER: f->save = true; break;
		case TB_UAPI_mgr_BUFFER_SAVED: f->save = false; break;
		case TB_UAPI_mgr_SNAPSHOT: f->snap = true; break;
		case TB_UAPI_pkt_SNAPSHOT_TAKEN: f->snap = false; break;
		case TB_UAPI_mgr_START_F_UPDATE: f->update = true; break;
		case TB_UAPI_pkt_CATEGORIES_APPLIED: f->update = false; break;
		}
	}
	return true;
}

/*
 * sf_do_one(), and what of the module it reached (checks included).  A
 * manager's request that answers nothing outstanding is now and then the
 * other manager's.
 */
static bool sf_do(struct sf *f, int r, bool matched)
{
	bool ok;

	f->other = !f->quiet && !matched && sf_is_mgr(f, r) && !sf_below(f, 4);
	if (f->kcov)
		sf_kcov_begin(f->kcov);
	ok = sf_do_one(f, r, matched);
	if (f->kcov)
		sf_kcov_end(f->kcov, f->steps);
	return ok;
}

/*
 * Request @r in the current state, with what it answers made outstanding
 * first where the table allows it, and whatever it made outstanding
 * answered at once (a wrong answer first, sometimes).
 */
static void sf_try(struct sf *f, int r)
{
	int asker = sf_asker(r), answerer = sf_answerer(r);

	if (asker >= 0 && sf_in(f->table[asker].legal, f->state) && sf_below(f, 2)) {
		if (!sf_do(f, asker, false))
			return;
		answerer = r;
	} else if (!sf_do(f, r, false)) {
		return;
	}
	if (answerer < 0 || !sf_outstanding(f, answerer))
		return;
	/* a SNAPSHOT_TAKEN answers any SNAPSHOT: no wrong one */
	if (answerer != TB_UAPI_pkt_SNAPSHOT_TAKEN && sf_below(f, 2) &&
	    !sf_do(f, answerer, false))
		return;
	sf_do(f, answerer, true);
}

/* ------------------------------------------------------------------ */
/* Driving                                                            */

/*
 * One step toward state @to by the table's transitions (the legal
 * requests that change the state): the first of a shortest path, ties
 * broken at random, or now and then any legal transition.  -1: there is
 * no path.
 */
static int sf_step_toward(struct sf *f, int to)
{
	int first[SF_STATES], queue[SF_STATES], head = 0, tail = 0;
	int order[TB_UAPI_NREQ], cand[TB_UAPI_NREQ], ncand = 0;
	struct sf_answer a;

	for (int i = 0; i < TB_UAPI_NREQ; i++)
		order[i] = i;
	for (int i = TB_UAPI_NREQ - 1; i > 0; i--) {
		int j = (int)sf_below(f, (unsigned int)i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (int i = 0; i < TB_UAPI_NREQ; i++) {
		a = sf_expect(f, order[i], f->state, true);
		if (!a.err && a.state != f->state)
			cand[ncand++] = order[i];
	}
	if (ncand && sf_below(f, 100) < SF_WALK_PCT)
		return cand[sf_below(f, (unsigned int)ncand)];

	for (int s = 0; s < SF_STATES; s++)
		first[s] = -2;
	first[f->state] = -1;
	queue[tail++] = f->state;
	while (head < tail) {
		int s = queue[head++];

		if (s == to)
			return first[s];
		for (int i = 0; i < TB_UAPI_NREQ; i++) {
			a = sf_expect(f, order[i], s, true);
			if (a.err || a.state == s || a.state < 0 ||
			    a.state >= SF_STATES || first[a.state] != -2)
				continue;
			first[a.state] = first[s] == -1 ? order[i] : first[s];
			queue[tail++] = a.state;
		}
	}
	return -1;
}

/* Get to state @to; false when there is no way there. */
static bool sf_goto(struct sf *f, int to)
{
	for (int steps = 0; f->state != to; steps++) {
		int r = sf_step_toward(f, to);

		if (r < 0 || steps > 100 || f->setup_failed)
			return false;
		sf_do(f, r, true);
	}
	return true;
}

/* A pair made least so far, picked at random among them; false: none. */
static bool sf_pick(struct sf *f, const bool *want, int *r, int *s)
{
	unsigned long least = ~0UL;
	unsigned int n = 0, k;

	for (int i = 0; i < TB_UAPI_NREQ; i++)
		for (int t = TB_UAPI_STATE_MIN; t <= TB_UAPI_STATE_MAX; t++)
			if (want[i * SF_STATES + t] && f->count[i][t] < least)
				least = f->count[i][t];
	if (least == ~0UL)
		return false;
	for (int i = 0; i < TB_UAPI_NREQ; i++)
		for (int t = TB_UAPI_STATE_MIN; t <= TB_UAPI_STATE_MAX; t++)
			n += want[i * SF_STATES + t] && f->count[i][t] == least;
	k = sf_below(f, n);
	for (int i = 0; i < TB_UAPI_NREQ; i++) {
		for (int t = TB_UAPI_STATE_MIN; t <= TB_UAPI_STATE_MAX; t++) {
			if (!want[i * SF_STATES + t] || f->count[i][t] != least)
				continue;
			if (!k--) {
				*r = i;
				*s = t;
				return true;
			}
		}
	}
	return false;
}

/*
 * Make the wanted pairs until each was made @min times (or @max_steps
 * requests in all).  False when a pair's state cannot be reached.
 */
static bool sf_run(struct sf *f, const bool *want, unsigned long min,
		   unsigned long max_steps)
{
	int r, s;

	while (f->steps < max_steps && !f->setup_failed &&
	       sf_pick(f, want, &r, &s) && f->count[r][s] < min) {
		if (!sf_goto(f, s)) {
			if (f->setup_failed)
				return false;
			ksft_print_msg("no path to %s from %s in the table\n",
				       tb_uapi_state_names[s],
				       tb_uapi_state_names[f->state]);
			return false;
		}
		sf_try(f, r);
	}
	return !f->setup_failed;
}

static int sf_init(struct sf *f, __u64 seed)
{
	memset(f, 0, sizeof(*f));
	memcpy(f->table, tb_uapi_table, sizeof(f->table));
	f->rng = seed;
	f->prov = f->mgr = f->mgr2 = -1;
	f->size = tb_buffer_min();
	if (tb_cats_build(&f->cats, "a", "fuzz", NULL))
		return -ENOMEM;
	return sf_reset(f);
}

static void sf_fini(struct sf *f)
{
	sf_close(&f->prov);
	sf_close(&f->mgr);
	sf_close(&f->mgr2);
	tb_cats_free(&f->cats);
}

/* ------------------------------------------------------------------ */
/* The oracle's self-check                                            */

/*
 * Make the table say otherwise about request @r in state @s.  @kind 0:
 * refused there, with an errno it does not give there, matched or not;
 * 1: legal, going to another state; 2: legal, telling the manager or not
 * the other way.
 */
static void sf_alter(struct sf *f, int r, int s, int kind)
{
	static const int errs[] = { EINVAL, EPERM, EBUSY };
	struct tb_uapi_row *row = &f->table[r];
	struct sf_answer was = sf_expect(f, r, s, true);
	int unmatched = sf_expect(f, r, s, false).err;
	int i, j;

	if (kind == 0) {
		for (i = 0; errs[i] == was.err || errs[i] == unmatched; i++)
			;
		row->legal &= ~(1u << s);
		for (j = TB_UAPI_RULES_MAX - 1; j > 0; j--)
			row->refused[j] = row->refused[j - 1];
		row->refused[0].states = 1u << s;
		row->refused[0].err = errs[i];
		return;
	}
	for (j = TB_UAPI_RULES_MAX - 1; j > 0; j--)
		row->ok[j] = row->ok[j - 1];
	row->ok[0].states = 1u << s;
	row->ok[0].next = was.state;
	row->ok[0].tells = was.tells;
	if (kind == 1)
		row->ok[0].next = was.state % TB_UAPI_STATE_MAX + 1;
	else
		row->ok[0].tells ^= TB_UAPI_TELLS_MANAGER;
}

/* An entry of kind @kind (sf_alter()) that every try of it shows. */
static void sf_pick_alter(struct sf *f, struct sf *probe, int kind, int *r, int *s)
{
	for (;;) {
		*r = (int)sf_below(probe, TB_UAPI_NREQ);
		*s = TB_UAPI_STATE_MIN +
		     (int)sf_below(probe, TB_UAPI_STATE_MAX - TB_UAPI_STATE_MIN + 1);
		if (kind == 0)
			return;
		/*
		 * a success: not one that answers something (not always
		 * matched), nor a close that leaves nobody to see it
		 */
		if (!sf_in(f->table[*r].legal, *s) || f->table[*r].unmatched_err ||
		    *r == TB_UAPI_provider_closes_its_file ||
		    (*r == TB_UAPI_manager_closes_its_file && !sf_owned(f, *s)))
			continue;
		return;
	}
}

/* Each try of an altered entry disagrees, and nothing else does. */
static bool sf_self_check(__u64 seed, char *why, size_t len)
{
	static struct sf f;
	bool want[TB_UAPI_NREQ * SF_STATES];
	unsigned long caught = 0, tries = 0, elsewhere = 0;
	struct sf probe;

	probe.rng = seed ^ 0x5bd1e9955bd1e995ULL;
	for (int k = 0; k < SF_ALTER_PAIRS; k++) {
		static const char *const kinds[] = {
			"refused otherwise", "going elsewhere", "telling otherwise"
		};
		int r, s;

		if (sf_init(&f, sf_rand(&probe))) {
			snprintf(why, len, "setup failed");
			sf_fini(&f);
			return false;
		}
		f.quiet = true;
		sf_pick_alter(&f, &probe, k % 3, &r, &s);
		sf_alter(&f, r, s, k % 3);
		memset(want, 0, sizeof(want));
		want[r * SF_STATES + s] = true;
		if (!sf_run(&f, want, SF_ALTER_TRIES, 100000)) {
			snprintf(why, len, "cannot reach %s for %s with the altered table",
				 tb_uapi_state_names[s], f.table[r].name);
			sf_fini(&f);
			return false;
		}
		for (int i = 0; i < TB_UAPI_NREQ; i++) {
			for (int t = 0; t < SF_STATES; t++) {
				if (i == r && t == s)
					continue;
				elsewhere += f.bad[i][t];
			}
		}
		ksft_print_msg("altered %s in %s (%s): %lu of %lu tries caught\n",
			       f.table[r].name, tb_uapi_state_names[s], kinds[k % 3],
			       f.bad[r][s], f.count[r][s]);
		caught += f.bad[r][s];
		tries += f.count[r][s];
		sf_fini(&f);
	}
	snprintf(why, len, "%lu of %lu tries caught, %lu disagreements elsewhere",
		 caught, tries, elsewhere);
	return caught == tries && tries && !elsewhere;
}

/* ------------------------------------------------------------------ */

static unsigned long sf_env(const char *name, unsigned long def)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end)
		ksft_exit_fail_msg("%s=%s is not a number\n", name, s);
	return v;
}

static void sf_print_table(const struct sf *f)
{
	char line[512];
	int len;

	len = snprintf(line, sizeof(line), "%-26s", "request \\ state");
	for (int t = TB_UAPI_STATE_MIN; t <= TB_UAPI_STATE_MAX; t++)
		len += snprintf(line + len, sizeof(line) - len, " %11.11s",
				tb_uapi_state_names[t]);
	ksft_print_msg("%s\n", line);
	for (int i = 0; i < TB_UAPI_NREQ; i++) {
		len = snprintf(line, sizeof(line), "%-26s", f->table[i].name);
		for (int t = TB_UAPI_STATE_MIN; t <= TB_UAPI_STATE_MAX; t++) {
			char cell[32];

			if (f->bad[i][t])
				snprintf(cell, sizeof(cell), "%lu!%lu", f->count[i][t],
					 f->bad[i][t]);
			else
				snprintf(cell, sizeof(cell), "%lu", f->count[i][t]);
			len += snprintf(line + len, sizeof(line) - len, " %11s", cell);
		}
		ksft_print_msg("%s\n", line);
	}
	ksft_print_msg("(count!disagreements)\n");
}

int main(void)
{
	static struct sf f;
	static bool want[TB_UAPI_NREQ * SF_STATES];
	unsigned long min, least = ~0UL, total = 0;
	struct timespec t0, t1;
	char why[200];
	bool reached;
	__u64 seed;
	int fd, ret;

	ksft_print_header();
	ksft_set_plan(3);
	fd = open(TB_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		ksft_exit_skip("%s: %s\n", TB_DEV_PATH, strerror(errno));
	close(fd);
	if (geteuid())
		ksft_exit_skip("needs root (a manager)\n");
	min = sf_env("TB_FUZZ_STATE_MIN", 100);
	seed = sf_env("TB_FUZZ_SEED", 0);
	if (!seed) {
		clock_gettime(CLOCK_REALTIME, &t0);
		seed = (__u64)t0.tv_sec * 1000000007ULL ^ (__u64)t0.tv_nsec;
	}
	ksft_print_msg("seed %#llx, each of %d (state, request) pairs at least %lu times (TB_FUZZ_SEED=%#llx to repeat)\n",
		       (unsigned long long)seed,
		       TB_UAPI_NREQ * (TB_UAPI_STATE_MAX - TB_UAPI_STATE_MIN + 1),
		       min, (unsigned long long)seed);

	ret = sf_init(&f, seed);
	if (ret)
		ksft_exit_fail_msg("setup: %s\n", strerror(-ret));
	for (int i = 0; i < TB_UAPI_NREQ; i++)
		for (int t = TB_UAPI_STATE_MIN; t <= TB_UAPI_STATE_MAX; t++)
			want[i * SF_STATES + t] = true;
	f.kcov = sf_kcov_open();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	reached = sf_run(&f, want, min, 1000 * min * TB_UAPI_NREQ * SF_STATES);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	sf_fini(&f);

	sf_print_table(&f);
	for (int i = 0; i < TB_UAPI_NREQ; i++) {
		for (int t = TB_UAPI_STATE_MIN; t <= TB_UAPI_STATE_MAX; t++) {
			total += f.count[i][t];
			if (f.count[i][t] < least)
				least = f.count[i][t];
		}
	}
	ksft_print_msg("%lu requests in %.1f s; each pair at least %lu times\n",
		       f.steps, (double)(t1.tv_sec - t0.tv_sec) +
		       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, least);
	if (f.kcov)
		ksft_print_msg("kcov: %lu PCs and %lu edges of the module; the last new edge at request %lu of %lu\n",
			       f.kcov->npcs, f.kcov->nedges, f.kcov->last_new, f.steps);
	else
		ksft_print_msg("kcov: no (%s)\n", __SIZEOF_LONG__ == 8 ?
			       "no " "/sys/kernel/debug/kcov" : "a 32-bit build");
	ksft_test_result(reached && !f.setup_failed && least >= min,
			 "every (state, request) pair made at least %lu times (least %lu)\n",
			 min, least);
	for (unsigned long i = 0; i < f.nmsg; i++)
		ksft_print_msg("%s\n", f.bad_msg[i]);
	ksft_test_result(!f.nbad, "every answer as the table says (%lu not)\n",
			 f.nbad);
	ksft_test_result(sf_self_check(seed, why, sizeof(why)),
			 "an altered table entry is caught: %s\n", why);
	ksft_finished();
}
