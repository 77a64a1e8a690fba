// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf FIFO packets: every packet rule of the uapi header (refused
 * packets change nothing), the order of one provider inbox, both inbox
 * bounds, the flush at manager death, and the read() rules.
 */
#define _GNU_SOURCE
#include "tracebuf_selftests.h"

/* 64 KiB streaming: durable buffer of 4096 bytes */
#define TB_PKT_SIZE	(64 * 1024)

FIXTURE(pkt) {
	struct tb_peer p;
	__u64 durable_size;
	void *bad;
};

FIXTURE_SETUP(pkt)
{
	__u64 rolling;

	tb_peer_init(&self->p);
	TB_REQUIRE_DEV();
	self->bad = tb_bad_page();
	ASSERT_MAPPED(self->bad);
	tb_peer_open(_metadata, &self->p, "pkt", 0);
	self->p.size = TB_PKT_SIZE;
	tb_buffer_sizes(TRACEBUF_MODE_STREAMING, TB_PKT_SIZE,
			&self->durable_size, &rolling);
}

FIXTURE_TEARDOWN(pkt)
{
	tb_peer_close(&self->p);
	if (self->bad && self->bad != MAP_FAILED)
		munmap(self->bad, tb_page_size());
}

/*
 * Send pkt from the provider and expect it refused with err: the state,
 * the counters and both inboxes are unchanged.
 */
static void tb_expect_pkt_refused(struct __test_metadata *_metadata,
				  struct tb_peer *p,
				  const struct tracebuf_pkt *pkt, int err)
{
	struct tracebuf_provider_info before, after;

	ASSERT_EQ(0, mgr_find(p->mgr, p->id, &before));
	EXPECT_EQ(-err, provider_send_pkt(p->prov, pkt));
	ASSERT_EQ(0, mgr_find(p->mgr, p->id, &after));
	EXPECT_EQ(before.state, after.state);
	EXPECT_EQ((int)before.state, provider_state(p->prov));
	EXPECT_EQ(before.packets_sent, after.packets_sent);
	EXPECT_EQ(before.packets_received, after.packets_received);
	EXPECT_EQ(before.saves, after.saves);
	EXPECT_EMPTY(p->mgr);
	EXPECT_EMPTY(p->prov);
}

/* Send pkt and expect the manager to receive it, in state. */
static void tb_expect_pkt_delivered(struct __test_metadata *_metadata,
				    struct tb_peer *p,
				    const struct tracebuf_pkt *pkt, int state)
{
	struct tracebuf_provider_info before, after;

	ASSERT_EQ(0, mgr_find(p->mgr, p->id, &before));
	ASSERT_EQ(0, provider_send_pkt(p->prov, pkt));
	tb_next_msg_pkt(_metadata, p->mgr, p->id, state, pkt);
	ASSERT_EQ(0, mgr_find(p->mgr, p->id, &after));
	EXPECT_EQ(before.packets_sent + 1, after.packets_sent);
}

/* The provider sends SAVE_BUFFER and the manager reads it. */
static void tb_save(struct __test_metadata *_metadata, struct tb_peer *p,
		    __u32 wrapped, __u64 durable_end, int state)
{
	struct tracebuf_pkt save = tb_pkt(TRACEBUF_PKT_SAVE_BUFFER, 0,
					  wrapped, durable_end);

	tb_expect_pkt_delivered(_metadata, p, &save, state);
}

/* ---- STARTED ---- */

TEST_F(pkt, started_version_0_eprotonosupport)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_STARTED, 0, 0, 0);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTING);
	tb_expect_pkt_refused(_metadata, &self->p, &pkt, EPROTONOSUPPORT);
}

TEST_F(pkt, started_version_2_eprotonosupport)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_STARTED, 0, 2, 0);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTING);
	tb_expect_pkt_refused(_metadata, &self->p, &pkt, EPROTONOSUPPORT);
}

TEST_F(pkt, started_data16_unknown_einval)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_STARTED, TRACEBUF_STARTED_LATE << 1, 1, 0);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTING);
	tb_expect_pkt_refused(_metadata, &self->p, &pkt, EINVAL);
}

TEST_F(pkt, started_data64_einval)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_STARTED, 0, 1, 1);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTING);
	tb_expect_pkt_refused(_metadata, &self->p, &pkt, EINVAL);
}

TEST_F(pkt, started_version_1_accepted)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_STARTED, 0, 1, 0);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTING);
	tb_expect_pkt_delivered(_metadata, &self->p, &pkt,
				TRACEBUF_STATE_STARTED);
}

/* A provider that had stopped waiting for its START says so; as sent. */
TEST_F(pkt, started_late_delivered)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_STARTED, TRACEBUF_STARTED_LATE, 1, 0);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTING);
	tb_expect_pkt_delivered(_metadata, &self->p, &pkt,
				TRACEBUF_STATE_STARTED);
}

/* ---- STOPPED ---- */

TEST_F(pkt, stopped_data16_einval)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_STOPPED, 1, 0, 0);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STOPPING);
	tb_expect_pkt_refused(_metadata, &self->p, &pkt, EINVAL);
}

TEST_F(pkt, stopped_data32_einval)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_STOPPED, 0, 1, 0);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STOPPING);
	tb_expect_pkt_refused(_metadata, &self->p, &pkt, EINVAL);
}

TEST_F(pkt, stopped_data64_einval)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_STOPPED, 0, 0, 1ULL << 63);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STOPPING);
	tb_expect_pkt_refused(_metadata, &self->p, &pkt, EINVAL);
}

/* ---- SAVE_BUFFER ---- */

TEST_F(pkt, save_buffer_data16_einval)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_SAVE_BUFFER, 1, 0, 16);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_expect_pkt_refused(_metadata, &self->p, &pkt, EINVAL);
}

TEST_F(pkt, save_buffer_oneshot_eproto)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_SAVE_BUFFER, 0, 0, 0);

	self->p.mode = TRACEBUF_MODE_ONESHOT;
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_expect_pkt_refused(_metadata, &self->p, &pkt, EPROTO);
}

TEST_F(pkt, save_buffer_circular_eproto)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_SAVE_BUFFER, 0, 0, 16);

	self->p.mode = TRACEBUF_MODE_CIRCULAR;
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_expect_pkt_refused(_metadata, &self->p, &pkt, EPROTO);
}

TEST_F(pkt, save_buffer_outstanding_ebusy)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_SAVE_BUFFER, 0, 1, 32);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_save(_metadata, &self->p, 0, 16, TRACEBUF_STATE_STARTED);
	tb_expect_pkt_refused(_metadata, &self->p, &pkt, EBUSY);
}

TEST_F(pkt, save_buffer_durable_end_past_durable_buffer_einval)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_SAVE_BUFFER, 0, 0,
					 self->durable_size + 8);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_expect_pkt_refused(_metadata, &self->p, &pkt, EINVAL);
}

