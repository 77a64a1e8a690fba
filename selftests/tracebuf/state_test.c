// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf provider state machine: every request of the table in
 * uapi/linux/tracebuf.h from every state, legal and illegal; Start/Stop
 * cycles; Terminate and Release; ownership between managers; the
 * REGISTER_F_SYNC hint; the configuration a provider reads back.
 */
#define _GNU_SOURCE
#include "tracebuf_selftests.h"

/* ------------------------------------------------------------------ */
/* The table                                                          */

enum tb_req {
	R_INITIALIZE, R_START, R_STOP, R_TERMINATE,	/* manager */
	R_STARTED, R_STOPPED, R_SAVE_BUFFER, R_ALERT,	/* provider packets */
	R_BUFFER_SAVED,					/* manager packet */
	R_RELEASE,					/* provider */
	R_NUM
};

#define S_NUM TRACEBUF_STATE_TERMINATING

/* errno of each request in each state (row = state - 1), 0 = accepted */
static const int tb_errno[S_NUM][R_NUM] = {
	/*               INIT   START     STOP      TERMINATE STARTED STOPPED SAVE    ALERT   SAVED   RELEASE */
	/* REGISTERED */ { 0,     EINVAL,   EINVAL,   EALREADY, EPROTO, EPROTO, EPROTO, EPROTO, EINVAL, EPROTO },
	/* INITIALIZED */{ EBUSY, 0,        EALREADY, 0,        EPROTO, EPROTO, EPROTO, EPROTO, EINVAL, EPROTO },
	/* STARTING */   { EBUSY, EALREADY, 0,        0,        0,      EPROTO, EPROTO, EPROTO, EINVAL, EPROTO },
	/* STARTED */    { EBUSY, EALREADY, 0,        0,        EPROTO, EPROTO, 0,      0,      EINVAL, EPROTO },
	/* STOPPING */   { EBUSY, EBUSY,    EALREADY, 0,        EPROTO, 0,      0,      EPROTO, EINVAL, EPROTO },
	/* STOPPED */    { EBUSY, 0,        EALREADY, 0,        EPROTO, EPROTO, EPROTO, EPROTO, EINVAL, EPROTO },
	/* TERMINATING */{ EBUSY, EINVAL,   EINVAL,   EALREADY, EPROTO, 0,      EPROTO, EPROTO, EINVAL, 0 },
};

/* the state after an accepted request */
static int tb_next_state(int state, enum tb_req r)
{
	switch (r) {
	case R_INITIALIZE:
		return TRACEBUF_STATE_INITIALIZED;
	case R_START:
		return TRACEBUF_STATE_STARTING;
	case R_STOP:
		return TRACEBUF_STATE_STOPPING;
	case R_TERMINATE:
		return TRACEBUF_STATE_TERMINATING;
	case R_STARTED:
		return TRACEBUF_STATE_STARTED;
	case R_STOPPED:
		return state == TRACEBUF_STATE_TERMINATING ?
			TRACEBUF_STATE_TERMINATING : TRACEBUF_STATE_STOPPED;
	case R_RELEASE:
		return TRACEBUF_STATE_REGISTERED;
	default:
		return state;
	}
}

/* the control message an accepted manager request queues, or 0 */
static __u16 tb_control_pkt(enum tb_req r)
{
	switch (r) {
	case R_INITIALIZE:
		return TRACEBUF_PKT_INITIALIZE;
	case R_START:
		return TRACEBUF_PKT_START;
	case R_STOP:
		return TRACEBUF_PKT_STOP;
	case R_TERMINATE:
		return TRACEBUF_PKT_TERMINATE;
	default:
		return 0;
	}
}

/* the packet a provider request sends (well formed in every state) */
static struct tracebuf_pkt tb_req_pkt(enum tb_req r)
{
	switch (r) {
	case R_STARTED:
		return tb_pkt(TRACEBUF_PKT_STARTED, 0,
			      TRACEBUF_FIFO_PROTOCOL_VERSION, 0);
	case R_STOPPED:
		return tb_pkt(TRACEBUF_PKT_STOPPED, 0, 0, 0);
	case R_SAVE_BUFFER:
		return tb_pkt(TRACEBUF_PKT_SAVE_BUFFER, 0, 0, 0);
	case R_ALERT:
		return tb_alert_pkt("alert", 5);
	default:
		return tb_pkt(TRACEBUF_PKT_BUFFER_SAVED, 0, 0, 0);
	}
}

FIXTURE(state) {
	struct tb_peer p;
};

FIXTURE_VARIANT(state) {
	int state;
	bool via_started;	/* TERMINATING reached from STARTED */
};

FIXTURE_VARIANT_ADD(state, registered) { .state = TRACEBUF_STATE_REGISTERED };
FIXTURE_VARIANT_ADD(state, initialized) { .state = TRACEBUF_STATE_INITIALIZED };
FIXTURE_VARIANT_ADD(state, starting) { .state = TRACEBUF_STATE_STARTING };
FIXTURE_VARIANT_ADD(state, started) { .state = TRACEBUF_STATE_STARTED };
FIXTURE_VARIANT_ADD(state, stopping) { .state = TRACEBUF_STATE_STOPPING };
FIXTURE_VARIANT_ADD(state, stopped) { .state = TRACEBUF_STATE_STOPPED };
FIXTURE_VARIANT_ADD(state, terminating) { .state = TRACEBUF_STATE_TERMINATING };
FIXTURE_VARIANT_ADD(state, terminating_from_started) {
	.state = TRACEBUF_STATE_TERMINATING, .via_started = true,
};

FIXTURE_SETUP(state)
{
	tb_peer_init(&self->p);
	TB_REQUIRE_DEV();
	tb_peer_open(_metadata, &self->p, "state", 0);
	if (variant->via_started) {
		tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
		ASSERT_EQ(0, mgr_terminate(self->p.mgr, self->p.id));
		tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_TERMINATE,
			    NULL);
	} else {
		tb_drive(_metadata, &self->p, variant->state);
	}
	ASSERT_EQ(variant->state, mgr_state(self->p.mgr, self->p.id));
}

FIXTURE_TEARDOWN(state)
{
	tb_peer_close(&self->p);
}

