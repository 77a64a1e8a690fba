/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A model of the tracebuf provider protocol, for spin (scripts/model.sh,
 * "make model").  Three processes: the module (its operations are atomic
 * steps, as they run under tracebuf_lock; module/provider.c, manager.c),
 * one provider (libtracebuf's dispatcher and engine, userlib/lib/provider.c,
 * engine.c, abstracted to its rolling halves and durable end) and a
 * manager (libtracebuf's session: it asks only what its own view of the
 * provider allows, unless PROBE is defined, when it asks anything).
 * Either side may die between any two of its steps; a second manager may
 * attach after the first died.
 *
 * The state set and the state table are not written here: uapi.pml is
 * generated from uapi/linux/tracebuf.h (scripts/model-uapi.sh), and every
 * answer of the modelled module is checked against it (UAPI_CHECK).
 *
 * Abstractions: one provider, inboxes of INBOX and OUTBOX packets (16 in
 * the uapi), wrapped counts modulo WRAPS, a durable buffer that holds 0
 * or 1 unit, bounded numbers of manager requests, filled halves and
 * alerts.  Data is not modelled, only who may write where.
 */
#include "uapi.pml"

#define E_NONE		0
#define EAGAIN		1
#define EALREADY	2
#define EBUSY		3
#define EINVAL		4
#define EPROTO		5
#define ESRCH		6
#define EPERM		7

#ifndef INBOX
#define INBOX		2
#endif
#ifndef OUTBOX
#define OUTBOX		8
#endif
#ifndef MGR_OPS
#define MGR_OPS		7
#endif
#ifndef FILLS
#define FILLS		3
#endif
#ifndef ALERTS
#define ALERTS		0
#endif
#ifndef MGR_LIVES
#define MGR_LIVES	2
#endif
/* INITIALIZE's mode: 1 streaming sealed, 2 streaming, 3 circular, 0 any */
#ifndef MODE
#define MODE		0
#endif
#define WRAPS		4
#define NBUF		3	/* buffer slots: live and retired ones */
#define NOBUF		255

/* modes: streaming with and without INIT_F_SEAL_SAVES, circular */
#define M_NONE		0
#define M_STREAM	1
#define M_CIRC		2
/* START dispositions: clearing and not */
#define D_CLEAR		1
#define D_RETAIN	3

/* the manager's view of the provider besides the states */
#define V_NOTMINE	0
#define V_GONE		9

mtype = {
	/* to the provider */
	P_INITIALIZE, P_START, P_STOP, P_TERMINATE, P_MANAGER_GONE,
	P_CATEGORIES, P_BUFFER_SAVED, P_SNAPSHOT,
	/* from the provider (MSG_PACKET), and the other messages */
	P_STARTED, P_SAVE_BUFFER, P_STOPPED, P_ALERT, P_SNAPSHOT_TAKEN,
	P_CATEGORIES_APPLIED, MSG_TERMINATED, MSG_GONE
};

/* the provider's inbox: code, data16, data32, data64 */
chan pbox = [INBOX] of { mtype, byte, byte, byte };
/* the manager's inbox: code, data16, data32, data64, state */
chan mbox = [OUTBOX + 3] of { mtype, byte, byte, byte, byte };

/* --- the module's provider (struct tracebuf_provider) ------------------ */
byte kstate;		/* 0 before REGISTER */
bool pdead;		/* its file closed */
bool owned;		/* p->owner: the live manager */
byte kmode;
byte kbuf = NOBUF;	/* p->buf */
bool save_pending;
byte save_w, save_d;
bool snap_pending, upd_pending;
byte gen;
byte out_len;		/* its packets waiting in the manager's inbox */
byte alerts_queued;	/* of which ALERTs */
bool out_refused;	/* one refused for out_len: woken at the next read */
bool went_on;		/* GET_CONFIG F_WENT_ON, until STARTED */
byte late_mgr;		/* the manager whose trace ran for it then */
bool p_woken;		/* its eventfd signalled without a message */
byte prefs;		/* kref: the file's, the owner's, one per message */
/* buffers: references (the provider's p->buf, the manager's handle,
 * the provider's mapping), sealable, sealed halves, reserved in
 * max_total_memory */
byte brefs[NBUF];
bool bsealable[NBUF];
bool bsealed0[NBUF];
bool bsealed1[NBUF];
bool blive[NBUF];
#define SEALED(b, r)	((r) == 0 -> bsealed0[b] : bsealed1[b])

/* --- the manager, as the module sees it ---------------------------------- */
bool malive;		/* a manager is attached */
byte minc;		/* which one (1, 2) */
bool mtracing;		/* MGR_SET_TRACING */
byte mhandle = NOBUF;	/* its buffer_fd */
byte mview;		/* its view of the provider */

/* --- the provider process, for the properties ---------------------------- */
bool palive;		/* it still runs (its file open) */
byte pmap = NOBUF;	/* the buffer it maps */
bool e_started;		/* its engine records */
byte e_mode;
byte e_half[2];		/* E_FREE, E_FILLING, E_FULL */
#define E_FREE		0
#define E_FILLING	1
#define E_FULL		2
byte e_cur;		/* the half it writes: e_wrap & 1 */
byte e_wrap;
byte e_hwrap[2];
bool e_save_out;	/* a SAVE_BUFFER it sent and awaits */
bool e_retry;		/* its SAVE_BUFFER refused with EAGAIN: asked
			 * again at the next dispatch */