TEST_F(pkt, save_buffer_durable_end_huge_einval)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_SAVE_BUFFER, 0, 0,
					 ~0ULL & ~7ULL);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_expect_pkt_refused(_metadata, &self->p, &pkt, EINVAL);
}

TEST_F(pkt, save_buffer_durable_end_unaligned_einval)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_SAVE_BUFFER, 0, 0, 20);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_expect_pkt_refused(_metadata, &self->p, &pkt, EINVAL);
}

TEST_F(pkt, save_buffer_durable_end_at_durable_size_accepted)
{
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_save(_metadata, &self->p, 7, self->durable_size,
		TRACEBUF_STATE_STARTED);
}

TEST_F(pkt, save_buffer_in_stopping_accepted)
{
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STOPPING);
	tb_save(_metadata, &self->p, 0, 16, TRACEBUF_STATE_STOPPING);
}

/* ---- BUFFER_SAVED ---- */

/* A refused BUFFER_SAVED: nothing reaches the provider, save still due. */
static void tb_expect_saved_refused(struct __test_metadata *_metadata,
				    struct tb_peer *p,
				    const struct tracebuf_pkt *pkt, int err)
{
	struct tracebuf_provider_info before, after;

	ASSERT_EQ(0, mgr_find(p->mgr, p->id, &before));
	EXPECT_EQ(-err, mgr_send(p->mgr, p->id, pkt));
	ASSERT_EQ(0, mgr_find(p->mgr, p->id, &after));
	EXPECT_EQ(before.saves, after.saves);
	EXPECT_EQ(before.packets_received, after.packets_received);
	EXPECT_EMPTY(p->prov);
	EXPECT_EMPTY(p->mgr);
}

TEST_F(pkt, buffer_saved_without_save_einval)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_BUFFER_SAVED, 0, 0, 16);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_expect_saved_refused(_metadata, &self->p, &pkt, EINVAL);
}

TEST_F(pkt, buffer_saved_other_wrapped_count_einval)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_BUFFER_SAVED, 0, 4, 16);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_save(_metadata, &self->p, 3, 16, TRACEBUF_STATE_STARTED);
	tb_expect_saved_refused(_metadata, &self->p, &pkt, EINVAL);
	/* still outstanding: the right echo is accepted, a new save is not */
	EXPECT_EQ(-EBUSY, provider_send(self->p.prov, TRACEBUF_PKT_SAVE_BUFFER,
					0, 4, 24));
	EXPECT_EQ(0, mgr_buffer_saved(self->p.mgr, self->p.id, 3, 16));
}

TEST_F(pkt, buffer_saved_other_durable_end_einval)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_BUFFER_SAVED, 0, 3, 24);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_save(_metadata, &self->p, 3, 16, TRACEBUF_STATE_STARTED);
	tb_expect_saved_refused(_metadata, &self->p, &pkt, EINVAL);
	EXPECT_EQ(0, mgr_buffer_saved(self->p.mgr, self->p.id, 3, 16));
}

TEST_F(pkt, buffer_saved_data16_einval)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_BUFFER_SAVED, 1, 3, 16);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_save(_metadata, &self->p, 3, 16, TRACEBUF_STATE_STARTED);
	tb_expect_saved_refused(_metadata, &self->p, &pkt, EINVAL);
	EXPECT_EQ(0, mgr_buffer_saved(self->p.mgr, self->p.id, 3, 16));
}

TEST_F(pkt, buffer_saved_echo_delivered_and_clears_save)
{
	struct tracebuf_provider_info before, after;
	struct tracebuf_pkt got;

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_save(_metadata, &self->p, 5, 40, TRACEBUF_STATE_STARTED);
	ASSERT_EQ(0, mgr_find(self->p.mgr, self->p.id, &before));
	ASSERT_EQ(0, mgr_buffer_saved(self->p.mgr, self->p.id, 5, 40));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_BUFFER_SAVED, &got);
	EXPECT_EQ(0, got.data16);
	EXPECT_EQ(5U, got.data32);
	EXPECT_EQ(40ULL, got.data64);
	ASSERT_EQ(0, mgr_find(self->p.mgr, self->p.id, &after));
	EXPECT_EQ(before.saves + 1, after.saves);
	EXPECT_EQ(before.packets_received + 1, after.packets_received);
	/* cleared: a second echo is refused, a new save accepted */
	EXPECT_EQ(-EINVAL, mgr_buffer_saved(self->p.mgr, self->p.id, 5, 40));
	tb_save(_metadata, &self->p, 6, 48, TRACEBUF_STATE_STARTED);
}

TEST_F(pkt, buffer_saved_in_stopping_after_stop)
{
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_save(_metadata, &self->p, 0, 16, TRACEBUF_STATE_STARTED);
	ASSERT_EQ(0, mgr_stop(self->p.mgr, self->p.id));
	EXPECT_EQ(0, mgr_buffer_saved(self->p.mgr, self->p.id, 0, 16));
	/* sent after the STOP, received after it */
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_STOP, NULL);
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_BUFFER_SAVED, NULL);
}

/* ---- SNAPSHOT, SNAPSHOT_TAKEN ---- */

/* The manager asks a circular (or oneshot) provider for a snapshot. */
static void tb_snapshot(struct __test_metadata *_metadata, struct tb_peer *p)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_SNAPSHOT, 0, 0, 0);

	ASSERT_EQ(0, mgr_send(p->mgr, p->id, &pkt));
	tb_next_pkt(_metadata, p->prov, TRACEBUF_PKT_SNAPSHOT, &pkt);
	EXPECT_EQ(0, pkt.data16);
	EXPECT_EQ(0U, pkt.data32);
	EXPECT_EQ(0ULL, pkt.data64);
}

/*
 * In streaming mode a SNAPSHOT is a save now (ABI 1.10): the provider
 * ends its rolling buffer, asks for its save, and answers.
 */
TEST_F(pkt, snapshot_in_streaming_saves_now)
{
	struct tracebuf_pkt again = tb_pkt(TRACEBUF_PKT_SNAPSHOT, 0, 0, 0);
	struct tracebuf_pkt taken = tb_pkt(TRACEBUF_PKT_SNAPSHOT_TAKEN, 0, 0, 64);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_snapshot(_metadata, &self->p);
	tb_expect_saved_refused(_metadata, &self->p, &again, EBUSY);
	tb_save(_metadata, &self->p, 0, 16, TRACEBUF_STATE_STARTED);
	tb_expect_pkt_delivered(_metadata, &self->p, &taken, TRACEBUF_STATE_STARTED);
	tb_expect_pkt_refused(_metadata, &self->p, &taken, EPROTO);
}