static int tb_do_request(struct tb_peer *p, enum tb_req r)
{
	struct tracebuf_pkt pkt = tb_req_pkt(r);

	switch (r) {
	case R_INITIALIZE:
		tb_close(&p->buf_fd);
		return mgr_initialize(p->mgr, p->id, p->mode, p->size, NULL,
				      &p->buf_fd);
	case R_START:
		return mgr_start(p->mgr, p->id, TRACEBUF_START_RETAIN, NULL);
	case R_STOP:
		return mgr_stop(p->mgr, p->id);
	case R_TERMINATE:
		return mgr_terminate(p->mgr, p->id);
	case R_BUFFER_SAVED:
		return mgr_send(p->mgr, p->id, &pkt);
	case R_RELEASE:
		return provider_release(p->prov);
	default:
		return provider_send_pkt(p->prov, &pkt);
	}
}

static void tb_check_request(struct __test_metadata *_metadata,
			     struct tb_peer *p, int state, enum tb_req r)
{
	int err = tb_errno[state - 1][r];
	struct tracebuf_provider_info before, after;
	struct tracebuf_mgr_msg msg;
	struct tracebuf_pkt pkt;
	int next;

	ASSERT_EQ(0, mgr_find(p->mgr, p->id, &before));
	if (err) {
		EXPECT_EQ(-err, tb_do_request(p, r));
		/* refused: nothing changed, nobody told */
		EXPECT_STATE(p->mgr, p->prov, p->id, state);
		EXPECT_EMPTY(p->prov);
		EXPECT_EMPTY(p->mgr);
		ASSERT_EQ(0, mgr_find(p->mgr, p->id, &after));
		EXPECT_EQ(before.packets_sent, after.packets_sent);
		EXPECT_EQ(before.packets_received, after.packets_received);
		EXPECT_EQ(before.saves, after.saves);
		EXPECT_EQ(before.manager_id, after.manager_id);
		return;
	}

	ASSERT_EQ(0, tb_do_request(p, r));
	next = tb_next_state(state, r);
	EXPECT_STATE(p->mgr, p->prov, p->id, next);
	if (tb_control_pkt(r)) {
		/* the provider is told, the manager is not */
		tb_next_pkt(_metadata, p->prov, tb_control_pkt(r), NULL);
		EXPECT_EMPTY(p->mgr);
	} else if (r == R_RELEASE) {
		tb_next_msg(_metadata, p->mgr, p->id, TRACEBUF_MSG_TERMINATED,
			    TRACEBUF_STATE_REGISTERED, &msg);
		pkt = tb_pkt(0, 0, 0, 0);
		EXPECT_EQ(0, memcmp(&pkt, &msg.pkt, sizeof(pkt)));
		EXPECT_EMPTY(p->prov);
	} else {
		/* a provider packet: the manager is told */
		pkt = tb_req_pkt(r);
		tb_next_msg_pkt(_metadata, p->mgr, p->id, next, &pkt);
		EXPECT_EMPTY(p->prov);
	}
	EXPECT_EMPTY(p->prov);
	EXPECT_EMPTY(p->mgr);
}

#define TB_STATE_TEST(name, req)					\
	TEST_F(state, name)						\
	{								\
		tb_check_request(_metadata, &self->p, variant->state, req); \
	}

TB_STATE_TEST(mgr_initialize, R_INITIALIZE)
TB_STATE_TEST(mgr_start, R_START)
TB_STATE_TEST(mgr_stop, R_STOP)
TB_STATE_TEST(mgr_terminate, R_TERMINATE)
TB_STATE_TEST(pkt_started, R_STARTED)
TB_STATE_TEST(pkt_stopped, R_STOPPED)
TB_STATE_TEST(pkt_save_buffer, R_SAVE_BUFFER)
TB_STATE_TEST(pkt_alert, R_ALERT)
TB_STATE_TEST(mgr_buffer_saved, R_BUFFER_SAVED)
TB_STATE_TEST(provider_release, R_RELEASE)

/* ------------------------------------------------------------------ */
/* Sequences                                                          */

FIXTURE(seq) {
	struct tb_peer p;
};

FIXTURE_SETUP(seq)
{
	tb_peer_init(&self->p);
	TB_REQUIRE_DEV();
	tb_peer_open(_metadata, &self->p, "seq", 0);
}

FIXTURE_TEARDOWN(seq)
{
	tb_peer_close(&self->p);
}

TEST_F(seq, repeated_start_stop_cycles)
{
	struct tracebuf_pkt pkt, stopped = tb_pkt(TRACEBUF_PKT_STOPPED, 0, 0, 0);
	__u32 gen;
	int i;

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_INITIALIZED);
	gen = self->p.generation;
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, mgr_start(self->p.mgr, self->p.id,
				       TRACEBUF_START_RETAIN, NULL));
		tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_START, &pkt);
		EXPECT_EQ(TRACEBUF_START_RETAIN, pkt.data16);
		EXPECT_LT(gen, pkt.data32);
		gen = pkt.data32;
		EXPECT_STATE(self->p.mgr, self->p.prov, self->p.id,
			     TRACEBUF_STATE_STARTING);
		ASSERT_EQ(0, provider_started(self->p.prov));
		pkt = tb_pkt(TRACEBUF_PKT_STARTED, 0, 1, 0);
		tb_next_msg_pkt(_metadata, self->p.mgr, self->p.id,
				TRACEBUF_STATE_STARTED, &pkt);
		ASSERT_EQ(0, mgr_stop(self->p.mgr, self->p.id));
		tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_STOP, NULL);
		EXPECT_STATE(self->p.mgr, self->p.prov, self->p.id,
			     TRACEBUF_STATE_STOPPING);
		ASSERT_EQ(0, provider_stopped(self->p.prov));
		tb_next_msg_pkt(_metadata, self->p.mgr, self->p.id,
				TRACEBUF_STATE_STOPPED, &stopped);
		EXPECT_STATE(self->p.mgr, self->p.prov, self->p.id,
			     TRACEBUF_STATE_STOPPED);
	}
	ASSERT_EQ(0, mgr_terminate(self->p.mgr, self->p.id));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_TERMINATE, NULL);
	ASSERT_EQ(0, provider_release(self->p.prov));
	tb_next_msg(_metadata, self->p.mgr, self->p.id, TRACEBUF_MSG_TERMINATED,
		    TRACEBUF_STATE_REGISTERED, NULL);
}