bool e_resend;		/* ghost: the next SAVE_BUFFER is one refused */
byte e_save_w, e_save_d;
bool e_switch_wait;
bool e_unzeroed[2];
byte e_dur;		/* durable end: 0 or 1 */
bool dur_cleared;	/* the durable buffer cleared since the last save */

/* --- ghosts ---------------------------------------------------------------- */
byte view_after;	/* the manager's view once it read its inbox */
bool gone_told;		/* the module told the live manager of the death */
byte late_for;		/* a manager whose trace ran when it went on
			 * without waiting: the START it waited for */
bool late_flag;		/* libtracebuf's p->late */
bool gave_up;		/* it went on without the START it waited for */

/* the view the session takes on a message (userlib/lib/session.c) */
inline view_apply(v, code, st)
{
	if
	:: code == P_STARTED && v == STARTING -> v = STARTED
	:: code == P_STOPPED && v == STOPPING -> v = STOPPED
	:: code == MSG_TERMINATED -> v = V_NOTMINE
	:: code == MSG_GONE -> v = V_GONE
	:: else -> skip
	fi
}

/* the view the module gives this manager */
#define KVIEW	(gone_told -> V_GONE : (owned -> kstate : V_NOTMINE))

/*
 * The module's answer ret to request req, in state s before and t
 * after, against the uapi: a success is legal there and goes where the
 * table says; a refusal for the state is the table's errno; any refusal
 * changes nothing.
 */