TEST_F(pkt, snapshot_outside_started_einval)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_SNAPSHOT, 0, 0, 0);

	self->p.mode = TRACEBUF_MODE_CIRCULAR;
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_INITIALIZED);
	tb_expect_saved_refused(_metadata, &self->p, &pkt, EINVAL);
	EXPECT_EQ(0, mgr_start(self->p.mgr, self->p.id, TRACEBUF_START_CLEAR_ENTIRE, NULL));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_START, NULL);
	tb_expect_saved_refused(_metadata, &self->p, &pkt, EINVAL);
}

TEST_F(pkt, snapshot_unused_fields_einval)
{
	struct tracebuf_pkt bad[] = {
		tb_pkt(TRACEBUF_PKT_SNAPSHOT, 1, 0, 0),
		tb_pkt(TRACEBUF_PKT_SNAPSHOT, 0, 1, 0),
		tb_pkt(TRACEBUF_PKT_SNAPSHOT, 0, 0, 8),
	};

	self->p.mode = TRACEBUF_MODE_CIRCULAR;
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		tb_expect_saved_refused(_metadata, &self->p, &bad[i], EINVAL);
}

TEST_F(pkt, snapshot_taken_delivered_and_clears_snapshot)
{
	struct tracebuf_pkt again = tb_pkt(TRACEBUF_PKT_SNAPSHOT, 0, 0, 0);
	struct tracebuf_pkt taken = tb_pkt(TRACEBUF_PKT_SNAPSHOT_TAKEN, 0, 7, 4096);

	self->p.mode = TRACEBUF_MODE_CIRCULAR;
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_snapshot(_metadata, &self->p);
	/* one at a time */
	tb_expect_saved_refused(_metadata, &self->p, &again, EBUSY);
	tb_expect_pkt_delivered(_metadata, &self->p, &taken, TRACEBUF_STATE_STARTED);
	/* cleared: a second answer is refused, a new snapshot accepted */
	tb_expect_pkt_refused(_metadata, &self->p, &taken, EPROTO);
	tb_snapshot(_metadata, &self->p);
}

TEST_F(pkt, snapshot_oneshot_accepted)
{
	struct tracebuf_pkt taken = tb_pkt(TRACEBUF_PKT_SNAPSHOT_TAKEN, 0, 0, 64);

	self->p.mode = TRACEBUF_MODE_ONESHOT;
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_snapshot(_metadata, &self->p);
	tb_expect_pkt_delivered(_metadata, &self->p, &taken, TRACEBUF_STATE_STARTED);
}

TEST_F(pkt, snapshot_taken_without_snapshot_eproto)
{
	struct tracebuf_pkt taken = tb_pkt(TRACEBUF_PKT_SNAPSHOT_TAKEN, 0, 0, 64);

	self->p.mode = TRACEBUF_MODE_CIRCULAR;
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_expect_pkt_refused(_metadata, &self->p, &taken, EPROTO);
}

TEST_F(pkt, snapshot_taken_malformed_einval)
{
	__u64 durable, rolling;
	struct tracebuf_pkt good, bad[3];

	self->p.mode = TRACEBUF_MODE_CIRCULAR;
	tb_buffer_sizes(TRACEBUF_MODE_CIRCULAR, TB_PKT_SIZE, &durable, &rolling);
	bad[0] = tb_pkt(TRACEBUF_PKT_SNAPSHOT_TAKEN, 1, 0, 64);
	bad[1] = tb_pkt(TRACEBUF_PKT_SNAPSHOT_TAKEN, 0, 0, 60);
	bad[2] = tb_pkt(TRACEBUF_PKT_SNAPSHOT_TAKEN, 0, 0, rolling + 8);
	good = tb_pkt(TRACEBUF_PKT_SNAPSHOT_TAKEN, 0, 0, rolling);
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_snapshot(_metadata, &self->p);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		tb_expect_pkt_refused(_metadata, &self->p, &bad[i], EINVAL);
	/* still outstanding */
	tb_expect_pkt_delivered(_metadata, &self->p, &good, TRACEBUF_STATE_STARTED);
}

/* The provider answers the snapshot it read before the STOP after it. */
TEST_F(pkt, snapshot_taken_in_stopping_accepted)
{
	struct tracebuf_pkt taken = tb_pkt(TRACEBUF_PKT_SNAPSHOT_TAKEN, 0, 1, 64);

	self->p.mode = TRACEBUF_MODE_CIRCULAR;
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_snapshot(_metadata, &self->p);
	ASSERT_EQ(0, mgr_stop(self->p.mgr, self->p.id));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_STOP, NULL);
	tb_expect_pkt_delivered(_metadata, &self->p, &taken, TRACEBUF_STATE_STOPPING);
}

/* A provider that never answered may be asked again in its next run. */
TEST_F(pkt, snapshot_unanswered_cleared_by_start)
{
	struct tracebuf_pkt taken = tb_pkt(TRACEBUF_PKT_SNAPSHOT_TAKEN, 0, 0, 64);

	self->p.mode = TRACEBUF_MODE_CIRCULAR;
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_snapshot(_metadata, &self->p);
	tb_peer_stop(_metadata, &self->p);
	ASSERT_EQ(0, mgr_start(self->p.mgr, self->p.id, TRACEBUF_START_RETAIN, NULL));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_START, NULL);
	tb_expect_pkt_refused(_metadata, &self->p, &taken, EPROTO);
	ASSERT_EQ(0, provider_started(self->p.prov));
	taken = tb_pkt(TRACEBUF_PKT_STARTED, 0, TRACEBUF_FIFO_PROTOCOL_VERSION, 0);
	tb_next_msg_pkt(_metadata, self->p.mgr, self->p.id, TRACEBUF_STATE_STARTED, &taken);
	tb_snapshot(_metadata, &self->p);
}

/* ---- START F_UPDATE, CATEGORIES, CATEGORIES_APPLIED ---- */

static int mgr_update(int fd, __u32 id, __u32 disposition, __u32 flags,
		      const struct tb_cats *cats)
{
	struct tracebuf_start_args a = {
		.provider_id = id,
		.disposition = disposition,
		.categories_ptr = cats ? tb_ptr(cats->buf) : 0,
		.categories_size = cats ? (__u32)cats->size : 0,
		.categories_count = cats ? cats->count : 0,
		.flags = flags,
	};

	return tb_ioctl(fd, TRACEBUF_IOC_MGR_START, &a);
}

/* The manager updates the started provider's categories to @cats. */
static __u32 tb_update(struct __test_metadata *_metadata, struct tb_peer *p,
		       const struct tb_cats *cats)
{
	struct tracebuf_pkt pkt;

	ASSERT_EQ(0, mgr_update(p->mgr, p->id, 0, TRACEBUF_START_F_UPDATE, cats));
	tb_next_pkt(_metadata, p->prov, TRACEBUF_PKT_CATEGORIES, &pkt);
	EXPECT_EQ(0, pkt.data16);
	EXPECT_EQ(0ULL, pkt.data64);
	return pkt.data32;
}