TEST_F(seq, stop_from_starting_without_started)
{
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTING);
	ASSERT_EQ(0, mgr_stop(self->p.mgr, self->p.id));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_STOP, NULL);
	/* a late STARTED is refused, STOPPED is what it must send */
	EXPECT_EQ(-EPROTO, provider_started(self->p.prov));
	EXPECT_EQ(0, provider_stopped(self->p.prov));
	EXPECT_STATE(self->p.mgr, self->p.prov, self->p.id,
		     TRACEBUF_STATE_STOPPED);
}

TEST_F(seq, terminate_from_started_then_stopped_then_release)
{
	struct tracebuf_pkt stopped = tb_pkt(TRACEBUF_PKT_STOPPED, 0, 0, 0);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	ASSERT_EQ(0, mgr_terminate(self->p.mgr, self->p.id));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_TERMINATE, NULL);
	EXPECT_STATE(self->p.mgr, self->p.prov, self->p.id,
		     TRACEBUF_STATE_TERMINATING);
	ASSERT_EQ(0, provider_stopped(self->p.prov));
	tb_next_msg_pkt(_metadata, self->p.mgr, self->p.id,
			TRACEBUF_STATE_TERMINATING, &stopped);
	/* STOPPED again in TERMINATING is still "manager told" */
	ASSERT_EQ(0, provider_release(self->p.prov));
	tb_next_msg(_metadata, self->p.mgr, self->p.id, TRACEBUF_MSG_TERMINATED,
		    TRACEBUF_STATE_REGISTERED, NULL);
	EXPECT_STATE(self->p.mgr, self->p.prov, self->p.id,
		     TRACEBUF_STATE_REGISTERED);
}

TEST_F(seq, release_forgets_manager_and_buffer)
{
	struct tracebuf_buffer_header hdr;
	struct tracebuf_provider_info info;
	struct tracebuf_config_args cfg;

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_TERMINATING);
	ASSERT_EQ(0, provider_release(self->p.prov));
	tb_next_msg(_metadata, self->p.mgr, self->p.id, TRACEBUF_MSG_TERMINATED,
		    TRACEBUF_STATE_REGISTERED, NULL);
	ASSERT_EQ(0, mgr_find(self->p.mgr, self->p.id, &info));
	EXPECT_EQ((__u32)TRACEBUF_STATE_REGISTERED, info.state);
	EXPECT_EQ(0U, info.manager_id);
	EXPECT_EQ(0U, info.flags & TRACEBUF_INFO_F_MINE);
	EXPECT_EQ(0U, info.mode);
	EXPECT_EQ(0ULL, info.buffer_size);
	ASSERT_EQ(0, provider_config_all(self->p.prov, &cfg, NULL));
	EXPECT_EQ(0ULL, cfg.buffer_size);
	EXPECT_EQ(0, cfg.mode);
	/* the manager's handle still reads the old buffer */
	ASSERT_EQ((ssize_t)sizeof(hdr), pread(self->p.buf_fd, &hdr,
					      sizeof(hdr), 0));
	EXPECT_EQ(TRACEBUF_HEADER_MAGIC, hdr.magic);
}

TEST_F(seq, released_provider_can_be_initialized_again)
{
	int mgr2, buf2 = -1;

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_TERMINATING);
	ASSERT_EQ(0, provider_release(self->p.prov));
	tb_next_msg(_metadata, self->p.mgr, self->p.id, TRACEBUF_MSG_TERMINATED,
		    TRACEBUF_STATE_REGISTERED, NULL);
	/* by another manager */
	mgr2 = tb_open_manager(0, NULL);
	ASSERT_LE(0, mgr2);
	EXPECT_EQ(0, mgr_initialize(mgr2, self->p.id, TRACEBUF_MODE_ONESHOT,
				    2 * tb_buffer_min(), NULL, &buf2));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_INITIALIZE, NULL);
	EXPECT_EQ(TRACEBUF_STATE_INITIALIZED, provider_state(self->p.prov));
	EXPECT_EQ(TRACEBUF_STATE_INITIALIZED, mgr_state(mgr2, self->p.id));
	if (buf2 >= 0)
		close(buf2);
	close(mgr2);
}

/* ------------------------------------------------------------------ */
/* Ownership: a provider belongs to the manager that initialized it   */

FIXTURE(owner) {
	struct tb_peer p;	/* p.mgr owns p.prov */
	int other;		/* a second manager */
	__u32 other_id;
};

FIXTURE_SETUP(owner)
{
	tb_peer_init(&self->p);
	self->other = -1;
	TB_REQUIRE_DEV();
	tb_peer_open(_metadata, &self->p, "owned", 0);
	self->other = tb_open_manager(0, &self->other_id);
	ASSERT_LE(0, self->other);
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
}

FIXTURE_TEARDOWN(owner)
{
	tb_close(&self->other);
	tb_peer_close(&self->p);
}

#define EXPECT_OWNED_UNCHANGED() do {					\
	EXPECT_STATE(self->p.mgr, self->p.prov, self->p.id,		\
		     TRACEBUF_STATE_STARTED);				\
	EXPECT_EMPTY(self->p.prov);					\
	EXPECT_EMPTY(self->p.mgr);					\
	EXPECT_EMPTY(self->other);					\
} while (0)

TEST_F(owner, mine_flag_and_manager_id)
{
	struct tracebuf_provider_info info;

	ASSERT_EQ(0, mgr_find(self->p.mgr, self->p.id, &info));
	EXPECT_EQ(self->p.mgr_id, info.manager_id);
	EXPECT_EQ(TRACEBUF_INFO_F_MINE, info.flags & TRACEBUF_INFO_F_MINE);
	ASSERT_EQ(0, mgr_find(self->other, self->p.id, &info));
	EXPECT_EQ(self->p.mgr_id, info.manager_id);
	EXPECT_EQ(0U, info.flags & TRACEBUF_INFO_F_MINE);
	EXPECT_NE(self->p.mgr_id, self->other_id);
}

