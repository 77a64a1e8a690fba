// SPDX-License-Identifier: MIT
/* The engine over plain memory, for the host tests: see memtrace.h. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracebuf_event.h>
#include <tracebuf_fxt.h>
#include <tracebuf_reader.h>

#include "engine_priv.h"
#include "event_priv.h"
#include "memtrace.h"

const size_t mt_c_layout[MT_LAYOUT_N] = MT_LAYOUT;

struct mt_ev mt_ev[MT_EV_MAX];
unsigned int mt_nev;
unsigned int mt_nblobs, mt_blob_type;
char mt_blob_name[64], mt_blob_payload[64];
void *mt_buf;
static uint8_t *mt_out;		/* the collected trace; mt_ev points into it */

int mt_setup(uint32_t mode, size_t size, const char *cats, size_t cats_size,
	     unsigned int ncats)
{
	free(mt_buf);
	mt_buf = aligned_alloc(4096, size);
	if (!mt_buf)
		return -1;
	tb_engine_format(mt_buf, size, mode);
	tb_event_install();
	if (tb_engine_attach(mt_buf, size, mode, NULL) ||
	    tb_event_set_categories(cats, cats_size, ncats) ||
	    tb_engine_start(TRACEBUF_START_CLEAR_ENTIRE, TRACEBUF_ENGINE_F_CLEAR))
		return -1;
	return 0;
}

int mt_restart(uint32_t disposition)
{
	return tb_engine_start(disposition, TRACEBUF_ENGINE_F_CLEAR);
}

void mt_stop(void)
{
	tb_engine_stop();
}

void mt_detach(void)
{
	tb_engine_detach();
}

static void append(uint8_t **out, size_t *len, const void *p, size_t n)
{
	uint8_t *o = realloc(*out, *len + n);

	if (!o)
		abort();
	memcpy(o + *len, p, n);
	*out = o;
	*len += n;
}

int mt_collect(const char **where)
{
	struct tracebuf_engine *e = tb_engine_get();
	struct tracebuf_buffer_header *h;
	struct tracebuf_reader *r;
	struct tracebuf_reader_record rec;
	uint8_t *out = NULL;
	uint64_t words[8];
	size_t len = 0;
	uint32_t wc;
	int ret;

	free(mt_out);
	tb_engine_stop();
	h = e->hdr;
	wc = h->wrapped_count;
	tracebuf_fxt_magic_write(words, sizeof(words));
	append(&out, &len, words, 8);
	ret = tracebuf_fxt_provider_info_write(words, sizeof(words), 1, "test", 4);
	append(&out, &len, words, (size_t)ret);
	append(&out, &len, e->durable, h->durable_data_end);
	if (e->mode == TRACEBUF_MODE_ONESHOT) {
		append(&out, &len, e->rolling[0], h->rolling_data_end[0]);
	} else {
		if (wc > 0)
			append(&out, &len, e->rolling[(wc - 1) & 1],
			       h->rolling_data_end[(wc - 1) & 1]);
		append(&out, &len, e->rolling[wc & 1], h->rolling_data_end[wc & 1]);
	}
	mt_out = out;

	mt_nev = 0;
	mt_nblobs = 0;
	ret = tracebuf_reader_open_mem(out, len, TRACEBUF_LIB_READER_STRICT, &r);
	if (ret)
		return ret;
	while ((ret = tracebuf_reader_next(r, &rec)) == 1) {
		struct mt_ev *v;

		if (rec.type == TRACEBUF_LIB_FXT_RECORD_BLOB && rec.blob.name.len) {
			mt_nblobs++;
			mt_blob_type = rec.blob.type;
			snprintf(mt_blob_name, sizeof(mt_blob_name), "%.*s",
				 (int)rec.blob.name.len, rec.blob.name.data);
			snprintf(mt_blob_payload, sizeof(mt_blob_payload), "%.*s",
				 (int)rec.blob.payload.len, rec.blob.payload.data);
		}
		if (rec.type != TRACEBUF_LIB_FXT_RECORD_EVENT || mt_nev == MT_EV_MAX)
			continue;
		v = &mt_ev[mt_nev++];
		memset(v, 0, sizeof(*v));
		v->type = rec.event.type;
		snprintf(v->cat, sizeof(v->cat), "%.*s", (int)rec.event.category.len,
			 rec.event.category.data);
		snprintf(v->name, sizeof(v->name), "%.*s", (int)rec.event.name.len,
			 rec.event.name.data);
		v->ticks = rec.event.ticks;
		v->extra = rec.event.extra;
		v->pid = rec.event.process_koid;
		v->tid = rec.event.thread_koid;
		v->nargs = rec.nargs;
		memcpy(v->args, rec.args, sizeof(rec.args));
		for (unsigned int i = 0; i < rec.nargs; i++)
			if (rec.args[i].type == TRACEBUF_LIB_FXT_ARG_STRING)
				snprintf(v->strval, sizeof(v->strval), "%.*s",
					 (int)rec.args[i].str.len, rec.args[i].str.data);
	}
	if (ret < 0 && where) {
		static char msg[160];

		snprintf(msg, sizeof(msg), "%s at %zu", tracebuf_reader_error(r),
			 tracebuf_reader_error_offset(r));
		*where = msg;
	}
	tracebuf_reader_close(r);
	return ret;
}

const struct mt_ev *mt_find(const char *name)
{
	for (unsigned int i = 0; i < mt_nev; i++)
		if (!strcmp(mt_ev[i].name, name))
			return &mt_ev[i];
	return NULL;
}

unsigned int mt_count(const char *name)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < mt_nev; i++)
		n += !strcmp(mt_ev[i].name, name);
	return n;
}