static struct tracebuf_pkt tb_applied(__u32 generation)
{
	return tb_pkt(TRACEBUF_PKT_CATEGORIES_APPLIED, 0, generation, 0);
}

/* The new list replaces START's; GET_CONFIG has it, with the generation. */
TEST_F(pkt, update_replaces_the_additional_categories)
{
	struct tracebuf_config_args cfg;
	struct tracebuf_pkt applied;
	struct tb_cats cats;
	char buf[256];
	__u32 gen;

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	ASSERT_EQ(0, tb_cats_build(&cats, "-posix:b", "net", NULL));
	gen = tb_update(_metadata, &self->p, &cats);
	EXPECT_EQ(self->p.generation + 1, gen);
	ASSERT_EQ(0, provider_get_config(self->p.prov, &cfg, buf, sizeof(buf)));
	EXPECT_EQ(gen, cfg.generation);
	EXPECT_EQ(2U, cfg.categories_count);
	EXPECT_EQ(cats.size, cfg.categories_size);
	EXPECT_EQ(0, memcmp(buf, cats.buf, cats.size));
	applied = tb_applied(gen);
	tb_expect_pkt_delivered(_metadata, &self->p, &applied, TRACEBUF_STATE_STARTED);
	/* cleared: answered once, and another update is taken */
	tb_expect_pkt_refused(_metadata, &self->p, &applied, EPROTO);
	free(cats.buf);
	ASSERT_EQ(0, tb_cats_build(&cats, "gfx", NULL));
	EXPECT_EQ(gen + 1, tb_update(_metadata, &self->p, &cats));
	free(cats.buf);
}

TEST_F(pkt, update_while_one_is_outstanding_ebusy)
{
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_update(_metadata, &self->p, NULL);
	EXPECT_EQ(-EBUSY, mgr_update(self->p.mgr, self->p.id, 0, TRACEBUF_START_F_UPDATE,
				     NULL));
	EXPECT_EMPTY(self->p.prov);
}

TEST_F(pkt, update_outside_started_refused)
{
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_INITIALIZED);
	EXPECT_EQ(-EINVAL, mgr_update(self->p.mgr, self->p.id, 0, TRACEBUF_START_F_UPDATE,
				      NULL));
	ASSERT_EQ(0, mgr_start(self->p.mgr, self->p.id, TRACEBUF_START_CLEAR_ENTIRE, NULL));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_START, NULL);
	/* STARTING: not yet */
	EXPECT_EQ(-EBUSY, mgr_update(self->p.mgr, self->p.id, 0, TRACEBUF_START_F_UPDATE,
				     NULL));
	EXPECT_EMPTY(self->p.prov);
}

TEST_F(pkt, update_in_stopping_or_stopped_refused)
{
	struct tracebuf_pkt stopped = tb_pkt(TRACEBUF_PKT_STOPPED, 0, 0, 0);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STOPPING);
	EXPECT_EQ(-EBUSY, mgr_update(self->p.mgr, self->p.id, 0, TRACEBUF_START_F_UPDATE,
				     NULL));
	ASSERT_EQ(0, provider_stopped(self->p.prov));
	tb_next_msg_pkt(_metadata, self->p.mgr, self->p.id, TRACEBUF_STATE_STOPPED, &stopped);
	EXPECT_EQ(-EINVAL, mgr_update(self->p.mgr, self->p.id, 0, TRACEBUF_START_F_UPDATE,
				      NULL));
	EXPECT_EMPTY(self->p.prov);
}

TEST_F(pkt, update_with_a_disposition_or_unknown_flag_einval)
{
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	EXPECT_EQ(-EINVAL, mgr_update(self->p.mgr, self->p.id, TRACEBUF_START_RETAIN,
				      TRACEBUF_START_F_UPDATE, NULL));
	EXPECT_EQ(-EINVAL, mgr_update(self->p.mgr, self->p.id, 0,
				      TRACEBUF_START_F_UPDATE << 1, NULL));
	EXPECT_EQ(-EINVAL, mgr_update(self->p.mgr, self->p.id, 0,
				      TRACEBUF_START_F_UPDATE | TRACEBUF_START_F_UPDATE << 1,
				      NULL));
	EXPECT_EMPTY(self->p.prov);
}

TEST_F(pkt, applied_without_update_or_of_another_generation_eproto)
{
	struct tracebuf_pkt applied;
	__u32 gen;

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	applied = tb_applied(self->p.generation);
	tb_expect_pkt_refused(_metadata, &self->p, &applied, EPROTO);
	gen = tb_update(_metadata, &self->p, NULL);
	applied = tb_applied(gen - 1);
	tb_expect_pkt_refused(_metadata, &self->p, &applied, EPROTO);
	applied = tb_applied(gen);
	tb_expect_pkt_delivered(_metadata, &self->p, &applied, TRACEBUF_STATE_STARTED);
}

TEST_F(pkt, applied_malformed_einval)
{
	struct tracebuf_pkt bad[2];
	__u32 gen;

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	gen = tb_update(_metadata, &self->p, NULL);
	bad[0] = tb_pkt(TRACEBUF_PKT_CATEGORIES_APPLIED, 1, gen, 0);
	bad[1] = tb_pkt(TRACEBUF_PKT_CATEGORIES_APPLIED, 0, gen, 8);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		tb_expect_pkt_refused(_metadata, &self->p, &bad[i], EINVAL);
}

/* The provider answers the update it read before the STOP after it. */
TEST_F(pkt, applied_in_stopping_accepted)
{
	struct tracebuf_pkt applied;
	__u32 gen;

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	gen = tb_update(_metadata, &self->p, NULL);
	ASSERT_EQ(0, mgr_stop(self->p.mgr, self->p.id));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_STOP, NULL);
	applied = tb_applied(gen);
	tb_expect_pkt_delivered(_metadata, &self->p, &applied, TRACEBUF_STATE_STOPPING);
}

/* A START clears an update never answered. */
TEST_F(pkt, update_unanswered_cleared_by_start)
{
	struct tracebuf_pkt applied;
	__u32 gen;

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	gen = tb_update(_metadata, &self->p, NULL);
	tb_peer_stop(_metadata, &self->p);
	ASSERT_EQ(0, mgr_start(self->p.mgr, self->p.id, TRACEBUF_START_RETAIN, NULL));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_START, NULL);
	applied = tb_applied(gen);
	tb_expect_pkt_refused(_metadata, &self->p, &applied, EPROTO);
}

/* ---- ALERT ---- */

TEST_F(pkt, alert_one_byte_name_delivered)
{
	struct tracebuf_pkt pkt = tb_alert_pkt("a", 1);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_expect_pkt_delivered(_metadata, &self->p, &pkt,
				TRACEBUF_STATE_STARTED);
}