TEST_F(owner, other_initialize_ebusy)
{
	int next_fd = tb_next_fd();

	EXPECT_EQ(-EBUSY, mgr_initialize(self->other, self->p.id,
					 TRACEBUF_MODE_ONESHOT, tb_buffer_min(),
					 NULL, NULL));
	EXPECT_EQ(next_fd, tb_next_fd());
	EXPECT_OWNED_UNCHANGED();
}

TEST_F(owner, other_start_eperm)
{
	EXPECT_EQ(-EPERM, mgr_start(self->other, self->p.id,
				    TRACEBUF_START_RETAIN, NULL));
	EXPECT_OWNED_UNCHANGED();
}

TEST_F(owner, other_stop_eperm)
{
	EXPECT_EQ(-EPERM, mgr_stop(self->other, self->p.id));
	EXPECT_OWNED_UNCHANGED();
}

TEST_F(owner, other_terminate_eperm)
{
	EXPECT_EQ(-EPERM, mgr_terminate(self->other, self->p.id));
	EXPECT_OWNED_UNCHANGED();
}

TEST_F(owner, other_send_eperm)
{
	struct tracebuf_pkt save = tb_pkt(TRACEBUF_PKT_SAVE_BUFFER, 0, 0, 16);

	/* a save is outstanding, so only ownership is wrong */
	ASSERT_EQ(0, provider_send_pkt(self->p.prov, &save));
	tb_next_msg_pkt(_metadata, self->p.mgr, self->p.id,
			TRACEBUF_STATE_STARTED, &save);
	EXPECT_EQ(-EPERM, mgr_buffer_saved(self->other, self->p.id, 0, 16));
	EXPECT_OWNED_UNCHANGED();
	/* the owner still can */
	EXPECT_EQ(0, mgr_buffer_saved(self->p.mgr, self->p.id, 0, 16));
}

TEST_F(owner, packets_go_only_to_owner)
{
	struct tracebuf_pkt alert = tb_alert_pkt("own", 3);

	ASSERT_EQ(0, provider_send_pkt(self->p.prov, &alert));
	tb_next_msg_pkt(_metadata, self->p.mgr, self->p.id,
			TRACEBUF_STATE_STARTED, &alert);
	EXPECT_EMPTY(self->other);
}

TEST_F(owner, unknown_id_esrch)
{
	__u32 bogus = self->p.id + 1000000;

	EXPECT_EQ(-ESRCH, mgr_start(self->other, bogus, TRACEBUF_START_RETAIN,
				    NULL));
	EXPECT_EQ(-ESRCH, mgr_stop(self->other, bogus));
	EXPECT_EQ(-ESRCH, mgr_terminate(self->other, bogus));
	EXPECT_EQ(-ESRCH, mgr_buffer_saved(self->other, bogus, 0, 0));
	EXPECT_EQ(-ESRCH, mgr_initialize(self->other, bogus,
					 TRACEBUF_MODE_ONESHOT, tb_buffer_min(),
					 NULL, NULL));
}

/* ------------------------------------------------------------------ */
/* REGISTER_F_SYNC: is a trace running?                               */

FIXTURE(sync) {
	struct tb_peer p;
	int late;
};

FIXTURE_SETUP(sync)
{
	tb_peer_init(&self->p);
	self->late = -1;
	TB_REQUIRE_DEV();
	tb_peer_open(_metadata, &self->p, "sync-first", 0);
	self->late = tb_open();
	ASSERT_LE(0, self->late);
}

FIXTURE_TEARDOWN(sync)
{
	tb_close(&self->late);
	tb_peer_close(&self->p);
}

/* REGISTER of self->late with F_SYNC: the status it returns. */
static __u32 tb_sync_status(struct __test_metadata *_metadata,
			    FIXTURE_DATA(sync) *self, __u32 flags)
{
	__u32 status = TB_POISON32, id = 0;

	EXPECT_EQ(0, register_provider_ex(self->late, "sync-late", 9, flags,
					  &id, &status));
	return status;
}

TEST_F(sync, no_trace_status_zero)
{
	EXPECT_EQ(0U, tb_sync_status(_metadata, self, TRACEBUF_REGISTER_F_SYNC));
}

TEST_F(sync, initialized_only_status_zero)
{
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_INITIALIZED);
	EXPECT_EQ(0U, tb_sync_status(_metadata, self, TRACEBUF_REGISTER_F_SYNC));
}

TEST_F(sync, starting_status_started)
{
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTING);
	EXPECT_EQ(TRACEBUF_REGISTER_STARTED,
		  tb_sync_status(_metadata, self, TRACEBUF_REGISTER_F_SYNC));
}

TEST_F(sync, started_status_started)
{
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	EXPECT_EQ(TRACEBUF_REGISTER_STARTED,
		  tb_sync_status(_metadata, self, TRACEBUF_REGISTER_F_SYNC));
}

TEST_F(sync, stopping_status_zero)
{
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STOPPING);
	EXPECT_EQ(0U, tb_sync_status(_metadata, self, TRACEBUF_REGISTER_F_SYNC));
}

TEST_F(sync, stopped_status_zero)
{
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STOPPED);
	EXPECT_EQ(0U, tb_sync_status(_metadata, self, TRACEBUF_REGISTER_F_SYNC));
}

TEST_F(sync, without_sync_flag_status_zero)
{
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	EXPECT_EQ(0U, tb_sync_status(_metadata, self, 0));
}

static int tb_set_tracing(int fd, __u32 tracing, __u32 flags)
{
	struct tracebuf_tracing_args a = { .tracing = tracing, .flags = flags };

	return tb_ioctl(fd, TRACEBUF_IOC_MGR_SET_TRACING, &a);
}

/* MGR_SET_TRACING with a list of provider names. */
static int tb_set_tracing_names(int fd, __u32 tracing, const struct tb_cats *names)
{
	struct tracebuf_tracing_args a = {
		.tracing = tracing, .names_ptr = (__u64)(uintptr_t)names->buf,
		.names_size = names->size, .names_count = names->count,
	};

	return tb_ioctl(fd, TRACEBUF_IOC_MGR_SET_TRACING, &a);
}