#define UAPI_CHECK(req, s, ret, t) \
	if \
	:: ret != E_NONE -> printf("TB   refused in state %d: errno %d\n", s, ret) \
	:: else \
	fi; \
	if \
	:: ret == E_NONE -> assert(UAPI_LEGAL_##req(s) && t == UAPI_NEXT_##req(s)) \
	:: ret != E_NONE && !UAPI_LEGAL_##req(s) && ret != ESRCH && ret != EPERM -> \
		assert(ret == UAPI_ERR_##req(s)); assert(t == s) \
	:: else -> assert(t == s) \
	fi

/* tracebuf_manager_push(): a message, the provider referenced */
inline mpush(code, d16, d32, d64)
{
	assert(nfull(mbox));	/* [model] */
	mbox!code, d16, d32, d64, kstate;
	printf("TB module -> manager: %e %d %d %d, state %d\n", code, d16, d32, d64, kstate);
	prefs++;
	view_apply(view_after, code, kstate)
}

inline bput(b)
{
	assert(brefs[b] > 0);	/* [model] */
	brefs[b]--;
	if
	:: brefs[b] == 0 -> blive[b] = false; bsealed0[b] = false;
		bsealed1[b] = false; bsealable[b] = false
	:: else
	fi
}

/* tracebuf_provider_detach() */
inline kdetach()
{
	owned = false;
	if
	:: kbuf != NOBUF -> blive[kbuf] = false; bput(kbuf); kbuf = NOBUF
	:: else
	fi;
	kmode = M_NONE;
	save_pending = false; snap_pending = false; upd_pending = false
}

/* tracebuf_provider_saving() as a test of half r */
#define SAVING(r)	(save_pending && (save_w & 1) == (r))

/* ======================================================================= */
/* The module: manager requests (module/manager.c).                         */

/*
 * Witnesses: WIT(n), with the comment "W:name" beside it, marks a step
 * that the model must reach, lest a property hold only because nothing
 * gets there: scripts/model.sh runs with WITNESS=n and expects that
 * assertion to fail.
 */
#ifdef WITNESS
#define WIT(n)	assert(WITNESS != n)
#else
#define WIT(n)	skip
#endif

/* scratch, not part of a state: set and used within one atomic step */
hidden byte k_s, k_ret, k_b;	/* the provider's module calls */
hidden byte ms, mb;		/* the manager's */
byte m_s;			/* START's state before, across its steps */
byte mret;			/* its answer, until the manager took it */

inline k_initialize(mode, seal)
{
	atomic {
		ms = kstate; mret = E_NONE;
		if
		:: kstate == 0 || pdead -> mret = ESRCH
		:: else -> if
			:: owned || kstate != REGISTERED -> mret = EBUSY
			:: else -> if
				:: len(pbox) == INBOX -> mret = EAGAIN
				:: else
				fi
			fi
		fi;
		if
		:: mret == E_NONE ->
			mb = 0;
			do
			:: mb < NBUF && brefs[mb] != 0 -> mb++
			:: else -> break
			od;
			assert(mb < NBUF);	/* [model] */
			brefs[mb] = 2;		/* p->buf, buffer_fd */
			blive[mb] = true;
			bsealable[mb] = seal;
			gen = (gen + 1) % WRAPS;
			pbox!P_INITIALIZE, mode, gen, mb;
			printf("TB manager %d: INITIALIZE mode %d sealable %d\n", minc, mode, seal);
			kbuf = mb; kmode = mode;
			save_pending = false; snap_pending = false; upd_pending = false;
			owned = true; prefs++;
			kstate = INITIALIZED;
			if
			:: mhandle != NOBUF -> bput(mhandle)
			:: else
			fi;
			mhandle = mb;
			mview = INITIALIZED; view_after = INITIALIZED
		:: else
		fi;
		UAPI_CHECK(mgr_INITIALIZE, ms, mret, kstate)
	}
}

/* the checks of tracebuf_manager_check() and the provider lookup */
#define K_LOOKUP \
	:: kstate == 0 || pdead -> mret = ESRCH \
	:: else -> skip

/* START: checked, the disposition applied without the lock, then done */
inline k_start(disp)
{
	atomic {
		m_s = kstate; mret = E_NONE;
		if K_LOOKUP fi;
		if
		:: mret == E_NONE && kstate != INITIALIZED && kstate != STOPPED ->
			if
			:: kstate == STARTING || kstate == STARTED -> mret = EALREADY
			:: kstate == STOPPING -> mret = EBUSY
			:: else -> mret = EINVAL
			fi
		:: mret == E_NONE && (kstate == INITIALIZED || kstate == STOPPED) ->
			if
			:: len(pbox) == INBOX -> mret = EAGAIN
			:: save_pending && disp != D_RETAIN -> mret = EBUSY
			:: else
			fi
		:: else
		fi;
		if
		:: mret != E_NONE -> UAPI_CHECK(mgr_START, m_s, mret, kstate)
		:: else
		fi
	}
	if
	:: mret == E_NONE ->
		atomic {
			/* tracebuf_buf_apply_disposition(), lock dropped */
			if
			:: disp == D_CLEAR -> dur_cleared = true
			:: else
			fi
		}
		atomic {
			if
			:: pdead -> mret = ESRCH
			:: else ->
				if
				:: !SAVING(0) -> bsealed0[kbuf] = false
				:: else
				fi;
				if
				:: !SAVING(1) -> bsealed1[kbuf] = false
				:: else
				fi;
				gen = (gen + 1) % WRAPS;
				assert(nfull(pbox));	/* [model] */
				pbox!P_START, disp, gen, 0;
				printf("TB manager %d: START disposition %d\n", minc, disp);
				snap_pending = false; upd_pending = false;
				if
				:: save_pending -> WIT(1)	/* W:start-retains-a-save */
				:: else
				fi;
				kstate = STARTING;
				mview = STARTING; view_after = STARTING
			fi;
			UAPI_CHECK(mgr_START, m_s, mret, kstate);
			m_s = 0
		}
	:: else -> m_s = 0
	fi
}

inline k_update()
{
	atomic {
		ms = kstate; mret = E_NONE;
		if K_LOOKUP fi;
		if
		:: mret == E_NONE && kstate != STARTED ->
			if
			:: kstate == STARTING || kstate == STOPPING -> mret = EBUSY
			:: else -> mret = EINVAL
			fi
		:: mret == E_NONE && kstate == STARTED && upd_pending -> mret = EBUSY
		:: mret == E_NONE && kstate == STARTED && !upd_pending && len(pbox) == INBOX ->
			mret = EAGAIN
		:: else
		fi;
		if
		:: mret == E_NONE ->
			gen = (gen + 1) % WRAPS;
			pbox!P_CATEGORIES, 0, gen, 0;
			printf("TB manager %d: START F_UPDATE\n", minc);
			upd_pending = true
		:: else
		fi;
		UAPI_CHECK(mgr_START_F_UPDATE, ms, mret, kstate)
	}
}

/* STOP and TERMINATE: tracebuf_manager_request() */
inline k_request(stop)
{
	atomic {
		ms = kstate; mret = E_NONE;
		if K_LOOKUP fi;
		if
		:: mret == E_NONE ->
			if
			:: kstate == STARTING || kstate == STARTED -> skip
			:: kstate == INITIALIZED || kstate == STOPPING || kstate == STOPPED ->
				if
				:: stop -> mret = EALREADY
				:: else
				fi
			:: else -> mret = (stop -> EINVAL : EALREADY)
			fi
		:: else
		fi;
		if
		:: mret == E_NONE && len(pbox) == INBOX -> mret = EAGAIN
		:: else
		fi;
		if
		:: mret == E_NONE && stop ->
			pbox!P_STOP, 0, 0, 0;
			printf("TB manager %d: STOP\n", minc);
			kstate = STOPPING; mview = STOPPING; view_after = STOPPING
		:: mret == E_NONE && !stop ->
			pbox!P_TERMINATE, 0, 0, 0;
			printf("TB manager %d: TERMINATE\n", minc);
			kstate = TERMINATING; mview = TERMINATING; view_after = TERMINATING
		:: else
		fi;
		if
		:: stop -> UAPI_CHECK(mgr_STOP, ms, mret, kstate)
		:: else -> UAPI_CHECK(mgr_TERMINATE, ms, mret, kstate)
		fi
	}
}

inline k_snapshot()
{
	atomic {
		ms = kstate; mret = E_NONE;
		if K_LOOKUP fi;
		if
		:: mret == E_NONE && kstate != STARTED -> mret = EINVAL
		:: mret == E_NONE && kstate == STARTED && snap_pending -> mret = EBUSY
		:: mret == E_NONE && kstate == STARTED && !snap_pending && len(pbox) == INBOX ->
			mret = EAGAIN
		:: else
		fi;
		if
		:: mret == E_NONE -> pbox!P_SNAPSHOT, 0, 0, 0; snap_pending = true;
			printf("TB manager %d: SNAPSHOT\n", minc)
		:: else
		fi;
		UAPI_CHECK(mgr_SNAPSHOT, ms, mret, kstate)
	}
}

inline k_buffer_saved(w, d)
{
	atomic {
		ms = kstate; mret = E_NONE;
		if K_LOOKUP fi;
		if
		:: mret == E_NONE && (!owned || !save_pending || save_w != w || save_d != d) ->
			mret = EINVAL
		:: mret == E_NONE && owned && save_pending && save_w == w && save_d == d &&
		   len(pbox) == INBOX -> mret = EAGAIN
		:: else
		fi;
		if
		:: mret == E_NONE ->
			/* unsealed before the provider can hear of it */
			if
			:: (w & 1) == 0 -> bsealed0[kbuf] = false
			:: else -> bsealed1[kbuf] = false
			fi;
			pbox!P_BUFFER_SAVED, 0, w, d;
			printf("TB manager %d: BUFFER_SAVED %d %d\n", minc, w, d);
			save_pending = false;
			WIT(2)	/* W:buffer-saved */
		:: else
		fi;
		UAPI_CHECK(mgr_BUFFER_SAVED, ms, mret, kstate)
	}
}

/* ======================================================================= */
/* The module: the provider's packets (module/provider.c).                  */

hidden mtype k_c;
hidden byte k_32, k_64;

inline k_psend(code, d16, d32, d64)
{
	atomic {
		k_c = code; k_b = d16; k_32 = d32; k_64 = d64;
		printf("TB provider sends %e %d %d %d\n", k_c, k_b, k_32, k_64);
		k_s = kstate; k_ret = E_NONE;
		/* the module's word on the first STARTED since it went on */
		if
		:: k_c == P_STARTED && went_on ->
			if
			:: k_b != 0 && !(owned && late_mgr == minc) ->
				WIT(17)	/* W:late-not-for-this-trace@late */
			:: else
			fi;
			k_b = (owned && late_mgr == minc); went_on = false; late_mgr = 0
		:: else
		fi;
		/* tracebuf_pkt_allowed() */
		if
		:: k_c == P_STARTED -> k_ret = (kstate == STARTING -> E_NONE : EPROTO)
		:: k_c == P_STOPPED ->
			k_ret = (kstate == STOPPING || kstate == TERMINATING -> E_NONE : EPROTO)
		:: k_c == P_SAVE_BUFFER ->
			if
			:: kmode != M_STREAM || (kstate != STARTED && kstate != STOPPING) -> k_ret = EPROTO
			:: else -> if
				:: save_pending -> k_ret = EBUSY
				:: else
				fi
			fi
		:: k_c == P_ALERT -> k_ret = (kstate == STARTED -> E_NONE : EPROTO)
		:: k_c == P_SNAPSHOT_TAKEN -> k_ret = (snap_pending -> E_NONE : EPROTO)
		:: k_c == P_CATEGORIES_APPLIED ->
			k_ret = (upd_pending && k_32 == gen -> E_NONE : EPROTO)
		fi;
		if
		:: k_ret == E_NONE && out_len == OUTBOX ->
			/*
			 * The protocol's own packets never fill it, but alerts
			 * do (or a manager that does not read, as a PROBE one):
			 * so OUTBOX stands for TRACEBUF_OUTBOX_DEPTH.
			 */
#ifndef PROBE
			assert(alerts_queued > 0);	/* [model] */
#endif
			k_ret = EAGAIN;
			out_refused = true
		:: k_ret == E_NONE && out_len < OUTBOX && alerts_queued > 0 ->
			/* full: the ALERTs it stands for are more than ALERTS */
			k_ret = EAGAIN;
			out_refused = true
		:: k_ret != E_NONE || out_len < OUTBOX
		fi;
		if
		:: k_ret == E_NONE ->
			if
			:: k_c == P_STARTED ->
				kstate = STARTED;
				/*
				 * STARTED_LATE, as the manager gets it, exactly
				 * when the provider went on without waiting while
				 * the trace that starts it ran (a trace over by
				 * then, or begun later, missed nothing of it).
				 */
				assert(!(gave_up && late_for == minc) || k_b);	/* [late] */
				assert(!k_b || gave_up);	/* [late] */
				assert(k_b == (gave_up && late_for == minc));	/* [late] */
				if
				:: minc > 1 -> WIT(3)	/* W:started-by-second-manager */
				:: else
				fi;
				if
				:: k_b != 0 -> WIT(4)	/* W:started-late */
				:: else
				fi
			:: k_c == P_STOPPED ->
				if
				:: kstate == STOPPING -> kstate = STOPPED
				:: else
				fi;
				/* what it wrote is final: sealed until START, but a save's */
				if
				:: bsealable[kbuf] ->
					k_b = 0;
					if
					:: !SAVING(0) -> bsealed0[kbuf] = true; k_b = k_b | 1
					:: else
					fi;
					if
					:: !SAVING(1) -> bsealed1[kbuf] = true; k_b = k_b | 2
					:: else
					fi;
					WIT(5)	/* W:stopped-sealed */
				:: else
				fi
			:: k_c == P_SAVE_BUFFER ->
				save_pending = true; save_w = k_32; save_d = k_64;
				dur_cleared = false;
				if
				:: bsealable[kbuf] ->
					if
					:: (k_32 & 1) == 0 -> bsealed0[kbuf] = true
					:: else -> bsealed1[kbuf] = true
					fi;
					k_b = 1;
					WIT(6)	/* W:save-sealed */
				:: else
				fi
			:: k_c == P_SNAPSHOT_TAKEN -> snap_pending = false
			:: k_c == P_CATEGORIES_APPLIED -> upd_pending = false
			:: else
			fi;
			out_len++;
			if
			:: k_c == P_ALERT -> alerts_queued++
			:: else
			fi;
			mpush(k_c, k_b, k_32, k_64)
		:: else
		fi;
		if
		:: k_c == P_STARTED -> UAPI_CHECK(pkt_STARTED, k_s, k_ret, kstate)
		:: k_c == P_STOPPED -> UAPI_CHECK(pkt_STOPPED, k_s, k_ret, kstate)
		:: k_c == P_SAVE_BUFFER -> UAPI_CHECK(pkt_SAVE_BUFFER, k_s, k_ret, kstate)
		:: k_c == P_ALERT -> UAPI_CHECK(pkt_ALERT, k_s, k_ret, kstate)
		:: k_c == P_SNAPSHOT_TAKEN -> UAPI_CHECK(pkt_SNAPSHOT_TAKEN, k_s, k_ret, kstate)
		:: k_c == P_CATEGORIES_APPLIED ->
			UAPI_CHECK(pkt_CATEGORIES_APPLIED, k_s, k_ret, kstate)
		fi
	}
}

/* PROVIDER_RELEASE */
inline k_release()
{
	atomic {
		k_s = kstate; k_ret = E_NONE;
		if
		:: kstate != TERMINATING -> k_ret = EPROTO
		:: else ->
			/* the seals stay: its manager may be writing them out */
			if
			:: kbuf != NOBUF -> blive[kbuf] = false; bput(kbuf); kbuf = NOBUF
			:: else
			fi;
			owned = false; kmode = M_NONE;
			save_pending = false; snap_pending = false; upd_pending = false;
			kstate = REGISTERED;
			/* the owner's reference moves to the message */
			mpush(MSG_TERMINATED, 0, 0, 0);
			prefs--
		fi;
		UAPI_CHECK(provider_RELEASE, k_s, k_ret, kstate)
	}
}

/* ======================================================================= */
/* The provider: libtracebuf's dispatcher and engine.                        */

hidden mtype p_code;
hidden byte p_d16, p_d32, p_d64, p_w;
byte fills, alerts;
byte p_term;		/* TERMINATE: 1 to unmap, 2 to release */
bool hinted;		/* REGISTER said a trace runs for it */
bool save_now;

/* a record written into the half it writes */
inline e_write()
{
	assert(pmap != NOBUF && !SEALED(pmap, e_cur))	/* [seal] */
}

/* its arguments are read once: they may name e_cur and e_wrap */
hidden byte e_h, e_w;

inline e_enter(h, w)
{
	e_h = h; e_w = w;
	e_cur = e_h; e_wrap = e_w; e_half[e_h] = E_FILLING; e_hwrap[e_h] = e_w;
	e_write()
}

/* the half it writes is full: the next one, or wait for its save */
inline e_switch()
{
	if
	:: e_mode == M_CIRC -> e_enter(e_cur ^ 1, (e_wrap + 1) % WRAPS)
	:: e_mode == M_STREAM && e_half[e_cur ^ 1] == E_FREE ->
		e_enter(e_cur ^ 1, (e_wrap + 1) % WRAPS)
	:: e_mode == M_STREAM && e_half[e_cur ^ 1] != E_FREE ->
		e_switch_wait = true;
		WIT(7)	/* W:switch-waits-for-save */
	fi
}

/*
 * engine_service() and the SAVE_BUFFER it asks for: one refused with
 * EAGAIN (the manager's inbox full) is not awaited but asked again at the
 * next dispatch (tb_engine_save_refused()), which the module's
 * wake-up brings once the manager read a packet; other refusals ignored.
 */
inline e_service()
{
	if
	:: e_mode == M_STREAM && e_started && !e_save_out &&
	   (e_half[0] == E_FULL || e_half[1] == E_FULL) ->
		if
		:: e_half[0] == E_FULL && (e_half[1] != E_FULL ||
		   (e_hwrap[0] + WRAPS - e_hwrap[1]) % WRAPS == WRAPS - 1) -> k_b = 0
		:: else -> k_b = 1
		fi;
		e_save_out = true; e_save_w = e_hwrap[k_b]; e_save_d = e_dur;
		k_psend(P_SAVE_BUFFER, 0, e_save_w, e_save_d);
		if
		:: k_ret == EAGAIN ->
			e_save_out = false; e_retry = true; e_resend = true;
			WIT(15)	/* W:save-refused-for-a-full-inbox@alerts */
		:: k_ret == E_NONE && e_resend ->
			e_resend = false;
			WIT(16)	/* W:refused-save-sent-again@alerts */
		:: else
		fi
	:: else
	fi
}

/* the module wakes it: a refused packet would fit now */
inline k_room()
{
	if
	:: out_refused && !pdead -> out_refused = false; p_woken = true
	:: else
	fi
}

inline e_stop()
{
	e_started = false; save_now = false
}

/* tb_unmap(): the engine detached, the mapping gone */
inline p_unmap()
{
	e_stop();
	e_mode = M_NONE;
	if
	:: pmap != NOBUF -> bput(pmap); pmap = NOBUF
	:: else
	fi
}

/* tb_snapshot(): SNAPSHOT_TAKEN now, or after the other half's save */
inline p_snapshot()
{
	save_now = false;
	if
	:: e_mode == M_STREAM && e_started && e_half[e_cur] == E_FILLING &&
	   e_half[e_cur ^ 1] != E_FREE ->
		save_now = true;
		WIT(8)	/* W:save-now-waits */
	:: else ->
		p_w = e_wrap;
		if
		:: e_mode == M_STREAM && e_started && e_half[e_cur] == E_FILLING ->
			e_half[e_cur] = E_FULL; e_switch()
		:: else
		fi;
		if
		:: pmap == NOBUF -> p_w = 0
		:: else
		fi;
		k_psend(P_SNAPSHOT_TAKEN, 0, p_w, 0)
	fi
}

/* the provider's file closes (tracebuf_provider_release()) */
inline p_die()
{
	atomic {
		k_s = kstate;
		printf("TB provider dies in state %d\n", kstate);
		palive = false;
		e_started = false;
		if
		:: pmap != NOBUF -> bput(pmap); pmap = NOBUF
		:: else
		fi;
		pdead = true;
		if
		:: owned ->
			WIT(9)	/* W:provider-dies-owned */
			if
			:: kbuf != NOBUF -> blive[kbuf] = false; bput(kbuf); kbuf = NOBUF
			:: else
			fi;
			owned = false; kmode = M_NONE;
			save_pending = false; snap_pending = false; upd_pending = false;
			/* GONE never fails; the owner's reference moves to it */
			mbox!MSG_GONE, 0, 0, 0, kstate; gone_told = true;
			printf("TB module -> manager: MSG_GONE, state %d\n", kstate);
			view_apply(view_after, MSG_GONE, kstate)
		:: else
		fi;
		/* the file's reference */
		prefs--;
		UAPI_CHECK(provider_closes_its_file, k_s, E_NONE, kstate);
		/* everything it held is released, but what messages hold */
		assert(!owned && kbuf == NOBUF && !save_pending && !snap_pending &&	/* [death] */
		       !upd_pending && prefs == len(mbox))
	}
}

/* it dies between two of its steps, while it has any to take */
#define P_BUSY	(nempty(pbox) || p_term != 0 || save_now || alerts < ALERTS || \
		 (e_started && (fills < FILLS || e_dur == 0)))
#define P_MAYDIE \
	:: palive && P_BUSY -> p_die(); goto p_end

/* handle one packet (tb_handle()) */
inline p_handle()
{
	if
	:: p_code == P_INITIALIZE ->
		if
		:: pmap == NOBUF ->
			pmap = p_d64; brefs[pmap]++;
			/* tb_engine_attach(): a fresh engine */
			e_mode = (p_d16 == M_CIRC -> M_CIRC : M_STREAM);
			e_half[0] = E_FREE; e_half[1] = E_FREE; e_cur = 0; e_wrap = 0;
			e_save_out = false; e_switch_wait = false;
			e_unzeroed[0] = false; e_unzeroed[1] = false; e_dur = 0
		:: else
		fi
	:: p_code == P_START && pmap != NOBUF && !e_started ->
		if
		:: p_d16 == D_CLEAR ->
			e_half[0] = E_FREE; e_half[1] = E_FREE;
			e_save_out = false; e_switch_wait = false;
			e_unzeroed[0] = false; e_unzeroed[1] = false;
			e_dur = 0;
			e_enter(0, 0)
		:: else ->
			/* RETAIN: zero the halves saved while stopped */
			if
			:: e_unzeroed[0] -> assert(!SEALED(pmap, 0)); e_unzeroed[0] = false	/* [seal] */
			:: else
			fi;
			if
			:: e_unzeroed[1] -> assert(!SEALED(pmap, 1)); e_unzeroed[1] = false	/* [seal] */
			:: else
			fi;
			e_switch_wait = false;
			if
			:: e_half[e_cur] == E_FILLING -> e_write()
			:: e_half[e_cur] == E_FREE -> e_enter(e_cur, e_wrap)
			:: e_half[e_cur] == E_FULL -> e_switch()
			fi
		fi;
		e_started = true; save_now = false;
		p_w = late_flag;
		late_flag = false;
		k_psend(P_STARTED, p_w, 1, 0);
		gave_up = false; late_for = 0
	/* a START it cannot apply (no mapping, its categories unreadable):
	 * ignored, the manager times out */
	:: p_code == P_START -> skip
	:: p_code == P_STOP ->
		e_stop();
		k_psend(P_STOPPED, 0, 0, 0)
	:: p_code == P_TERMINATE ->
		/* then unmapped and released, in steps of their own */
		e_stop();
		k_psend(P_STOPPED, 0, 0, 0);
		p_term = 1
	:: p_code == P_MANAGER_GONE ->
		p_unmap()
	:: p_code == P_BUFFER_SAVED ->
		if
		:: pmap != NOBUF && e_save_out && e_save_w == p_d32 && e_save_d == p_d64 ->
			e_save_out = false;
			e_half[p_d32 & 1] = E_FREE;
			if
			:: !e_started -> e_unzeroed[p_d32 & 1] = true
			:: else -> assert(!SEALED(pmap, p_d32 & 1))	/* [seal] zeroed */
			fi;
			if
			:: e_switch_wait && e_started ->
				e_switch_wait = false;
				e_enter(p_d32 & 1, (p_d32 + 2) % WRAPS)
			:: else
			fi
		:: else
		fi
	:: p_code == P_SNAPSHOT -> p_snapshot()
	:: p_code == P_CATEGORIES ->
		if
		:: e_started -> k_psend(P_CATEGORIES_APPLIED, 0, p_d32, 0)
		:: else
		fi
	fi
}

active proctype provider()
{
	/* REGISTER, with REGISTER_F_SYNC */
	atomic {
		kstate = REGISTERED; palive = true; prefs = 1;
		printf("TB provider registers; a trace runs for it: %d\n", malive && mtracing);
		hinted = malive && mtracing
	}
	/* waiting for the START: it may give up at any time */
	do
	:: hinted && !e_started && p_term == 0 && nempty(pbox) ->
		atomic {
			pbox?p_code, p_d16, p_d32, p_d64;
			printf("TB provider reads %e %d %d %d\n", p_code, p_d16, p_d32, p_d64);
			p_handle()
		}
	:: hinted && !e_started ->
		/* the trace it may miss: one running while it goes on */
		atomic {
			late_flag = true; gave_up = true;
			printf("TB provider gives up waiting for its START\n");
			/* the trace it misses: the one running as it goes on */
			late_for = (malive && (mtracing || (owned && kstate == STARTING)) -> minc : 0);
			/* GET_CONFIG F_WENT_ON: tracebuf_manager_runs_for() */
			went_on = true;
			late_mgr = (malive && (mtracing || (owned && (kstate == STARTING ||
				    kstate == STARTED))) -> minc : 0)
		};
		break
	:: !hinted || e_started -> break
	P_MAYDIE
	od;
	/* the dispatcher */
end_p:
	do
	:: p_term == 0 && nempty(pbox) ->
		atomic {
			pbox?p_code, p_d16, p_d32, p_d64;
			printf("TB provider reads %e %d %d %d\n", p_code, p_d16, p_d32, p_d64);
			p_handle();
			e_retry = false
		}
	/* woken with no message: a dispatch, which asks a refused save again */
	:: atomic { p_woken -> p_woken = false; e_retry = false }
	:: atomic { p_term == 1 -> p_unmap(); p_term = 2 }
	:: atomic { p_term == 2 -> k_release(); p_term = 0 }
	:: save_now -> atomic { p_snapshot() }
	:: atomic { e_save_out == false && !e_retry && e_started && e_mode == M_STREAM &&
	   (e_half[0] == E_FULL || e_half[1] == E_FULL) -> e_service() }
	/* the application: a record, then maybe the half is full */
	:: atomic { e_started && e_half[e_cur] == E_FILLING && fills < FILLS ->
		fills++; e_half[e_cur] = E_FULL;
		printf("TB provider fills half %d (wrapped count %d)\n", e_cur, e_wrap);
		e_switch() }
	:: atomic { e_started && e_dur == 0 -> e_dur = 1 }
	:: atomic { alerts < ALERTS -> alerts++;
		printf("TB provider sends an ALERT\n");
		k_psend(P_ALERT, 0, 0, 0) }
	P_MAYDIE
	od;
p_end:
	skip
}

/* ======================================================================= */
/* The manager: libtracebuf's session.                                       */

hidden mtype m_code;
hidden byte m_d16, m_d32, m_d64, m_st;
byte m_ops, m_lives;
bool m_have_save;
bool m_snap, m_upd;	/* a SNAPSHOT, an update it waits for */
bool m_retry;		/* its BUFFER_SAVED found the inbox full */
byte m_sw, m_sd;

/* the manager writes out half r in place, or the durable part */
inline m_write_out(r)
{
	/* the provider may not change it: sealed, stopped or saving */
#ifndef PROBE
	assert(mhandle == NOBUF || !palive || pmap != mhandle ||	/* [write-out] */
	       SEALED(mhandle, r) ||
	       !(e_started && e_half[r] != E_FULL))
#else
	skip
#endif
}

/* the manager's file closes (tracebuf_manager_release()) */
inline m_die()
{
	atomic {
		ms = kstate;
		printf("TB manager %d dies\n", minc);
		malive = false; mtracing = false;
		/* its inbox: each message's reference goes */
		do
		:: nempty(mbox) -> mbox?m_code, m_d16, m_d32, m_d64, m_st;
			if
			:: m_code != MSG_TERMINATED && m_code != MSG_GONE -> out_len--; k_room()
			:: else
			fi;
			if
			:: m_code == P_ALERT -> alerts_queued--
			:: else
			fi;
			prefs--
		:: empty(mbox) -> break
		od;
		if
		:: owned ->
			WIT(10)	/* W:manager-dies-owning */
			bsealed0[kbuf] = false; bsealed1[kbuf] = false;
			kdetach();
			kstate = REGISTERED;
			/* the inbox flushed, MANAGER_GONE queued */
			do
			:: nempty(pbox) -> pbox?_, _, _, _
			:: empty(pbox) -> break
			od;
			pbox!P_MANAGER_GONE, 0, 0, 0;
			printf("TB module -> provider: MANAGER_GONE\n");
			prefs--;
			UAPI_CHECK(manager_closes_its_file, ms, E_NONE, kstate)
		:: else
		fi;
		if
		:: mhandle != NOBUF -> bput(mhandle); mhandle = NOBUF
		:: else
		fi;
		/* everything it held is released */
		assert(!owned && out_len == 0 && len(mbox) == 0 &&	/* [death] */
		       prefs == (palive -> 1 : 0));
		m_have_save = false; m_retry = false; m_sw = 0; m_sd = 0;
		gone_told = false;
		m_snap = false; m_upd = false;
		mview = V_NOTMINE; view_after = V_NOTMINE
	}
}

#define M_MAYDIE \
	:: m_ops < MGR_OPS || m_have_save || nempty(mbox) -> m_die(); goto m_next

#ifdef PROBE
#define MAY(cond)	true
#else
#define MAY(cond)	(cond)
#endif

active proctype manager()
{
m_attach:
	atomic {
		/* MGR_OPS requests in all, whichever manager asks them */
		malive = true; minc = m_lives + 1; m_lives++;
		printf("TB manager %d attaches\n", minc);
		mview = V_NOTMINE; view_after = V_NOTMINE
	}
	/* MGR_SET_TRACING: a session over this provider's name */
	if
	:: atomic {
		mtracing = true;
		printf("TB manager %d: SET_TRACING 1\n", minc)
	   }
	:: skip
	fi;
end_m:
	do
	:: m_ops < MGR_OPS && MAY(mview == V_NOTMINE && kstate != 0) ->
		atomic {
			m_ops++;
#if MODE == 1
			k_initialize(M_STREAM, true);
#elif MODE == 2
			k_initialize(M_STREAM, false);
#elif MODE == 3
			k_initialize(M_CIRC, false);
#else
			if
			:: k_initialize(M_STREAM, true)
			:: k_initialize(M_STREAM, false)
			:: k_initialize(M_CIRC, false)
			fi;
#endif
			mret = 0
		}
	:: m_ops < MGR_OPS && MAY(mview == INITIALIZED || mview == STOPPED) ->
		m_ops++;
		if
		:: k_start(D_CLEAR)
		:: k_start(D_RETAIN)
		fi;
		mret = 0
	:: m_ops < MGR_OPS && MAY(mview == STARTING || mview == STARTED) ->
		atomic { m_ops++; k_request(true); mret = 0 }
	:: m_ops < MGR_OPS && MAY(mview >= INITIALIZED && mview <= STOPPED) ->
		atomic { m_ops++; k_request(false); mret = 0 }
	:: m_ops < MGR_OPS && MAY(mview == STARTED && !m_snap) ->
		atomic { m_ops++; k_snapshot(); m_snap = (mret == E_NONE); mret = 0 }
	:: m_ops < MGR_OPS && MAY(mview == STARTED && !m_upd) ->
		atomic { m_ops++; k_update(); m_upd = (mret == E_NONE); mret = 0 }
	:: m_have_save && !m_retry ->
		atomic {
			/* the half it saves is still its own until the answer */
			m_write_out(m_sw & 1);
			k_buffer_saved(m_sw, m_sd);
			if
			:: mret == EAGAIN ->
				m_retry = true;
				WIT(11)	/* W:buffer-saved-eagain */
			:: else -> m_have_save = false; m_sw = 0; m_sd = 0
			fi;
			mret = 0
		}
	/* tried again once the provider read its inbox */
	:: m_retry && (len(pbox) < INBOX || pdead) -> m_retry = false
	:: nempty(mbox) ->
		atomic {
			mbox?m_code, m_d16, m_d32, m_d64, m_st;
			printf("TB manager %d reads %e %d %d %d\n", minc, m_code, m_d16, m_d32, m_d64);
			if
			:: m_code != MSG_TERMINATED && m_code != MSG_GONE -> out_len--; k_room()
			:: else
			fi;
			if
			:: m_code == P_ALERT -> alerts_queued--
			:: else
			fi;
			prefs--;
			view_apply(mview, m_code, m_st);
			if
			:: m_code == P_SAVE_BUFFER ->
				/* the durable part: final up to its end */
#ifndef PROBE
				assert(!dur_cleared || m_d64 == 0 || !palive);	/* [write-out] */
#endif
				m_write_out(m_d32 & 1);
				m_have_save = true; m_sw = m_d32; m_sd = m_d64
			:: m_code == P_SNAPSHOT_TAKEN -> m_snap = false
			:: m_code == P_CATEGORIES_APPLIED ->
				m_upd = false;
				WIT(12)	/* W:categories-applied */
			:: m_code == P_STOPPED && mview == STOPPED ->
				m_write_out(0); m_write_out(1)
			:: m_code == MSG_GONE -> WIT(13)	/* W:gone-read */
			:: m_code == MSG_TERMINATED -> WIT(14)	/* W:terminated-read */
			:: else
			fi;
			if
			:: m_code == MSG_GONE || m_code == MSG_TERMINATED ->
				/* harvested: the handle goes, no save to answer */
				m_have_save = false; m_retry = false; m_sw = 0; m_sd = 0;
				if
				:: mhandle != NOBUF -> bput(mhandle); mhandle = NOBUF
				:: else
				fi
			:: else
			fi
		}
	M_MAYDIE
	od;
m_next:
	if
	:: m_lives < MGR_LIVES -> goto m_attach
	:: else
	fi
}

/*
 * Invariants, checked in every state: the manager's view, once it has
 * read what is in flight, is the module's; a sealed half is never
 * written (e_write() asserts it where it happens); buffers are reserved
 * exactly while a provider has them.
 */
active proctype invariants()
{
end_inv:
	do
	:: atomic { !(!malive || view_after == KVIEW) -> assert(false) }	/* [views] */
	:: atomic { !(kbuf == NOBUF || blive[kbuf]) -> assert(false) }	/* [death] */
	od
}

/*
 * At the end (nothing can move): every save was answered unless the
 * provider went or was terminated, and whatever the dead sides held is
 * released.
 */
active proctype final()
{
	timeout;
	/* the save its engine waits for is the module's to answer (a
	 * PROBE manager that does not read may make it refuse one) */
#ifndef PROBE
	assert(!(e_save_out && e_started && owned && palive) || save_pending);	/* [save-answered] */
	/* and one refused for a full inbox was asked again */
	assert(!(e_retry && e_started && owned && palive));	/* [save-answered] */
#endif
	assert(!save_pending || pdead || !malive || kstate == TERMINATING);	/* [save-answered] */
	assert(pdead -> prefs == len(mbox) : true);	/* [death] */
	assert(!malive -> (mhandle == NOBUF && !owned) : true);	/* [death] */
	k_b = 0;
	do
	:: k_b < NBUF ->
		assert(brefs[k_b] == (k_b == kbuf) + (k_b == mhandle) + (k_b == pmap));	/* [death] */
		k_b++
	:: else -> break
	od
}