TEST_F(pkt, alert_14_byte_name_delivered)
{
	struct tracebuf_pkt pkt = tb_alert_pkt("abcdefghijklmn", 14);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_expect_pkt_delivered(_metadata, &self->p, &pkt,
				TRACEBUF_STATE_STARTED);
}

TEST_F(pkt, alert_empty_name_einval)
{
	struct tracebuf_pkt pkt = tb_alert_pkt("", 0);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_expect_pkt_refused(_metadata, &self->p, &pkt, EINVAL);
}

TEST_F(pkt, alert_empty_name_with_later_bytes_einval)
{
	struct tracebuf_pkt pkt = tb_alert_pkt("\0abc", 4);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_expect_pkt_refused(_metadata, &self->p, &pkt, EINVAL);
}

TEST_F(pkt, alert_byte_after_padding_einval)
{
	struct tracebuf_pkt pkt = tb_alert_pkt("ab\0c", 4);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_expect_pkt_refused(_metadata, &self->p, &pkt, EINVAL);
}

TEST_F(pkt, alert_last_byte_after_padding_einval)
{
	struct tracebuf_pkt pkt = tb_alert_pkt("ab", 2);

	((char *)&pkt)[15] = 'z';
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_expect_pkt_refused(_metadata, &self->p, &pkt, EINVAL);
}

TEST_F(pkt, alert_in_starting_eproto)
{
	struct tracebuf_pkt pkt = tb_alert_pkt("early", 5);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTING);
	tb_expect_pkt_refused(_metadata, &self->p, &pkt, EPROTO);
}

TEST_F(pkt, alert_in_stopping_eproto)
{
	struct tracebuf_pkt pkt = tb_alert_pkt("late", 4);

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STOPPING);
	tb_expect_pkt_refused(_metadata, &self->p, &pkt, EPROTO);
}

/* ---- order of the provider inbox ---- */

TEST_F(pkt, provider_inbox_keeps_order)
{
	static const __u16 order[] = {
		TRACEBUF_PKT_INITIALIZE, TRACEBUF_PKT_START,
		TRACEBUF_PKT_BUFFER_SAVED, TRACEBUF_PKT_STOP,
		TRACEBUF_PKT_TERMINATE,
	};
	struct tracebuf_pkt pkt;
	unsigned int i;

	/* the provider reads nothing until the end */
	ASSERT_EQ(0, mgr_initialize(self->p.mgr, self->p.id,
				    TRACEBUF_MODE_STREAMING, TB_PKT_SIZE, NULL,
				    &self->p.buf_fd));
	ASSERT_EQ(0, mgr_start(self->p.mgr, self->p.id,
			       TRACEBUF_START_CLEAR_ENTIRE, NULL));
	ASSERT_EQ(0, provider_started(self->p.prov));
	ASSERT_EQ(0, provider_send(self->p.prov, TRACEBUF_PKT_SAVE_BUFFER, 0,
				   0, 16));
	ASSERT_EQ(0, mgr_buffer_saved(self->p.mgr, self->p.id, 0, 16));
	ASSERT_EQ(0, mgr_stop(self->p.mgr, self->p.id));
	ASSERT_EQ(0, provider_stopped(self->p.prov));
	ASSERT_EQ(0, mgr_terminate(self->p.mgr, self->p.id));
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		ASSERT_EQ(0, tb_read_pkt(self->p.prov, &pkt, TB_TIMEOUT_MS));
		EXPECT_EQ(order[i], pkt.request) TH_LOG("packet %u", i);
	}
	EXPECT_EMPTY(self->p.prov);
}

TEST_F(pkt, manager_inbox_keeps_order)
{
	struct tracebuf_pkt sent[4] = {
		tb_pkt(TRACEBUF_PKT_STARTED, 0, 1, 0),
		tb_alert_pkt("one", 3),
		tb_pkt(TRACEBUF_PKT_SAVE_BUFFER, 0, 0, 8),
		tb_alert_pkt("two", 3),
	};
	const __u16 state[4] = {
		TRACEBUF_STATE_STARTED, TRACEBUF_STATE_STARTED,
		TRACEBUF_STATE_STARTED, TRACEBUF_STATE_STARTED,
	};
	unsigned int i;

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTING);
	for (i = 0; i < ARRAY_SIZE(sent); i++) {
		ASSERT_EQ(0, provider_send_pkt(self->p.prov, &sent[i]));
	}
	for (i = 0; i < ARRAY_SIZE(sent); i++)
		tb_next_msg_pkt(_metadata, self->p.mgr, self->p.id, state[i],
				&sent[i]);
}

/* ---- provider inbox bound ---- */

#define TB_LAST_SAVE	TRACEBUF_INBOX_DEPTH

/*
 * STARTED with the provider inbox full (INITIALIZE, START and
 * BUFFER_SAVEDs, none read) and one more save outstanding.
 */
static void tb_fill_provider_inbox(struct __test_metadata *_metadata,
				   struct tb_peer *p)
{
	struct tracebuf_pkt started = tb_pkt(TRACEBUF_PKT_STARTED, 0, 1, 0);
	struct tracebuf_version_args v;
	unsigned int i;

	ASSERT_EQ(0, tb_version(p->mgr, &v));
	ASSERT_EQ((__u32)TRACEBUF_INBOX_DEPTH, v.inbox_depth);
	ASSERT_EQ(0, mgr_initialize(p->mgr, p->id, TRACEBUF_MODE_STREAMING,
				    TB_PKT_SIZE, NULL, &p->buf_fd));
	ASSERT_EQ(0, mgr_start(p->mgr, p->id, TRACEBUF_START_CLEAR_ENTIRE,
			       NULL));
	ASSERT_EQ(0, provider_send_pkt(p->prov, &started));
	tb_next_msg_pkt(_metadata, p->mgr, p->id, TRACEBUF_STATE_STARTED,
			&started);
	for (i = 2; i < TRACEBUF_INBOX_DEPTH; i++) {
		tb_save(_metadata, p, i, 8 * i, TRACEBUF_STATE_STARTED);
		ASSERT_EQ(0, mgr_buffer_saved(p->mgr, p->id, i, 8 * i))
			TH_LOG("BUFFER_SAVED %u refused", i);
	}
	tb_save(_metadata, p, TB_LAST_SAVE, 8 * TB_LAST_SAVE,
		TRACEBUF_STATE_STARTED);
}

/* A refused manager request: state and counters unchanged. */
#define EXPECT_FULL_INBOX_REFUSED(call) do {				\
	struct tracebuf_provider_info __b, __a;				\
	ASSERT_EQ(0, mgr_find(self->p.mgr, self->p.id, &__b));		\
	EXPECT_EQ(-EAGAIN, call);					\
	ASSERT_EQ(0, mgr_find(self->p.mgr, self->p.id, &__a));		\
	EXPECT_EQ(__b.packets_received, __a.packets_received);		\
	EXPECT_EQ(__b.saves, __a.saves);				\
	EXPECT_STATE(self->p.mgr, self->p.prov, self->p.id,		\
		     TRACEBUF_STATE_STARTED);				\
	EXPECT_EMPTY(self->p.mgr);					\
} while (0)