/* A manager that runs a trace, with no provider started yet. */
TEST_F(sync, tracing_manager_status_started)
{
	ASSERT_EQ(0, tb_set_tracing(self->p.mgr, 1, 0));
	EXPECT_EQ(TRACEBUF_REGISTER_STARTED,
		  tb_sync_status(_metadata, self, TRACEBUF_REGISTER_F_SYNC));
}

TEST_F(sync, tracing_cleared_status_zero)
{
	ASSERT_EQ(0, tb_set_tracing(self->p.mgr, 1, 0));
	ASSERT_EQ(0, tb_set_tracing(self->p.mgr, 0, 0));
	EXPECT_EQ(0U, tb_sync_status(_metadata, self, TRACEBUF_REGISTER_F_SYNC));
}

TEST_F(sync, tracing_manager_gone_status_zero)
{
	ASSERT_EQ(0, tb_set_tracing(self->p.mgr, 1, 0));
	tb_close(&self->p.mgr);
	EXPECT_EQ(0U, tb_sync_status(_metadata, self, TRACEBUF_REGISTER_F_SYNC));
}

TEST_F(sync, set_tracing_refuses_bad_input)
{
	EXPECT_EQ(-EINVAL, tb_set_tracing(self->p.mgr, 2, 0));
	EXPECT_EQ(-EINVAL, tb_set_tracing(self->p.mgr, 1, 1));
	/* a provider's file */
	EXPECT_EQ(-EINVAL, tb_set_tracing(self->p.prov, 1, 0));
	EXPECT_EQ(0U, tb_sync_status(_metadata, self, TRACEBUF_REGISTER_F_SYNC));
}

/* A trace of some providers by name tells only those to wait. */
TEST_F(sync, tracing_names_status_started_when_listed)
{
	struct tb_cats names;

	ASSERT_EQ(0, tb_cats_build(&names, "other", "sync-late", NULL));
	EXPECT_EQ(0, tb_set_tracing_names(self->p.mgr, 1, &names));
	tb_cats_free(&names);
	EXPECT_EQ(TRACEBUF_REGISTER_STARTED,
		  tb_sync_status(_metadata, self, TRACEBUF_REGISTER_F_SYNC));
}

TEST_F(sync, tracing_names_status_zero_when_not_listed)
{
	struct tb_cats names;

	ASSERT_EQ(0, tb_cats_build(&names, "sync-lat", "sync-late-", NULL));
	EXPECT_EQ(0, tb_set_tracing_names(self->p.mgr, 1, &names));
	tb_cats_free(&names);
	EXPECT_EQ(0U, tb_sync_status(_metadata, self, TRACEBUF_REGISTER_F_SYNC));
}

/* The list applies to a manager with a provider started, too. */
TEST_F(sync, tracing_names_apply_to_started_providers)
{
	struct tb_cats names;

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	ASSERT_EQ(0, tb_cats_build(&names, "sync-first", NULL));
	EXPECT_EQ(0, tb_set_tracing_names(self->p.mgr, 1, &names));
	tb_cats_free(&names);
	EXPECT_EQ(0U, tb_sync_status(_metadata, self, TRACEBUF_REGISTER_F_SYNC));
}

/* Setting it again (without names) replaces the list. */
TEST_F(sync, tracing_names_replaced)
{
	struct tb_cats names;

	ASSERT_EQ(0, tb_cats_build(&names, "other", NULL));
	EXPECT_EQ(0, tb_set_tracing_names(self->p.mgr, 1, &names));
	tb_cats_free(&names);
	EXPECT_EQ(0, tb_set_tracing(self->p.mgr, 1, 0));
	EXPECT_EQ(TRACEBUF_REGISTER_STARTED,
		  tb_sync_status(_metadata, self, TRACEBUF_REGISTER_F_SYNC));
}

/* LIST's F_NAMED (ABI 1.12) of provider @id, as manager @fd sees it. */
static __u32 tb_named(struct __test_metadata *_metadata, int fd, __u32 id)
{
	struct tracebuf_provider_info info;

	EXPECT_EQ(0, mgr_find(fd, id, &info));
	return info.flags & TRACEBUF_INFO_F_NAMED;
}

/*
 * A manager whose trace names a provider marks it for every other
 * manager, not for itself, and only while that trace runs.
 */
TEST_F(sync, tracing_names_mark_the_provider_for_others)
{
	struct tb_cats names;
	__u32 other_id;
	int other = tb_open_manager(0, &other_id);

	ASSERT_LE(0, other);
	EXPECT_EQ(0U, tb_named(_metadata, other, self->p.id));
	ASSERT_EQ(0, tb_cats_build(&names, "other", "sync-first", NULL));
	EXPECT_EQ(0, tb_set_tracing_names(self->p.mgr, 1, &names));
	tb_cats_free(&names);
	EXPECT_EQ(TRACEBUF_INFO_F_NAMED, tb_named(_metadata, other, self->p.id));
	EXPECT_EQ(0U, tb_named(_metadata, self->p.mgr, self->p.id));
	/* started, it stays marked; stopped with the trace, it is not */
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	EXPECT_EQ(TRACEBUF_INFO_F_NAMED, tb_named(_metadata, other, self->p.id));
	EXPECT_EQ(0, tb_set_tracing(self->p.mgr, 0, 0));
	EXPECT_EQ(0U, tb_named(_metadata, other, self->p.id));
	tb_close(&other);
}

/* A trace of every provider, or of other names, marks nothing. */
TEST_F(sync, tracing_without_its_name_does_not_mark)
{
	struct tb_cats names;
	__u32 other_id;
	int other = tb_open_manager(0, &other_id);

	ASSERT_LE(0, other);
	EXPECT_EQ(0, tb_set_tracing(self->p.mgr, 1, 0));
	EXPECT_EQ(0U, tb_named(_metadata, other, self->p.id));
	ASSERT_EQ(0, tb_cats_build(&names, "sync-firs", "sync-first-", NULL));
	EXPECT_EQ(0, tb_set_tracing_names(self->p.mgr, 1, &names));
	tb_cats_free(&names);
	EXPECT_EQ(0U, tb_named(_metadata, other, self->p.id));
	/* nor does the list of a manager that is gone */
	ASSERT_EQ(0, tb_cats_build(&names, "sync-first", NULL));
	EXPECT_EQ(0, tb_set_tracing_names(other, 1, &names));
	tb_cats_free(&names);
	EXPECT_EQ(TRACEBUF_INFO_F_NAMED, tb_named(_metadata, self->p.mgr, self->p.id));
	tb_close(&other);
	EXPECT_EQ(0U, tb_named(_metadata, self->p.mgr, self->p.id));
}

/* A caller built against ABI 1.2 passes the 8-byte struct: no names. */
TEST_F(sync, set_tracing_ver0_size_still_works)
{
	struct { __u32 tracing, flags; } a = { .tracing = 1 };

	EXPECT_EQ(0, tb_ioctl(self->p.mgr, _IOC(_IOC_WRITE, TRACEBUF_IOC_MAGIC,
						_IOC_NR(TRACEBUF_IOC_MGR_SET_TRACING),
						TRACEBUF_TRACING_SIZE_VER0), &a));
	EXPECT_EQ(TRACEBUF_REGISTER_STARTED,
		  tb_sync_status(_metadata, self, TRACEBUF_REGISTER_F_SYNC));
}

TEST_F(sync, set_tracing_refuses_bad_names)
{
	struct tracebuf_tracing_args a = { .tracing = 1 };
	char longname[TRACEBUF_NAME_MAX + 2];
	struct tb_cats names;

	ASSERT_EQ(0, tb_cats_build(&names, "a", "b", NULL));
	/* names while not tracing */
	EXPECT_EQ(-EINVAL, tb_set_tracing_names(self->p.mgr, 0, &names));
	/* the count does not match the list */
	names.count = 3;
	EXPECT_EQ(-EINVAL, tb_set_tracing_names(self->p.mgr, 1, &names));
	names.count = 2;
	/* no NUL at the end */
	names.size--;
	EXPECT_EQ(-EINVAL, tb_set_tracing_names(self->p.mgr, 1, &names));
	tb_cats_free(&names);
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	ASSERT_EQ(0, tb_cats_build(&names, longname, NULL));
	EXPECT_EQ(-ENAMETOOLONG, tb_set_tracing_names(self->p.mgr, 1, &names));
	tb_cats_free(&names);
	/* size without a count, a count without a size */
	a.names_size = 2;
	EXPECT_EQ(-EINVAL, tb_ioctl(self->p.mgr, TRACEBUF_IOC_MGR_SET_TRACING, &a));
	a.names_size = 0;
	a.names_count = 1;
	EXPECT_EQ(-EINVAL, tb_ioctl(self->p.mgr, TRACEBUF_IOC_MGR_SET_TRACING, &a));
	a.names_count = TRACEBUF_CATEGORIES_MAX + 1;
	a.names_size = 2 * (TRACEBUF_CATEGORIES_MAX + 1);
	EXPECT_EQ(-E2BIG, tb_ioctl(self->p.mgr, TRACEBUF_IOC_MGR_SET_TRACING, &a));
	/* nothing was set */
	EXPECT_EQ(0U, tb_sync_status(_metadata, self, TRACEBUF_REGISTER_F_SYNC));
}

TEST_F(sync, manager_gone_status_zero)
{
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_close(&self->p.mgr);
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_MANAGER_GONE, NULL);
	EXPECT_EQ(0U, tb_sync_status(_metadata, self, TRACEBUF_REGISTER_F_SYNC));
}

/* ------------------------------------------------------------------ */
/* STARTED_LATE, set by the kernel for a provider that went on        */

/* GET_CONFIG's F_WENT_ON: it no longer waits for its START. */
static int tb_went_on(int fd)
{
	struct tracebuf_config_args cfg = { .flags = TRACEBUF_CONFIG_F_WENT_ON };
	int ret = tb_ioctl(fd, TRACEBUF_IOC_PROVIDER_GET_CONFIG, &cfg);

	return ret == -ENOSPC ? 0 : ret;
}

/* @p started by its manager, its STARTED's data16 @sent: what the manager reads. */
static __u16 tb_late_seen(struct __test_metadata *_metadata, struct tb_peer *p,
			  __u16 sent)
{
	struct tracebuf_mgr_msg m = { 0 };

	tb_drive(_metadata, p, TRACEBUF_STATE_STARTING);
	EXPECT_EQ(0, provider_send(p->prov, TRACEBUF_PKT_STARTED, sent,
				   TRACEBUF_FIFO_PROTOCOL_VERSION, 0));
	tb_next_msg(_metadata, p->mgr, p->id, TRACEBUF_MSG_PACKET,
		    TRACEBUF_STATE_STARTED, &m);
	EXPECT_EQ(TRACEBUF_PKT_STARTED, m.pkt.request);
	return m.pkt.data16;
}

/*
 * It went on while no trace ran for it: whoever starts it later missed
 * nothing (it said LATE: the kernel knows better); once started, its
 * STARTED is its own again.
 */
TEST_F(sync, went_on_with_no_trace_not_late)
{
	struct tracebuf_mgr_msg m = { 0 };

	ASSERT_EQ(0, tb_went_on(self->p.prov));
	EXPECT_EQ(0, tb_late_seen(_metadata, &self->p, TRACEBUF_STARTED_LATE));
	tb_peer_stop(_metadata, &self->p);
	ASSERT_EQ(0, mgr_start(self->p.mgr, self->p.id, TRACEBUF_START_RETAIN, NULL));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_START, NULL);
	ASSERT_EQ(0, provider_send(self->p.prov, TRACEBUF_PKT_STARTED,
				   TRACEBUF_STARTED_LATE, TRACEBUF_FIFO_PROTOCOL_VERSION, 0));
	tb_next_msg(_metadata, self->p.mgr, self->p.id, TRACEBUF_MSG_PACKET,
		    TRACEBUF_STATE_STARTED, &m);
	EXPECT_EQ(TRACEBUF_STARTED_LATE, m.pkt.data16);
}