TEST_F(pkt, provider_inbox_full_stop_eagain)
{
	tb_fill_provider_inbox(_metadata, &self->p);
	EXPECT_FULL_INBOX_REFUSED(mgr_stop(self->p.mgr, self->p.id));
	/* room for one more after one read */
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_INITIALIZE, NULL);
	EXPECT_EQ(0, mgr_stop(self->p.mgr, self->p.id));
}

TEST_F(pkt, provider_inbox_full_terminate_eagain)
{
	tb_fill_provider_inbox(_metadata, &self->p);
	EXPECT_FULL_INBOX_REFUSED(mgr_terminate(self->p.mgr, self->p.id));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_INITIALIZE, NULL);
	EXPECT_EQ(0, mgr_terminate(self->p.mgr, self->p.id));
}

TEST_F(pkt, provider_inbox_full_buffer_saved_eagain)
{
	tb_fill_provider_inbox(_metadata, &self->p);
	EXPECT_FULL_INBOX_REFUSED(mgr_buffer_saved(self->p.mgr, self->p.id,
						   TB_LAST_SAVE,
						   8 * TB_LAST_SAVE));
	/* the save is still outstanding */
	EXPECT_EQ(-EBUSY, provider_send(self->p.prov, TRACEBUF_PKT_SAVE_BUFFER,
					0, TB_LAST_SAVE + 1,
					8 * TB_LAST_SAVE + 8));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_INITIALIZE, NULL);
	EXPECT_EQ(0, mgr_buffer_saved(self->p.mgr, self->p.id, TB_LAST_SAVE,
				      8 * TB_LAST_SAVE));
}

/* A categories update needs room in the provider's inbox too. */
TEST_F(pkt, provider_inbox_full_update_eagain)
{
	tb_fill_provider_inbox(_metadata, &self->p);
	EXPECT_FULL_INBOX_REFUSED(mgr_update(self->p.mgr, self->p.id, 0,
					     TRACEBUF_START_F_UPDATE, NULL));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_INITIALIZE, NULL);
	EXPECT_EQ(0, mgr_update(self->p.mgr, self->p.id, 0, TRACEBUF_START_F_UPDATE,
				NULL));
}

/* So does a START of a STOPPED provider, whose STOP filled it. */
TEST_F(pkt, provider_inbox_full_start_eagain)
{
	struct tracebuf_pkt started = tb_pkt(TRACEBUF_PKT_STARTED, 0, 1, 0);
	struct tracebuf_provider_info b, a;
	struct tracebuf_mgr_msg m;
	unsigned int i;

	ASSERT_EQ(0, mgr_initialize(self->p.mgr, self->p.id, TRACEBUF_MODE_STREAMING,
				    TB_PKT_SIZE, NULL, &self->p.buf_fd));
	ASSERT_EQ(0, mgr_start(self->p.mgr, self->p.id, TRACEBUF_START_CLEAR_ENTIRE,
			       NULL));
	ASSERT_EQ(0, provider_send_pkt(self->p.prov, &started));
	tb_next_msg_pkt(_metadata, self->p.mgr, self->p.id, TRACEBUF_STATE_STARTED,
			&started);
	/* INITIALIZE, START and BUFFER_SAVEDs: one short of full */
	for (i = 2; i < TRACEBUF_INBOX_DEPTH - 1; i++) {
		tb_save(_metadata, &self->p, i, 8 * i, TRACEBUF_STATE_STARTED);
		ASSERT_EQ(0, mgr_buffer_saved(self->p.mgr, self->p.id, i, 8 * i));
	}
	ASSERT_EQ(0, mgr_stop(self->p.mgr, self->p.id));
	ASSERT_EQ(0, provider_stopped(self->p.prov));
	tb_next_msg(_metadata, self->p.mgr, self->p.id, TRACEBUF_MSG_PACKET,
		    TRACEBUF_STATE_STOPPED, &m);
	ASSERT_EQ(0, mgr_find(self->p.mgr, self->p.id, &b));
	EXPECT_EQ(-EAGAIN, mgr_start(self->p.mgr, self->p.id, TRACEBUF_START_RETAIN,
				     NULL));
	ASSERT_EQ(0, mgr_find(self->p.mgr, self->p.id, &a));
	EXPECT_EQ(b.packets_received, a.packets_received);
	EXPECT_STATE(self->p.mgr, self->p.prov, self->p.id, TRACEBUF_STATE_STOPPED);
	EXPECT_EMPTY(self->p.mgr);
	/* room for one more after one read */
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_INITIALIZE, NULL);
	EXPECT_EQ(0, mgr_start(self->p.mgr, self->p.id, TRACEBUF_START_RETAIN, NULL));
}

TEST_F(pkt, provider_inbox_full_drains_in_order)
{
	struct tracebuf_pkt pkt;
	unsigned int i;

	tb_fill_provider_inbox(_metadata, &self->p);
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_INITIALIZE, NULL);
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_START, NULL);
	for (i = 2; i < TRACEBUF_INBOX_DEPTH; i++) {
		tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_BUFFER_SAVED,
			    &pkt);
		EXPECT_EQ(i, pkt.data32);
	}
	EXPECT_EMPTY(self->p.prov);
}

TEST_F(pkt, manager_death_flushes_provider_inbox)
{
	struct tracebuf_pkt pkt;

	tb_fill_provider_inbox(_metadata, &self->p);
	tb_close(&self->p.mgr);
	/* MANAGER_GONE did not need room: the inbox was flushed first */
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_MANAGER_GONE, &pkt);
	EXPECT_EQ(0, pkt.data16);
	EXPECT_EQ(0U, pkt.data32);
	EXPECT_EQ(0ULL, pkt.data64);
	EXPECT_EMPTY(self->p.prov);
	EXPECT_EQ(TRACEBUF_STATE_REGISTERED, provider_state(self->p.prov));
}

/* ---- manager inbox bound, per provider ---- */

static void tb_fill_outbox(struct __test_metadata *_metadata,
			   struct tb_peer *p)
{
	struct tracebuf_version_args v;
	unsigned int i;

	ASSERT_EQ(0, tb_version(p->mgr, &v));
	ASSERT_EQ((__u32)TRACEBUF_OUTBOX_DEPTH, v.outbox_depth);
	tb_drive(_metadata, p, TRACEBUF_STATE_STARTED);
	for (i = 0; i < TRACEBUF_OUTBOX_DEPTH; i++) {
		ASSERT_EQ(0, provider_alert(p->prov, "fill"))
			TH_LOG("ALERT %u refused", i);
	}
}