/* It went on while its manager's trace ran: late, whatever it says. */
TEST_F(sync, went_on_while_tracing_late)
{
	ASSERT_EQ(0, tb_set_tracing(self->p.mgr, 1, 0));
	ASSERT_EQ(0, tb_went_on(self->p.prov));
	EXPECT_EQ(TRACEBUF_STARTED_LATE, tb_late_seen(_metadata, &self->p, 0));
}

/*
 * A trace that began after it went on finds it as any provider
 * registered before it: not late.
 */
TEST_F(sync, trace_begun_after_went_on_not_late)
{
	ASSERT_EQ(0, tb_went_on(self->p.prov));
	ASSERT_EQ(0, tb_set_tracing(self->p.mgr, 1, 0));
	EXPECT_EQ(0, tb_late_seen(_metadata, &self->p, TRACEBUF_STARTED_LATE));
}

/* It went on with its START on the way (STARTING): late. */
TEST_F(sync, went_on_while_starting_late)
{
	struct tracebuf_mgr_msg m = { 0 };

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTING);
	ASSERT_EQ(0, tb_went_on(self->p.prov));
	ASSERT_EQ(0, provider_started(self->p.prov));
	tb_next_msg(_metadata, self->p.mgr, self->p.id, TRACEBUF_MSG_PACKET,
		    TRACEBUF_STATE_STARTED, &m);
	EXPECT_EQ(TRACEBUF_STARTED_LATE, m.pkt.data16);
}

/*
 * It went on while another manager's trace ran, and while its own ran
 * for other names only: the one that starts it missed nothing.
 */
TEST_F(sync, trace_of_another_manager_not_late)
{
	__u32 id = 0;
	int m2 = tb_open_manager(0, &id);
	struct tb_cats names;

	ASSERT_LE(0, m2);
	ASSERT_EQ(0, tb_set_tracing(m2, 1, 0));
	ASSERT_EQ(0, tb_cats_build(&names, "someone-else", NULL));
	ASSERT_EQ(0, tb_set_tracing_names(self->p.mgr, 1, &names));
	tb_cats_free(&names);
	ASSERT_EQ(0, tb_went_on(self->p.prov));
	close(m2);
	EXPECT_EQ(0, tb_late_seen(_metadata, &self->p, TRACEBUF_STARTED_LATE));
}

TEST_F(sync, get_config_refuses_unknown_flags)
{
	struct tracebuf_config_args cfg = { .flags = TRACEBUF_CONFIG_F_WENT_ON << 1 };

	EXPECT_EQ(-EINVAL, tb_ioctl(self->p.prov, TRACEBUF_IOC_PROVIDER_GET_CONFIG, &cfg));
	/* a manager's file is no provider */
	EXPECT_EQ(-EINVAL, tb_went_on(self->p.mgr));
}

/* ------------------------------------------------------------------ */
/* TRACEBUF_IOC_PROVIDER_GET_CONFIG                                   */

/* 16 KiB with 4 KiB pages */
#define TB_CONFIG_SIZE	(4 * tb_buffer_min())

FIXTURE(config) {
	struct tb_peer p;
	struct tb_cats init_cats;
	struct tb_cats start_cats;
};

FIXTURE_SETUP(config)
{
	tb_peer_init(&self->p);
	memset(&self->init_cats, 0, sizeof(self->init_cats));
	memset(&self->start_cats, 0, sizeof(self->start_cats));
	TB_REQUIRE_DEV();
	tb_peer_open(_metadata, &self->p, "config", 0);
	ASSERT_EQ(0, tb_cats_build(&self->init_cats, "a", "bb", "ccc", NULL));
}

FIXTURE_TEARDOWN(config)
{
	tb_cats_free(&self->init_cats);
	tb_cats_free(&self->start_cats);
	tb_peer_close(&self->p);
}

static void tb_config_init(struct __test_metadata *_metadata,
			   FIXTURE_DATA(config) *self, struct tracebuf_pkt *pkt)
{
	ASSERT_EQ(0, mgr_initialize(self->p.mgr, self->p.id,
				    TRACEBUF_MODE_CIRCULAR, TB_CONFIG_SIZE,
				    &self->init_cats, &self->p.buf_fd));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_INITIALIZE, pkt);
}

static void tb_config_start(struct __test_metadata *_metadata,
			    FIXTURE_DATA(config) *self, __u32 disposition,
			    struct tracebuf_pkt *pkt)
{
	ASSERT_EQ(0, mgr_start(self->p.mgr, self->p.id, disposition,
			       self->start_cats.count ? &self->start_cats :
							NULL));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_START, pkt);
}

/* The configuration's categories equal the concatenation of the lists. */
static void tb_expect_categories(struct __test_metadata *_metadata, int prov,
				 const struct tb_cats *a,
				 const struct tb_cats *b)
{
	struct tracebuf_config_args cfg;
	__u32 size = a->size + (b ? b->size : 0);
	char buf[512];

	ASSERT_GE(sizeof(buf), (size_t)size + 16);
	memset(buf, TB_POISON8, sizeof(buf));
	ASSERT_EQ(0, provider_get_config(prov, &cfg, buf, sizeof(buf)));
	EXPECT_EQ(size, cfg.categories_size);
	EXPECT_EQ(a->count + (b ? b->count : 0), cfg.categories_count);
	EXPECT_EQ(0, memcmp(buf, a->buf, a->size));
	if (b && b->size) {
		EXPECT_EQ(0, memcmp(buf + a->size, b->buf, b->size));
	}
	/* nothing written past the list */
	EXPECT_EQ((char)TB_POISON8, buf[size]);
}

TEST_F(config, registered_has_no_configuration)
{
	struct tracebuf_config_args cfg;
	char buf[16];

	ASSERT_EQ(0, provider_get_config(self->p.prov, &cfg, buf, sizeof(buf)));
	EXPECT_EQ((__u32)TRACEBUF_STATE_REGISTERED, cfg.state);
	EXPECT_EQ(0ULL, cfg.buffer_size);
	EXPECT_EQ(0, cfg.mode);
	EXPECT_EQ(0, cfg.disposition);
	EXPECT_EQ(0U, cfg.categories_size);
	EXPECT_EQ(0U, cfg.categories_count);
}