TEST_F(pkt, outbox_full_alert_eagain)
{
	struct tracebuf_provider_info before, after;
	struct tracebuf_mgr_msg msg;

	tb_fill_outbox(_metadata, &self->p);
	ASSERT_EQ(0, mgr_find(self->p.mgr, self->p.id, &before));
	EXPECT_EQ(-EAGAIN, provider_alert(self->p.prov, "over"));
	ASSERT_EQ(0, mgr_find(self->p.mgr, self->p.id, &after));
	EXPECT_EQ(before.packets_sent, after.packets_sent);
	/* one read makes room for one */
	ASSERT_EQ(0, tb_read_msg(self->p.mgr, &msg, TB_TIMEOUT_MS));
	EXPECT_EQ(0, provider_alert(self->p.prov, "room"));
	EXPECT_EQ(-EAGAIN, provider_alert(self->p.prov, "over"));
}

TEST_F(pkt, outbox_full_save_buffer_eagain)
{
	tb_fill_outbox(_metadata, &self->p);
	EXPECT_EQ(-EAGAIN, provider_send(self->p.prov, TRACEBUF_PKT_SAVE_BUFFER,
					 0, 0, 16));
	/* refused, so not outstanding: after a read it is accepted */
	ASSERT_EQ(16, tb_drain(self->p.mgr, sizeof(struct tracebuf_mgr_msg)));
	EXPECT_EQ(0, provider_send(self->p.prov, TRACEBUF_PKT_SAVE_BUFFER, 0,
				   0, 16));
}

TEST_F(pkt, outbox_full_does_not_block_other_provider)
{
	struct tb_peer q;

	tb_fill_outbox(_metadata, &self->p);
	/* a second provider of the same manager */
	tb_peer_init(&q);
	q.mgr = self->p.mgr;
	q.prov = tb_open_provider("pkt-other", &q.id);
	ASSERT_LE(0, q.prov);
	ASSERT_EQ(0, mgr_initialize(q.mgr, q.id, TRACEBUF_MODE_ONESHOT,
				    tb_buffer_min(), NULL, &q.buf_fd));
	ASSERT_EQ(0, mgr_start(q.mgr, q.id, TRACEBUF_START_RETAIN, NULL));
	EXPECT_EQ(0, provider_started(q.prov));
	EXPECT_EQ(0, provider_alert(q.prov, "other"));
	EXPECT_EQ(-EAGAIN, provider_alert(self->p.prov, "over"));
	tb_close(&q.prov);
	tb_close(&q.buf_fd);
}

TEST_F(pkt, outbox_full_gone_still_delivered)
{
	struct tracebuf_mgr_msg msg;
	int i;

	tb_fill_outbox(_metadata, &self->p);
	tb_close(&self->p.prov);
	for (i = 0; i < TRACEBUF_OUTBOX_DEPTH; i++) {
		ASSERT_EQ(0, tb_read_msg(self->p.mgr, &msg, TB_TIMEOUT_MS));
		EXPECT_EQ(TRACEBUF_MSG_PACKET, msg.type);
		EXPECT_EQ(TRACEBUF_PKT_ALERT, msg.pkt.request);
	}
	tb_next_msg(_metadata, self->p.mgr, self->p.id, TRACEBUF_MSG_GONE,
		    TRACEBUF_STATE_STARTED, NULL);
}

/* ---- unknown codes, provider side ---- */

FIXTURE(bad_code) {
	struct tb_peer p;
};

FIXTURE_VARIANT(bad_code) {
	__u16 code;
};

FIXTURE_VARIANT_ADD(bad_code, zero) { .code = 0x0000 };
FIXTURE_VARIANT_ADD(bad_code, next_free_0007) { .code = 0x0007 };
FIXTURE_VARIANT_ADD(bad_code, low_00ff) { .code = 0x00ff };
FIXTURE_VARIANT_ADD(bad_code, buffer_saved_0100) { .code = TRACEBUF_PKT_BUFFER_SAVED };
/* a manager's SNAPSHOT: unknown to providers, malformed from a manager */
FIXTURE_VARIANT_ADD(bad_code, snapshot_0101) { .code = TRACEBUF_PKT_SNAPSHOT };
FIXTURE_VARIANT_ADD(bad_code, next_free_0102) { .code = 0x0102 };
FIXTURE_VARIANT_ADD(bad_code, initialize_0200) { .code = TRACEBUF_PKT_INITIALIZE };
FIXTURE_VARIANT_ADD(bad_code, stop_0202) { .code = TRACEBUF_PKT_STOP };
FIXTURE_VARIANT_ADD(bad_code, manager_gone_0204) { .code = TRACEBUF_PKT_MANAGER_GONE };
FIXTURE_VARIANT_ADD(bad_code, categories_0205) { .code = TRACEBUF_PKT_CATEGORIES };
FIXTURE_VARIANT_ADD(bad_code, next_free_0206) { .code = 0x0206 };
FIXTURE_VARIANT_ADD(bad_code, all_ones_ffff) { .code = 0xffff };

FIXTURE_SETUP(bad_code)
{
	tb_peer_init(&self->p);
	TB_REQUIRE_DEV();
	tb_peer_open(_metadata, &self->p, "bad-code", 0);
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	/* a save outstanding: BUFFER_SAVED is legal for the manager */
	tb_save(_metadata, &self->p, 0, 16, TRACEBUF_STATE_STARTED);
}

FIXTURE_TEARDOWN(bad_code)
{
	tb_peer_close(&self->p);
}

TEST_F(bad_code, from_provider_einval)
{
	struct tracebuf_pkt pkt = tb_pkt(variant->code, 0, 0, 0);

	tb_expect_pkt_refused(_metadata, &self->p, &pkt, EINVAL);
}

TEST_F(bad_code, from_manager_einval)
{
	struct tracebuf_pkt pkt = tb_pkt(variant->code, 0, 0, 16);

	if (variant->code == TRACEBUF_PKT_BUFFER_SAVED)
		pkt = tb_pkt(TRACEBUF_PKT_STARTED, 0, 1, 0);
	tb_expect_saved_refused(_metadata, &self->p, &pkt, EINVAL);
	/* the save is still outstanding */
	EXPECT_EQ(0, mgr_buffer_saved(self->p.mgr, self->p.id, 0, 16));
}

/* ---- read() rules ---- */

FIXTURE(rd) {
	struct tb_peer p;
	void *bad;
};

FIXTURE_SETUP(rd)
{
	tb_peer_init(&self->p);
	TB_REQUIRE_DEV();
	self->bad = tb_bad_page();
	ASSERT_MAPPED(self->bad);
	tb_peer_open(_metadata, &self->p, "read", 0);
}

FIXTURE_TEARDOWN(rd)
{
	tb_peer_close(&self->p);
	if (self->bad && self->bad != MAP_FAILED)
		munmap(self->bad, tb_page_size());
}

/* INITIALIZE and START queued for the provider, unread. */
static void tb_queue_two(struct __test_metadata *_metadata, struct tb_peer *p)
{
	ASSERT_EQ(0, mgr_initialize(p->mgr, p->id, TRACEBUF_MODE_ONESHOT,
				    tb_buffer_min(), NULL, &p->buf_fd));
	ASSERT_EQ(0, mgr_start(p->mgr, p->id, TRACEBUF_START_RETAIN, NULL));
}

/* STARTED and two ALERTs queued for the manager, unread. */
static void tb_queue_three_msgs(struct __test_metadata *_metadata,
				struct tb_peer *p)
{
	tb_drive(_metadata, p, TRACEBUF_STATE_STARTING);
	ASSERT_EQ(0, provider_started(p->prov));
	ASSERT_EQ(0, provider_alert(p->prov, "r1"));
	ASSERT_EQ(0, provider_alert(p->prov, "r2"));
}

TEST_F(rd, provider_short_read_einval)
{
	struct tracebuf_pkt pkt[2];

	tb_queue_two(_metadata, &self->p);
	EXPECT_EQ(-1, read(self->p.prov, pkt, sizeof(pkt[0]) - 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, read(self->p.prov, pkt, 0));
	EXPECT_EQ(EINVAL, errno);
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_INITIALIZE, NULL);
}

TEST_F(rd, manager_short_read_einval)
{
	struct tracebuf_mgr_msg msg;

	tb_queue_three_msgs(_metadata, &self->p);
	EXPECT_EQ(-1, read(self->p.mgr, &msg, sizeof(msg) - 1));
	EXPECT_EQ(EINVAL, errno);
	/* a provider-sized read is too short for a manager record */
	EXPECT_EQ(-1, read(self->p.mgr, &msg, sizeof(struct tracebuf_pkt)));
	EXPECT_EQ(EINVAL, errno);
	tb_next_msg(_metadata, self->p.mgr, self->p.id, TRACEBUF_MSG_PACKET,
		    TRACEBUF_STATE_STARTED, &msg);
	EXPECT_EQ(TRACEBUF_PKT_STARTED, msg.pkt.request);
}

TEST_F(rd, provider_nonblocking_empty_eagain)
{
	struct tracebuf_pkt pkt;
	int flags = fcntl(self->p.prov, F_GETFL);

	ASSERT_EQ(0, fcntl(self->p.prov, F_SETFL, flags | O_NONBLOCK));
	EXPECT_EQ(-1, read(self->p.prov, &pkt, sizeof(pkt)));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(rd, provider_opened_nonblocking_empty_eagain)
{
	struct tracebuf_pkt pkt;
	int fd = tb_open_flags(O_NONBLOCK);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, register_provider(fd, "nonblock", 0, NULL));
	EXPECT_EQ(-1, read(fd, &pkt, sizeof(pkt)));
	EXPECT_EQ(EAGAIN, errno);
	close(fd);
}

TEST_F(rd, manager_nonblocking_empty_eagain)
{
	struct tracebuf_mgr_msg msg;
	int flags = fcntl(self->p.mgr, F_GETFL);

	ASSERT_EQ(0, fcntl(self->p.mgr, F_SETFL, flags | O_NONBLOCK));
	EXPECT_EQ(-1, read(self->p.mgr, &msg, sizeof(msg)));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(rd, provider_reads_several_records)
{
	struct tracebuf_pkt pkt[4];

	tb_queue_two(_metadata, &self->p);
	memset(pkt, TB_POISON8, sizeof(pkt));
	EXPECT_EQ((ssize_t)(2 * sizeof(pkt[0])),
		  read(self->p.prov, pkt, sizeof(pkt)));
	EXPECT_EQ(TRACEBUF_PKT_INITIALIZE, pkt[0].request);
	EXPECT_EQ(TRACEBUF_PKT_START, pkt[1].request);
	EXPECT_EQ(TB_POISON8, ((__u8 *)&pkt[2])[0]);
	EXPECT_EMPTY(self->p.prov);
}

TEST_F(rd, provider_read_returns_whole_records_only)
{
	struct tracebuf_pkt pkt[2];

	tb_queue_two(_metadata, &self->p);
	EXPECT_EQ((ssize_t)sizeof(pkt[0]),
		  read(self->p.prov, pkt, sizeof(pkt[0]) + 8));
	EXPECT_EQ(TRACEBUF_PKT_INITIALIZE, pkt[0].request);
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_START, NULL);
}

TEST_F(rd, manager_reads_several_records)
{
	struct tracebuf_mgr_msg msg[4];

	tb_queue_three_msgs(_metadata, &self->p);
	EXPECT_EQ((ssize_t)(3 * sizeof(msg[0])),
		  read(self->p.mgr, msg, sizeof(msg)));
	EXPECT_EQ(TRACEBUF_PKT_STARTED, msg[0].pkt.request);
	EXPECT_EQ(TRACEBUF_PKT_ALERT, msg[1].pkt.request);
	EXPECT_EQ(TRACEBUF_PKT_ALERT, msg[2].pkt.request);
	EXPECT_EQ('2', ((char *)&msg[2].pkt)[3]);
	EXPECT_EMPTY(self->p.mgr);
}

TEST_F(rd, manager_read_returns_whole_records_only)
{
	struct tracebuf_mgr_msg msg[3];

	tb_queue_three_msgs(_metadata, &self->p);
	EXPECT_EQ((ssize_t)(2 * sizeof(msg[0])),
		  read(self->p.mgr, msg, 3 * sizeof(msg[0]) - 1));
	tb_next_msg(_metadata, self->p.mgr, self->p.id, TRACEBUF_MSG_PACKET,
		    TRACEBUF_STATE_STARTED, &msg[2]);
	EXPECT_EQ('2', ((char *)&msg[2].pkt)[3]);
}

TEST_F(rd, provider_read_bad_pointer_keeps_message)
{
	tb_queue_two(_metadata, &self->p);
	EXPECT_EQ(-1, read(self->p.prov, self->bad, sizeof(struct tracebuf_pkt)));
	EXPECT_EQ(EFAULT, errno);
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_INITIALIZE, NULL);
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_START, NULL);
}

TEST_F(rd, manager_read_bad_pointer_keeps_message)
{
	struct tracebuf_mgr_msg msg;

	tb_queue_three_msgs(_metadata, &self->p);
	EXPECT_EQ(-1, read(self->p.mgr, self->bad, sizeof(msg)));
	EXPECT_EQ(EFAULT, errno);
	tb_next_msg(_metadata, self->p.mgr, self->p.id, TRACEBUF_MSG_PACKET,
		    TRACEBUF_STATE_STARTED, &msg);
	EXPECT_EQ(TRACEBUF_PKT_STARTED, msg.pkt.request);
}

TEST_HARNESS_MAIN