TEST_F(config, initialize_categories_and_fields)
{
	struct tracebuf_config_args cfg;
	struct tracebuf_pkt pkt;
	char buf[64];

	tb_config_init(_metadata, self, &pkt);
	tb_expect_categories(_metadata, self->p.prov, &self->init_cats, NULL);
	ASSERT_EQ(0, provider_get_config(self->p.prov, &cfg, buf, sizeof(buf)));
	EXPECT_EQ((__u32)TRACEBUF_STATE_INITIALIZED, cfg.state);
	EXPECT_EQ(TB_CONFIG_SIZE, cfg.buffer_size);
	EXPECT_EQ(TRACEBUF_MODE_CIRCULAR, cfg.mode);
	EXPECT_EQ(0, cfg.disposition);
	EXPECT_EQ(pkt.data32, cfg.generation);
	EXPECT_EQ(TRACEBUF_MODE_CIRCULAR, pkt.data16);
	EXPECT_EQ(TB_CONFIG_SIZE, pkt.data64);
}

TEST_F(config, empty_list_enables_everything)
{
	struct tracebuf_config_args cfg;
	char buf[16];

	ASSERT_EQ(0, mgr_initialize(self->p.mgr, self->p.id,
				    TRACEBUF_MODE_ONESHOT, tb_buffer_min(), NULL,
				    &self->p.buf_fd));
	ASSERT_EQ(0, provider_get_config(self->p.prov, &cfg, buf, sizeof(buf)));
	EXPECT_EQ(0U, cfg.categories_size);
	EXPECT_EQ(0U, cfg.categories_count);
}

TEST_F(config, start_appends_additional_categories)
{
	struct tracebuf_config_args cfg;
	struct tracebuf_pkt ipkt, spkt;
	char buf[64];

	ASSERT_EQ(0, tb_cats_build(&self->start_cats, "dd", "e", NULL));
	tb_config_init(_metadata, self, &ipkt);
	tb_config_start(_metadata, self, TRACEBUF_START_CLEAR_NONDURABLE, &spkt);
	tb_expect_categories(_metadata, self->p.prov, &self->init_cats,
			     &self->start_cats);
	ASSERT_EQ(0, provider_get_config(self->p.prov, &cfg, buf, sizeof(buf)));
	EXPECT_EQ(TRACEBUF_START_CLEAR_NONDURABLE, cfg.disposition);
	EXPECT_EQ(TRACEBUF_START_CLEAR_NONDURABLE, spkt.data16);
	EXPECT_EQ(spkt.data32, cfg.generation);
	EXPECT_LT(ipkt.data32, spkt.data32);
}

TEST_F(config, latest_start_replaces_additional_categories)
{
	struct tracebuf_pkt pkt;

	ASSERT_EQ(0, tb_cats_build(&self->start_cats, "dd", "e", NULL));
	tb_config_init(_metadata, self, &pkt);
	tb_config_start(_metadata, self, TRACEBUF_START_RETAIN, &pkt);
	ASSERT_EQ(0, mgr_stop(self->p.mgr, self->p.id));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_STOP, NULL);
	ASSERT_EQ(0, provider_stopped(self->p.prov));
	tb_drain(self->p.mgr, sizeof(struct tracebuf_mgr_msg));
	tb_cats_free(&self->start_cats);
	ASSERT_EQ(0, tb_cats_build(&self->start_cats, "ffff", NULL));
	tb_config_start(_metadata, self, TRACEBUF_START_RETAIN, &pkt);
	tb_expect_categories(_metadata, self->p.prov, &self->init_cats,
			     &self->start_cats);
}

TEST_F(config, start_without_additional_keeps_initialize_list)
{
	struct tracebuf_pkt pkt;

	tb_config_init(_metadata, self, &pkt);
	tb_config_start(_metadata, self, TRACEBUF_START_RETAIN, &pkt);
	tb_expect_categories(_metadata, self->p.prov, &self->init_cats, NULL);
}

TEST_F(config, small_room_enospc_reports_size)
{
	struct tracebuf_config_args cfg;
	char buf[64];

	tb_config_init(_metadata, self, NULL);
	memset(buf, TB_POISON8, sizeof(buf));
	EXPECT_EQ(-ENOSPC, provider_get_config(self->p.prov, &cfg, buf,
					       self->init_cats.size - 1));
	EXPECT_EQ(self->init_cats.size, cfg.categories_size);
	/* nothing copied */
	EXPECT_EQ((char)TB_POISON8, buf[0]);
	EXPECT_EQ((char)TB_POISON8, buf[self->init_cats.size - 2]);
}

TEST_F(config, zero_room_enospc_reports_size)
{
	struct tracebuf_config_args cfg;

	tb_config_init(_metadata, self, NULL);
	EXPECT_EQ(-ENOSPC, provider_get_config(self->p.prov, &cfg, NULL, 0));
	EXPECT_EQ(self->init_cats.size, cfg.categories_size);
}

TEST_F(config, exact_room_accepted)
{
	struct tracebuf_config_args cfg;
	char buf[64];

	tb_config_init(_metadata, self, NULL);
	memset(buf, TB_POISON8, sizeof(buf));
	EXPECT_EQ(0, provider_get_config(self->p.prov, &cfg, buf,
					 self->init_cats.size));
	EXPECT_EQ(0, memcmp(buf, self->init_cats.buf, self->init_cats.size));
	EXPECT_EQ((char)TB_POISON8, buf[self->init_cats.size]);
}

TEST_F(config, generation_of_each_initialize_and_start_differs)
{
	struct tracebuf_pkt p1, p2, p3;

	tb_config_init(_metadata, self, &p1);
	tb_config_start(_metadata, self, TRACEBUF_START_RETAIN, &p2);
	ASSERT_EQ(0, mgr_stop(self->p.mgr, self->p.id));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_STOP, NULL);
	ASSERT_EQ(0, provider_stopped(self->p.prov));
	tb_config_start(_metadata, self, TRACEBUF_START_CLEAR_ENTIRE, &p3);
	EXPECT_LT(p1.data32, p2.data32);
	EXPECT_LT(p2.data32, p3.data32);
	EXPECT_EQ(TRACEBUF_START_CLEAR_ENTIRE, p3.data16);
}

TEST_HARNESS_MAIN
