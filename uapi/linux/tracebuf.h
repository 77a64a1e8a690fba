/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * tracebuf: the Fuchsia tracing provider model on Linux.
 *
 * A process opens /dev/tracebuf (O_RDWR) and gives the file one role for
 * its whole life with its first role ioctl:
 *
 *  - provider: TRACEBUF_IOC_REGISTER.  The provider reads control
 *    messages and packets from its inbox with read() (whole
 *    struct tracebuf_pkt records), answers with TRACEBUF_IOC_PROVIDER_SEND,
 *    and maps its trace buffer with mmap(MAP_SHARED) on the same file.
 *  - manager: TRACEBUF_IOC_ATTACH (needs CAP_PERFMON or CAP_SYS_ADMIN, or
 *    membership of the group named by the module parameter manager_gid).
 *    The manager lists, initializes, starts, stops and terminates
 *    providers and reads their messages with read() (whole
 *    struct tracebuf_mgr_msg records).
 *
 * TRACEBUF_IOC_VERSION works on any file.  On a file without a role,
 * every other ioctl except the two role ioctls, read() and mmap() fail
 * with EINVAL and poll() reports EPOLLERR.
 *
 * ioctl rules.  One magic (0xBF, numbers 0x00-0x3F).  Every argument is a
 * struct whose size is encoded in the command.  A caller built against an
 * older or newer header may pass a shorter or longer struct with the same
 * number: shorter than the first released size fails with EINVAL, longer
 * is accepted when the extra bytes are zero and fails with E2BIG
 * otherwise, or when it is longer than TRACEBUF_ARGS_SIZE_MAX (4096,
 * whatever the page size).  Unknown flag bits and non-zero reserved fields fail with
 * EINVAL.  A bad user pointer fails with EFAULT.  Unknown commands fail
 * with ENOTTY.
 *
 * Provider state machine (enforced by the kernel; "told" means a message
 * is queued to that side's inbox):
 *
 *   request                    legal in             effect
 *   -------------------------  -------------------  -----------------------
 *   mgr INITIALIZE             REGISTERED, unowned  buffer allocated and its
 *                                                   header written, provider
 *                                                   told, -> INITIALIZED
 *   mgr START                  INITIALIZED,STOPPED  disposition applied,
 *                                                   provider told,-> STARTING
 *   pkt STARTED (version 1)    STARTING             -> STARTED, manager told
 *   mgr STOP                   STARTING, STARTED    provider told,-> STOPPING
 *   pkt STOPPED                STOPPING             -> STOPPED, manager told
 *                              TERMINATING          manager told
 *   pkt SAVE_BUFFER            STARTED, STOPPING;   manager told
 *                              streaming; none
 *                              outstanding
 *   mgr BUFFER_SAVED           save outstanding     provider told, cleared
 *                              with equal values
 *   pkt ALERT                  STARTED              manager told
 *   mgr SNAPSHOT               STARTED; none        provider told, snapshot
 *                              outstanding          outstanding
 *   pkt SNAPSHOT_TAKEN         snapshot outstanding manager told, cleared
 *   mgr START F_UPDATE         STARTED; no update   additional categories
 *                              outstanding          replaced, provider told
 *                                                   (CATEGORIES), update
 *                                                   outstanding
 *   pkt CATEGORIES_APPLIED     update outstanding,  manager told, cleared
 *                              its generation
 *   mgr TERMINATE              INITIALIZED..STOPPED provider told,
 *                                                   -> TERMINATING
 *   provider RELEASE           TERMINATING          -> REGISTERED, manager
 *                                                   told (MSG_TERMINATED)
 *   provider closes its file   any                  unregistered, manager
 *                                                   told (MSG_GONE, last
 *                                                   state); the buffer stays
 *                                                   readable via its handle
 *   manager closes its file    any                  each provider it owned
 *                                                   gets MANAGER_GONE (its
 *                                                   inbox is flushed first)
 *                                                   and -> REGISTERED
 *
 * Refusals (nothing changes):
 *   INITIALIZE not REGISTERED or owned by a manager        EBUSY
 *   START in STARTING/STARTED                              EALREADY
 *   START in STOPPING                                      EBUSY
 *   START that clears while a save is outstanding          EBUSY
 *   START in REGISTERED/TERMINATING                        EINVAL
 *   STOP in INITIALIZED/STOPPING/STOPPED                   EALREADY
 *   STOP in REGISTERED/TERMINATING                         EINVAL
 *   TERMINATE in REGISTERED/TERMINATING                    EALREADY
 *   BUFFER_SAVED without an equal outstanding save         EINVAL
 *   SNAPSHOT outside STARTED                               EINVAL
 *   SNAPSHOT to the kernel provider in streaming mode      EOPNOTSUPP
 *   SNAPSHOT while one is outstanding                      EBUSY
 *   SNAPSHOT_TAKEN without an outstanding SNAPSHOT         EPROTO
 *   START F_UPDATE in STARTING/STOPPING, or while an
 *   update is outstanding                                  EBUSY
 *   START F_UPDATE in another state than STARTED           EINVAL
 *   CATEGORIES_APPLIED without an outstanding update, or
 *   with another generation than its CATEGORIES            EPROTO
 *   STARTED/STOPPED/ALERT/SAVE_BUFFER in the wrong state    EPROTO
 *   SAVE_BUFFER outside streaming mode                     EPROTO
 *   SAVE_BUFFER while one is outstanding                   EBUSY
 *   RELEASE outside TERMINATING                            EPROTO
 *   malformed packet (non-zero unused field, bad alert
 *   name, durable or data end out of range) or unknown     EINVAL
 *   code
 *   STARTED with a protocol version other than 1           EPROTONOSUPPORT
 *   a provider the manager cannot see                      ESRCH
 *   a provider owned by another manager (except INITIALIZE) EPERM
 *   the receiving inbox is full                            EAGAIN
 *
 * Inboxes.  Each provider has one ordered inbox of TRACEBUF_INBOX_DEPTH
 * packets holding both control messages (INITIALIZE, START, STOP,
 * TERMINATE, MANAGER_GONE) and BUFFER_SAVED, so a provider never sees a
 * BUFFER_SAVED after the STOP that followed it.  When it is full, manager
 * requests that would add to it fail with EAGAIN and change nothing.  When
 * the manager goes away the inbox is flushed and MANAGER_GONE is queued,
 * which therefore never fails.
 * Each manager has one ordered inbox; at most TRACEBUF_OUTBOX_DEPTH
 * packets of one provider may wait in it, and a further packet from that
 * provider fails with EAGAIN and changes nothing, but that the provider
 * is woken (its poll() and eventfd, as for a message) once the manager
 * has read one of its packets, so that it may send the refused one again.
 * MSG_GONE and MSG_REGISTRY never fail (MSG_REGISTRY is coalesced: at most
 * one waits).
 * A side learns that its inbox is not empty through poll() (EPOLLIN) and
 * through the eventfd it registered with TRACEBUF_IOC_SET_EVENTFD, which
 * is signalled once per message (and once when it is registered while
 * messages wait, so nothing queued before it goes unnoticed).
 *
 * read() returns whole records only: a count smaller than one record
 * fails with EINVAL; an empty inbox blocks (interruptibly), or fails
 * with EAGAIN under O_NONBLOCK.  If copying to user memory fails, nothing
 * is consumed.
 *
 * Trace buffer.  INITIALIZE allocates a zero-filled buffer of buffer_size
 * bytes (a multiple of VERSION's buffer_align, which is 4096 or the page
 * size if larger, from TRACEBUF_BUFFER_MIN up to the module
 * parameter max_buffer_size: EINVAL below or unaligned, EFBIG above; the
 * buffers providers hold are capped together by max_total_memory: ENOMEM;
 * what one user's providers hold, buffers and published categories, by
 * max_user_memory: EDQUOT, unless the provider registered with
 * CAP_SYS_RESOURCE) and writes struct tracebuf_buffer_header at offset 0.
 * A buffer counts against max_total_memory while its provider has it,
 * and against its user's share until it is freed.  The provider maps it
 * with mmap(MAP_SHARED, offset 0..size) on its /dev/tracebuf file; the
 * manager gets buffer_fd, a read-only O_CLOEXEC handle it can mmap
 * (MAP_SHARED, PROT_READ only; mprotect cannot add PROT_WRITE) and pread.
 * A mapping must lie inside the buffer (EINVAL otherwise); mapping without
 * a buffer fails with ENODEV.  The memory is freed when the last mapping
 * or handle goes, so a crashed provider's buffer stays readable.
 *
 * Memory ordering between the provider (writer) and the manager (reader)
 * of a buffer, on every architecture (x86's TSO is not assumed): the
 * provider's stores of records and of the header's data ends that come
 * before it sends SAVE_BUFFER, SNAPSHOT_TAKEN or STOPPED are ordered before the manager's
 * loads that come after its read() of that packet, because the two
 * system calls take the same lock (release, then acquire).  Likewise the
 * manager's reads of a saved rolling buffer come before its BUFFER_SAVED,
 * so before the provider reuses that buffer; and the kernel's writes to
 * the header and its clearing at START come before the packet that tells
 * the provider.  Nothing else is ordered: a header read while the
 * provider writes (stop_mark, bytes_recorded, num_records_dropped) is a
 * hint, and a reader that trusts the data ends because stop_mark is set
 * must load stop_mark first, with acquire: the provider stores it last,
 * with release.  The manager must still treat every byte it reads as
 * untrusted: the provider may be buggy or hostile.
 */
#ifndef _UAPI_LINUX_TRACEBUF_H
#define _UAPI_LINUX_TRACEBUF_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#define TRACEBUF_DEVICE_NAME	"tracebuf"

#define TRACEBUF_ABI_MAJOR	1
#define TRACEBUF_ABI_MINOR	12

/* Limits fixed by the ABI (the Fuchsia ones). */
#define TRACEBUF_NAME_MAX		100	/* provider name, bytes */
#define TRACEBUF_CATEGORY_MAX		100	/* one category, bytes */
#define TRACEBUF_CATEGORIES_MAX		5000	/* categories in one list */
#define TRACEBUF_DESCRIPTION_MAX	400	/* category description */
#define TRACEBUF_ALERT_NAME_MAX		14	/* alert name, bytes */
#define TRACEBUF_ARGS_SIZE_MAX		4096	/* an ioctl struct, a LIST
						 * info_size: E2BIG above
						 */
#define TRACEBUF_BUFFER_MIN		4096	/* smallest trace buffer */
#define TRACEBUF_BUFFER_ALIGN		4096	/* buffer sizes are multiples,
						 * and of the page size:
						 * version buffer_align
						 */
#define TRACEBUF_BUFFER_MAX		(4ULL << 30)	/* largest, whatever the
							 * module parameter
							 * max_buffer_size says
							 * (Fuchsia's limit)
							 */
#define TRACEBUF_INBOX_DEPTH		16	/* packets waiting for a provider */
#define TRACEBUF_OUTBOX_DEPTH		16	/* one provider's packets waiting
						 * for its manager
						 */

/* ---------------------------------------------------------------------- */
/* FIFO packets: 16 bytes, Fuchsia's trace_provider_packet_t.             */

struct tracebuf_pkt {
	__u16 request;		/* TRACEBUF_PKT_* */
	__u16 data16;		/* per request; zero where unused */
	__u32 data32;
	__aligned_u64 data64;
};

#define TRACEBUF_FIFO_PROTOCOL_VERSION	1

/* provider -> manager (TRACEBUF_IOC_PROVIDER_SEND) */
#define TRACEBUF_PKT_STARTED		0x0001	/* data32 = protocol version,
						 * data16 = TRACEBUF_STARTED_*
						 */
#define TRACEBUF_PKT_SAVE_BUFFER	0x0002	/* data32 = wrapped count,
						 * data64 = durable data end
						 */
#define TRACEBUF_PKT_STOPPED		0x0003	/* all zero */
#define TRACEBUF_PKT_ALERT		0x0004	/* bytes 2..15: name, 1..14
						 * bytes, zero padded
						 */
#define TRACEBUF_PKT_SNAPSHOT_TAKEN	0x0005	/* data32 = wrapped count of
						 * the rolling buffer being
						 * written, data64 = where
						 * its records end now
						 */
#define TRACEBUF_PKT_CATEGORIES_APPLIED	0x0006	/* data32 = the generation of
						 * the CATEGORIES applied
						 */
/*
 * STARTED's data16 (ABI 1.7, TRACEBUF_FEAT_STARTED_LATE; zero before):
 * LATE, the provider had stopped
 * waiting for this START (it registered while a trace ran, and gave up
 * before it came), so what it recorded meanwhile is not in its buffer.
 * A provider that said when it gave up (GET_CONFIG's
 * TRACEBUF_CONFIG_F_WENT_ON) has it set by the kernel instead, exactly
 * when the manager that starts it ran a trace for it then.
 */
#define TRACEBUF_STARTED_LATE		0x0001
/*
 * SAVE_BUFFER's data16, as the manager reads it (ABI 1.8,
 * TRACEBUF_FEAT_SEAL_SAVES; a provider sends 0): SEALED, the kernel
 * sealed the rolling buffer to save (INITIALIZE's
 * TRACEBUF_INIT_F_SEAL_SAVES says what that guarantees).
 */
#define TRACEBUF_SAVE_SEALED		0x0001
/*
 * STOPPED's data16, as the manager reads it (ABI 1.9,
 * TRACEBUF_FEAT_SEAL_STOPS; a provider sends 0): the rolling buffers the
 * kernel sealed at the stop, in a buffer initialized with
 * TRACEBUF_INIT_F_SEAL_SAVES: each one no save holds sealed.  They stay
 * sealed until the next START, so the manager may write their final
 * records out in place.
 */
#define TRACEBUF_STOPPED_SEALED0	0x0001	/* rolling buffer 0 */
#define TRACEBUF_STOPPED_SEALED1	0x0002	/* rolling buffer 1 */
/*
 * SNAPSHOT in streaming mode (ABI 1.10, TRACEBUF_FEAT_SAVE_NOW; refused
 * with EINVAL before): a save now, for a flush.  The provider ends the
 * rolling buffer it writes where its records end, goes on in the other
 * one, and asks for the ended one's save (SAVE_BUFFER) as for a full one;
 * if the other one is not saved yet, it does so once that save is
 * acknowledged.  Its SNAPSHOT_TAKEN then says which rolling buffer holds
 * the last of its records (data32, its wrapped count) and where they end
 * in it (data64; 0: it holds none, all are in the ones before): once the
 * manager saved that one, it holds all the provider recorded before the
 * SNAPSHOT.  A provider of an earlier library answers 0, 0.
 */
/* manager -> provider (TRACEBUF_IOC_MGR_SEND) */
#define TRACEBUF_PKT_BUFFER_SAVED	0x0100	/* echoes the SAVE_BUFFER */
#define TRACEBUF_PKT_SNAPSHOT		0x0101	/* all zero */
/* kernel -> provider control messages, in the same inbox */
#define TRACEBUF_PKT_INITIALIZE		0x0200	/* data16 = mode,
						 * data32 = config generation,
						 * data64 = buffer size
						 */
#define TRACEBUF_PKT_START		0x0201	/* data16 = disposition,
						 * data32 = config generation
						 */
#define TRACEBUF_PKT_STOP		0x0202
#define TRACEBUF_PKT_TERMINATE		0x0203
#define TRACEBUF_PKT_MANAGER_GONE	0x0204	/* stop now, discard in-flight
						 * data; back in REGISTERED
						 */
#define TRACEBUF_PKT_CATEGORIES		0x0205	/* data32 = config generation:
						 * the enabled categories
						 * changed (GET_CONFIG reads
						 * them); answer
						 * CATEGORIES_APPLIED
						 */

/* ---------------------------------------------------------------------- */
/* Enumerations.  0 is never valid.                                       */

/* Provider states. */
#define TRACEBUF_STATE_REGISTERED	1
#define TRACEBUF_STATE_INITIALIZED	2
#define TRACEBUF_STATE_STARTING		3
#define TRACEBUF_STATE_STARTED		4
#define TRACEBUF_STATE_STOPPING		5
#define TRACEBUF_STATE_STOPPED		6
#define TRACEBUF_STATE_TERMINATING	7

/* Buffering modes, as in fuchsia.tracing.BufferingMode. */
#define TRACEBUF_MODE_ONESHOT		1
#define TRACEBUF_MODE_CIRCULAR		2
#define TRACEBUF_MODE_STREAMING		3

/* Buffer dispositions at START, as in fuchsia.tracing.BufferDisposition. */
#define TRACEBUF_START_CLEAR_ENTIRE	1
#define TRACEBUF_START_CLEAR_NONDURABLE	2
#define TRACEBUF_START_RETAIN		3

/* ---------------------------------------------------------------------- */
/* The trace buffer header: 128 bytes at offset 0, Fuchsia's layout.      */

#define TRACEBUF_HEADER_MAGIC		0x627566ee68656164ULL
#define TRACEBUF_HEADER_VERSION		0
#define TRACEBUF_HEADER_SIZE		128
#define TRACEBUF_DURABLE_MAX		(1024 * 1024)

/* buffering_mode in the header uses the engine numbering. */
#define TRACEBUF_HEADER_MODE_ONESHOT	0
#define TRACEBUF_HEADER_MODE_CIRCULAR	1
#define TRACEBUF_HEADER_MODE_STREAMING	2

/*
 * Layout: [header][durable][rolling 0][rolling 1], no gaps.  Oneshot has
 * no durable buffer and one rolling buffer of total_size - 128 bytes.
 * Otherwise, with avail = total_size - 128:
 *   durable = min(avail / 16, 1 MiB); durable += (avail - durable) & 15;
 *   rolling = (avail - durable) / 2.
 * The kernel writes magic, version, buffering_mode and the three sizes;
 * the provider owns every other field.  stop_mark (not in Fuchsia's
 * header, where it is reserved) is TRACEBUF_HEADER_STOP_MARK once the
 * provider stopped writing and made the data ends final, 0 otherwise: a
 * manager harvesting a provider that went away without sending STOPPED
 * (it exited while tracing) may then read by the data ends instead of
 * walking records.  Like every provider field it is a claim to check.
 * bytes_recorded (reserved in Fuchsia's header too) is how many bytes of
 * records the provider has taken since its buffer was last cleared, for
 * a manager to show while it records; a hint, never used to read data.
 */
struct tracebuf_buffer_header {
	__aligned_u64 magic;
	__u16 version;
	__u8 buffering_mode;
	__u8 reserved1;
	__u32 wrapped_count;
	__aligned_u64 total_size;
	__aligned_u64 durable_buffer_size;
	__aligned_u64 rolling_buffer_size;
	__aligned_u64 durable_data_end;
	__aligned_u64 rolling_data_end[2];
	__aligned_u64 num_records_dropped;
	__aligned_u64 stop_mark;
	__aligned_u64 bytes_recorded;
	__aligned_u64 reserved[5];
};

#define TRACEBUF_HEADER_STOP_MARK	0x646570706f7473ULL	/* "stopped" */

/*
 * The layout rule above, once, for every side that needs it: the kernel
 * writing the header, the provider's engine checking it, the manager
 * reading a buffer it does not trust.  @mode is a valid TRACEBUF_MODE_*
 * and @total_size at least TRACEBUF_BUFFER_MIN.
 */
static inline __u64 tracebuf_layout_durable_size(__u64 total_size, __u32 mode)
{
	__u64 avail = total_size - TRACEBUF_HEADER_SIZE;
	__u64 durable = avail / 16;

	if (mode == TRACEBUF_MODE_ONESHOT)
		return 0;
	if (durable > TRACEBUF_DURABLE_MAX)
		durable = TRACEBUF_DURABLE_MAX;
	return durable + ((avail - durable) & 15);
}

static inline __u64 tracebuf_layout_rolling_size(__u64 total_size, __u32 mode)
{
	__u64 avail = total_size - TRACEBUF_HEADER_SIZE;

	return mode == TRACEBUF_MODE_ONESHOT ? avail :
	       (avail - tracebuf_layout_durable_size(total_size, mode)) / 2;
}

/* Where rolling buffer @rolling (0, or 1 but in oneshot mode) starts. */
static inline __u64 tracebuf_layout_rolling_off(__u64 total_size, __u32 mode, __u32 rolling)
{
	return TRACEBUF_HEADER_SIZE + tracebuf_layout_durable_size(total_size, mode) +
	       rolling * tracebuf_layout_rolling_size(total_size, mode);
}

/*
 * What TRACEBUF_INIT_F_SEAL_SAVES seals of rolling buffer @rolling: the
 * pages wholly inside it, [*first, *end) from the buffer's start, for a
 * @page_size (a power of two) of the kernel's; empty (*end == *first)
 * when no page is.
 */
static inline void tracebuf_layout_sealed(__u64 total_size, __u32 mode, __u32 rolling,
					  __u64 page_size, __u64 *first, __u64 *end)
{
	__u64 off = tracebuf_layout_rolling_off(total_size, mode, rolling);
	__u64 last = (off + tracebuf_layout_rolling_size(total_size, mode)) & ~(page_size - 1);

	*first = (off + page_size - 1) & ~(page_size - 1);
	*end = last > *first ? last : *first;
}

/* The header's buffering_mode (engine numbering) of TRACEBUF_MODE_* @mode. */
static inline __u8 tracebuf_layout_header_mode(__u32 mode)
{
	return mode == TRACEBUF_MODE_CIRCULAR ? TRACEBUF_HEADER_MODE_CIRCULAR :
	       mode == TRACEBUF_MODE_STREAMING ? TRACEBUF_HEADER_MODE_STREAMING :
	       TRACEBUF_HEADER_MODE_ONESHOT;
}

/* ---------------------------------------------------------------------- */
/* ioctl arguments.  "In" fields are read by the kernel, "Out" written.   */

/* TRACEBUF_IOC_VERSION: any file, any time. */
struct tracebuf_version_args {
	__u32 abi_major;		/* Out: TRACEBUF_ABI_MAJOR */
	__u32 abi_minor;		/* Out: TRACEBUF_ABI_MINOR */
	__aligned_u64 features;		/* Out: TRACEBUF_FEAT_* */
	__aligned_u64 ioctls;		/* Out: bit _IOC_NR(cmd) per ioctl */
	__aligned_u64 max_buffer_size;	/* Out: module parameter */
	__aligned_u64 max_total_memory;	/* Out: module parameter */
	__u32 max_providers;		/* Out: module parameter */
	__u32 inbox_depth;		/* Out: TRACEBUF_INBOX_DEPTH */
	__u32 outbox_depth;		/* Out: TRACEBUF_OUTBOX_DEPTH */
	__u32 name_max;			/* Out: TRACEBUF_NAME_MAX */
	__u32 category_max;		/* Out: TRACEBUF_CATEGORY_MAX */
	__u32 categories_max;		/* Out: TRACEBUF_CATEGORIES_MAX */
	/* VER1 (ABI 1.1) */
	union {
		__aligned_u64 counter_khz; /* Out: the CPU counter's rate,
					    * below; 0 when there is none
					    */
		__aligned_u64 tsc_khz;	/* Out: its name before ABI 1.4 */
	};
	/* VER2 (ABI 1.4) */
	__u32 buffer_align;		/* Out: INITIALIZE's buffer_size is a
					 * multiple of it
					 */
	__u32 reserved;			/* Out: 0 */
};

#define TRACEBUF_VERSION_SIZE_VER0	64
#define TRACEBUF_VERSION_SIZE_VER1	72
#define TRACEBUF_VERSION_SIZE_VER2	80

/*
 * counter_khz: the rate, in kHz, of a CPU counter user space may take
 * its timestamps from (tracebuf's library then does, and writes the rate
 * in the trace), or 0: then use CLOCK_MONOTONIC.  Reported only when the
 * counter is read without a system call or a trap, runs at a constant
 * rate in step on every CPU, and its rate is a whole number of kHz:
 *  - x86 (TRACEBUF_FEAT_CNTVCT clear): the TSC (rdtsc), when the kernel
 *    finds it constant, non-stop and stable;
 *  - arm64 (TRACEBUF_FEAT_CNTVCT set): the generic timer's virtual count,
 *    CNTVCT_EL0 (AArch64; CNTVCT, mrrc p15, 1, ..., c14, in a 32-bit
 *    program), at the rate of CNTFRQ_EL0 (or the device tree's, which the
 *    kernel's timer then uses too), when the kernel lets EL0 read it
 *    directly on every CPU: no counter erratum workaround traps it, for
 *    64-bit or (ARM erratum 1418040) for 32-bit programs;
 *  - 32-bit Arm (TRACEBUF_FEAT_CNTVCT set): the same CNTVCT, where the
 *    CPU has the generic timer, the firmware set it up and the kernel
 *    lets PL0 read it (as for its own vDSO).
 * The value is the same for every caller, so that every provider on a
 * machine timestamps alike.  A program built for one architecture must
 * not use the other's counter (a 32-bit Arm program under user-mode
 * emulation on x86, say).
 *
 * buffer_align: max(TRACEBUF_BUFFER_ALIGN, the kernel's page size), e.g.
 * 16384 or 65536 on arm64 kernels with those pages; the smallest buffer
 * is then max(TRACEBUF_BUFFER_MIN, buffer_align).  Before ABI 1.4 it was
 * not reported (TRACEBUF_FEAT_BUFFER_ALIGN clear), and those kernels
 * needed a multiple of 4096 and of their page size.
 */

#define TRACEBUF_FEAT_EVENTFD		_BITULL(0)
#define TRACEBUF_FEAT_WATCH		_BITULL(1)	/* ATTACH_F_WATCH */
#define TRACEBUF_FEAT_ADDITIONAL_CATEGORIES _BITULL(2)
#define TRACEBUF_FEAT_COMPAT		_BITULL(3)	/* 32-bit callers (a 32-bit
							 * kernel, or CONFIG_COMPAT)
							 */
#define TRACEBUF_FEAT_KNOWN_CATEGORIES	_BITULL(4)	/* PROVIDER_SET_CATEGORIES,
							 * MGR_GET_CATEGORIES
							 */
#define TRACEBUF_FEAT_TSC_RATE		_BITULL(5)	/* version counter_khz */
#define TRACEBUF_FEAT_COUNTER_RATE	TRACEBUF_FEAT_TSC_RATE
#define TRACEBUF_FEAT_GENL		_BITULL(6)	/* the generic netlink
							 * family below
							 */
#define TRACEBUF_FEAT_SET_TRACING	_BITULL(7)	/* MGR_SET_TRACING */
#define TRACEBUF_FEAT_TRACING_NAMES	_BITULL(8)	/* its VER1 name list */
#define TRACEBUF_FEAT_CNTVCT		_BITULL(9)	/* counter_khz is the Arm
							 * generic timer's
							 */
#define TRACEBUF_FEAT_BUFFER_ALIGN	_BITULL(10)	/* version buffer_align */
#define TRACEBUF_FEAT_UPDATE_CATEGORIES	_BITULL(11)	/* START F_UPDATE,
							 * CATEGORIES
							 */
#define TRACEBUF_FEAT_STARTED_LATE	_BITULL(12)	/* STARTED's LATE */
#define TRACEBUF_FEAT_SEAL_SAVES	_BITULL(13)	/* INITIALIZE
							 * F_SEAL_SAVES
							 */
#define TRACEBUF_FEAT_SEAL_STOPS	_BITULL(14)	/* STOPPED's SEALED */
#define TRACEBUF_FEAT_SAVE_NOW		_BITULL(15)	/* SNAPSHOT in streaming
							 * mode: a save now
							 */
#define TRACEBUF_FEAT_GONE_STATUS	_BITULL(16)	/* MSG_GONE says how
							 * the process ended
							 */
#define TRACEBUF_FEAT_INFO_NAMED	_BITULL(17)	/* LIST's
							 * TRACEBUF_INFO_F_NAMED
							 */

/*
 * TRACEBUF_IOC_REGISTER: make this file a provider.
 * EINVAL: role already set, name_len 0, NUL in the name, unknown flag.
 * ENAMETOOLONG: name_len > TRACEBUF_NAME_MAX.
 * ENOSPC: max_providers providers are registered.  EDQUOT: the caller's
 * user has max_user_providers registered (not for CAP_SYS_RESOURCE).
 */
struct tracebuf_register_args {
	__aligned_u64 name_ptr;		/* In: name bytes, no NUL needed */
	__u32 name_len;			/* In: 1..TRACEBUF_NAME_MAX */
	__u32 flags;			/* In: TRACEBUF_REGISTER_F_* */
	__u32 id;			/* Out: provider id, never 0; handed
					 * out cyclically: one comes back
					 * only after every other u32 did
					 */
	__u32 status;			/* Out: TRACEBUF_REGISTER_STARTED */
};

#define TRACEBUF_REGISTER_SIZE_VER0	24

/* Ask whether a trace is running (Fuchsia RegisterProviderSynchronously). */
#define TRACEBUF_REGISTER_F_SYNC	_BITUL(0)
#define TRACEBUF_REGISTER_F_ALL		TRACEBUF_REGISTER_F_SYNC
/*
 * status bit, only with F_SYNC: a manager that can see this provider runs
 * a trace (TRACEBUF_IOC_MGR_SET_TRACING) or has a provider in STARTING or
 * STARTED, and its list of provider names, if it gave one, holds this
 * provider's; wait for START before writing records.
 */
#define TRACEBUF_REGISTER_STARTED	_BITUL(0)

/*
 * TRACEBUF_IOC_ATTACH: make this file a manager.
 * EPERM: not privileged.  EINVAL: role already set, unknown flag.
 */
struct tracebuf_attach_args {
	__u32 flags;			/* In: TRACEBUF_ATTACH_F_* */
	__u32 id;			/* Out: manager id, never 0 (which
					 * means none), cyclic as provider
					 * ids
					 */
};

#define TRACEBUF_ATTACH_SIZE_VER0	8

/* Queue TRACEBUF_MSG_REGISTRY when a visible provider comes or goes. */
#define TRACEBUF_ATTACH_F_WATCH		_BITUL(0)
#define TRACEBUF_ATTACH_F_ALL		TRACEBUF_ATTACH_F_WATCH

/*
 * TRACEBUF_IOC_SET_EVENTFD: either role.  fd -1 unregisters; another fd
 * replaces the previous one, and is signalled at once if messages are
 * waiting in the inbox.  The reference is dropped on close.
 * EBADF: fd is not open.  EINVAL: not an eventfd, no role, flags.
 */
struct tracebuf_eventfd_args {
	__s32 fd;			/* In */
	__u32 flags;			/* In: 0 */
};

#define TRACEBUF_EVENTFD_SIZE_VER0	8

/*
 * TRACEBUF_IOC_PROVIDER_GET_CONFIG: the current configuration.  The
 * enabled categories (INITIALIZE's list followed by the latest START's
 * additional ones) are copied to categories_ptr as NUL-terminated strings
 * back to back; an empty list enables every category.  If categories_size
 * is smaller than the list, nothing is copied, categories_size is set to
 * the size needed and the call fails with ENOSPC.
 *
 * flags TRACEBUF_CONFIG_F_WENT_ON (EINVAL on a module before it): the
 * provider goes on without waiting for its START any longer (REGISTER's
 * TRACEBUF_REGISTER_STARTED asked it to).  The kernel notes the managers
 * that run a trace for it now (as that status bit says); its next
 * STARTED's TRACEBUF_STARTED_LATE is set exactly when the manager that
 * starts it is one of them, whatever the provider sent: a trace that was
 * over by then, or began later, finds it as any provider registered
 * before it.
 */
struct tracebuf_config_args {
	__aligned_u64 categories_ptr;	/* In */
	__u32 categories_size;		/* In: room; Out: bytes of the list */
	__u32 categories_count;		/* Out */
	__aligned_u64 buffer_size;	/* Out: 0 without a buffer */
	__u32 generation;		/* Out: bumped by INITIALIZE/START */
	__u16 mode;			/* Out: TRACEBUF_MODE_*, 0 if none */
	__u16 disposition;		/* Out: of the latest START, or 0 */
	__u32 state;			/* Out: TRACEBUF_STATE_* */
	__u32 flags;			/* In: TRACEBUF_CONFIG_F_* */
};

#define TRACEBUF_CONFIG_SIZE_VER0	40

#define TRACEBUF_CONFIG_F_WENT_ON	_BITUL(0)

/* TRACEBUF_IOC_PROVIDER_RELEASE: TERMINATING -> REGISTERED. */
struct tracebuf_release_args {
	__aligned_u64 flags;		/* In: 0 */
};

#define TRACEBUF_RELEASE_SIZE_VER0	8

/*
 * TRACEBUF_IOC_PROVIDER_SET_CATEGORIES: publish the categories this
 * provider knows, with descriptions, for managers to list (Fuchsia's
 * GetKnownCategories).  categories_ptr holds categories_count pairs of
 * NUL-terminated strings, back to back: a name of 1..TRACEBUF_CATEGORY_MAX
 * bytes (ENAMETOOLONG above) and a description of 0..
 * TRACEBUF_DESCRIPTION_MAX bytes (EMSGSIZE above); at most
 * TRACEBUF_CATEGORIES_MAX pairs (E2BIG above); a list that does not add
 * up to its count and size is EINVAL.  0 and 0 clear the list.  Replaces
 * what was published before.  The list counts against the user's
 * max_user_memory while it is published (EDQUOT).
 */
struct tracebuf_known_args {
	__aligned_u64 categories_ptr;	/* In */
	__u32 categories_size;		/* In: bytes, NULs included */
	__u32 categories_count;		/* In: pairs */
	__u32 flags;			/* In: 0 */
	__u32 reserved;			/* In: 0 */
};

#define TRACEBUF_KNOWN_SIZE_VER0	24

/*
 * TRACEBUF_IOC_MGR_GET_CATEGORIES: what a provider the manager can see
 * published, in the same format.  As with GET_CONFIG, a categories_size
 * too small copies nothing, sets categories_size to the size needed and
 * fails with ENOSPC.
 */
struct tracebuf_get_known_args {
	__u32 provider_id;		/* In */
	__u32 flags;			/* In: 0 */
	__aligned_u64 categories_ptr;	/* In */
	__u32 categories_size;		/* In: room; Out: bytes of the list */
	__u32 categories_count;		/* Out: pairs */
};

#define TRACEBUF_GET_KNOWN_SIZE_VER0	24

/*
 * TRACEBUF_IOC_MGR_LIST: the providers this manager can see, by id, from
 * start_id up.  info_size is the caller's sizeof(struct
 * tracebuf_provider_info); a larger one gets its tail zeroed, up to
 * TRACEBUF_ARGS_SIZE_MAX (E2BIG above).
 */
struct tracebuf_list_args {
	__aligned_u64 info_ptr;		/* In: array of provider_info */
	__u32 info_size;		/* In: >= TRACEBUF_PROVIDER_INFO_SIZE_VER0 */
	__u32 capacity;			/* In: entries at info_ptr */
	__u32 start_id;			/* In: first id to consider */
	__u32 count;			/* Out: entries written */
	__u32 total;			/* Out: visible providers >= start_id */
	__u32 flags;			/* In: 0 */
};

#define TRACEBUF_LIST_SIZE_VER0		32

struct tracebuf_provider_info {
	__u32 id;
	__u32 pid;			/* in the caller's pid namespace */
	__u32 state;			/* TRACEBUF_STATE_* */
	__u32 mode;			/* TRACEBUF_MODE_*, 0 if none */
	__aligned_u64 buffer_size;	/* 0 without a buffer */
	__u32 manager_id;		/* owning manager, 0 if none */
	__u32 flags;			/* TRACEBUF_INFO_F_* */
	__aligned_u64 packets_sent;	/* packets accepted from it */
	__aligned_u64 packets_received;	/* packets and control messages
					 * queued to it
					 */
	__aligned_u64 saves;		/* BUFFER_SAVED accepted for it */
	__u8 name[TRACEBUF_NAME_MAX + 4]; /* NUL-terminated */
};

#define TRACEBUF_PROVIDER_INFO_SIZE_VER0 160

#define TRACEBUF_INFO_F_MINE		_BITUL(0)	/* owned by the caller */
/*
 * Another manager that sees the provider runs a trace whose list of
 * provider names (MGR_SET_TRACING VER1) holds its name (ABI 1.12,
 * TRACEBUF_FEAT_INFO_NAMED): a manager that traces every provider leaves
 * it to that one, which asked for it by name.
 */
#define TRACEBUF_INFO_F_NAMED		_BITUL(1)

/*
 * TRACEBUF_IOC_MGR_INITIALIZE.  categories_ptr points at categories_count
 * NUL-terminated strings, back to back, categories_size bytes in all
 * (both 0 for "every category").  A category is 1..TRACEBUF_CATEGORY_MAX
 * bytes (ENAMETOOLONG above); at most TRACEBUF_CATEGORIES_MAX (E2BIG
 * above); a list whose strings do not add up to its count and size is
 * EINVAL.  On success buffer_fd is a new read-only handle to the buffer
 * (the kernel writes its number before it takes any lock: after a
 * failure buffer_fd holds a number that was not kept open).  A manager
 * request waits for another one on the same provider; a fatal signal
 * ends that wait with EINTR.
 */
struct tracebuf_initialize_args {
	__u32 provider_id;		/* In */
	__u32 flags;			/* In: TRACEBUF_INIT_F_* */
	__aligned_u64 buffer_size;	/* In */
	__aligned_u64 categories_ptr;	/* In */
	__u32 categories_size;		/* In */
	__u32 categories_count;		/* In */
	__u32 mode;			/* In: TRACEBUF_MODE_* */
	__s32 buffer_fd;		/* Out */
};

#define TRACEBUF_INITIALIZE_SIZE_VER0	40

/*
 * TRACEBUF_INIT_F_SEAL_SAVES (ABI 1.8, TRACEBUF_FEAT_SEAL_SAVES;
 * streaming mode only, EINVAL otherwise): from a provider's SAVE_BUFFER
 * until the manager's BUFFER_SAVED, the pages that lie wholly inside the
 * rolling buffer to save are writable nowhere: the provider gets SIGBUS
 * if it touches one, a system call writing there EFAULT.  And from its
 * STOPPED until the next START (ABI 1.9, TRACEBUF_FEAT_SEAL_STOPS), so
 * are those of each rolling buffer no save holds (STOPPED's data16 says
 * which).  A save ends when the manager's BUFFER_SAVED reaches the
 * kernel: a provider that reads one after it sent STOPPED must leave that
 * rolling buffer alone until START.  Seals end early only when the manager goes: a provider that
 * leaves the session (RELEASE) while one holds finds those pages of its
 * mappings sealed for good (ABI 1.9; before, they were its again).  So
 * the manager may check a sealed rolling buffer's records and write
 * them out in place, with no copy, and know that what it wrote is what
 * it checked; the bytes on the pages it shares with the durable or the
 * other rolling buffer are not sealed (the manager copies them).  The
 * provider's mappings of such a buffer are filled as they are touched,
 * and are VM_IO with special page table entries: MADV_DOFORK is refused
 * (EINVAL), and so is whatever pins or takes their pages
 * (process_vm_readv()/process_vm_writev(), vmsplice(), O_DIRECT: EFAULT);
 * there are at most TRACEBUF_SEAL_MAPPINGS_MAX of them at a time (an
 * mmap(), or a partial munmap() or mprotect() that would split one, past
 * that: ENOMEM), since a seal unmaps them all under the module's lock; a
 * debugger (ptrace, /proc/PID/mem) reads and writes them through the
 * module, but a write into a sealed rolling buffer fails (EIO) as the
 * provider's own would.  ENOSPC: 2^20 sealable buffers are alive.
 */
#define TRACEBUF_INIT_F_SEAL_SAVES	_BITUL(0)
#define TRACEBUF_INIT_F_ALL		TRACEBUF_INIT_F_SEAL_SAVES
#define TRACEBUF_SEAL_MAPPINGS_MAX	16	/* a sealable buffer's provider
						 * mappings (VMAs) at a time
						 */

/*
 * TRACEBUF_IOC_MGR_START: additional categories as for INITIALIZE.
 *
 * With TRACEBUF_START_F_UPDATE (ABI 1.6, TRACEBUF_FEAT_UPDATE_CATEGORIES)
 * and disposition 0, a STARTED provider's additional categories are
 * replaced by these while it goes on writing: the kernel queues it
 * CATEGORIES with a new config generation, and it answers
 * CATEGORIES_APPLIED with that generation once it records by them.  One
 * update may be outstanding (EBUSY); START and INITIALIZE clear it.
 */
struct tracebuf_start_args {
	__u32 provider_id;		/* In */
	__u32 disposition;		/* In: TRACEBUF_START_*; F_UPDATE: 0 */
	__aligned_u64 categories_ptr;	/* In */
	__u32 categories_size;		/* In */
	__u32 categories_count;		/* In */
	__u32 flags;			/* In: TRACEBUF_START_F_* */
	__u32 reserved;			/* In: 0 */
};

#define TRACEBUF_START_F_UPDATE		_BITUL(0)
#define TRACEBUF_START_F_ALL		TRACEBUF_START_F_UPDATE

#define TRACEBUF_START_SIZE_VER0	32

/* TRACEBUF_IOC_MGR_STOP, TRACEBUF_IOC_MGR_TERMINATE. */
struct tracebuf_target_args {
	__u32 provider_id;		/* In */
	__u32 flags;			/* In: 0 */
};

#define TRACEBUF_TARGET_SIZE_VER0	8

/* TRACEBUF_IOC_MGR_SEND: a packet to a provider (BUFFER_SAVED, SNAPSHOT). */
struct tracebuf_mgr_send_args {
	__u32 provider_id;		/* In */
	__u32 flags;			/* In: 0 */
	struct tracebuf_pkt pkt;	/* In */
};

#define TRACEBUF_MGR_SEND_SIZE_VER0	24

/*
 * TRACEBUF_IOC_MGR_SET_TRACING: whether this manager runs a trace, from
 * its session's start to its stop.  Fuchsia's "a trace is started" hint
 * (REGISTER with F_SYNC) is the session's state, not its providers': a
 * provider that registers while a session runs, even one with no
 * provider started yet, is told to wait for its START.  Cleared when the
 * manager's file is closed.
 *
 * VER1: the names of the providers the session traces, as a category
 * list (names_count NUL-terminated names of 1..TRACEBUF_NAME_MAX bytes,
 * back to back, names_size bytes in all; none: every provider).  Only a
 * provider whose name is listed is told to wait, so a trace of some
 * providers does not hold up the start of the others.  The list applies
 * to this manager's started providers too (TRACEBUF_FEAT_TRACING_NAMES).
 *
 * EINVAL: tracing not 0 or 1, flags, names with tracing 0, a malformed
 * list.  E2BIG: more than TRACEBUF_CATEGORIES_MAX names.  ENAMETOOLONG:
 * a name over TRACEBUF_NAME_MAX.
 */
struct tracebuf_tracing_args {
	__u32 tracing;			/* In: 0 or 1 */
	__u32 flags;			/* In: 0 */
	__aligned_u64 names_ptr;	/* In: VER1, the names */
	__u32 names_size;		/* In: VER1, bytes, NULs included */
	__u32 names_count;		/* In: VER1 */
};

#define TRACEBUF_TRACING_SIZE_VER0	8
#define TRACEBUF_TRACING_SIZE_VER1	24

/* ---------------------------------------------------------------------- */
/* Manager inbox records, read with read() on a manager file.             */

struct tracebuf_mgr_msg {
	__u32 provider_id;		/* 0 for MSG_REGISTRY */
	__u16 type;			/* TRACEBUF_MSG_* */
	__u16 state;			/* provider state after the event; for
					 * MSG_GONE the state it died in
					 */
	struct tracebuf_pkt pkt;	/* MSG_PACKET; MSG_GONE (below);
					 * else zero
					 */
};

#define TRACEBUF_MSG_PACKET		1	/* a packet from the provider */
#define TRACEBUF_MSG_TERMINATED		2	/* released: no longer yours */
#define TRACEBUF_MSG_GONE		3	/* its file closed: no longer
						 * yours; buffer_fd still reads
						 */
#define TRACEBUF_MSG_REGISTRY		4	/* providers came or went */

/*
 * MSG_GONE's pkt (ABI 1.11, TRACEBUF_FEAT_GONE_STATUS; zero before): how
 * the provider's process stood when its file closed.  data16 is
 * TRACEBUF_GONE_EXITED when the process was exiting, and data32 then
 * holds how it exits, as wait() reports it (WIFEXITED and WEXITSTATUS,
 * WIFSIGNALED, WTERMSIG and WCOREDUMP apply), also when the process exited
 * holding the file and another one dropped the last reference (one that
 * it passed the file to, or one that held the dying process's memory for
 * a moment: the buffer's mapping holds the file too);
 * TRACEBUF_GONE_CLOSED when it lived on (it closed the file, or an exec
 * did); 0 when the file was last closed by another process (one that
 * inherited it) while the provider's process lived on or after it had
 * closed its own, or by the kernel, and nothing is known.  request and
 * data64 stay zero.
 */
#define TRACEBUF_GONE_EXITED		0x0001
#define TRACEBUF_GONE_CLOSED		0x0002

/* ---------------------------------------------------------------------- */
/* Generic netlink: the registry, read-only (TRACEBUF_FEAT_GENL).         */

/*
 * Family TRACEBUF_GENL_NAME, version TRACEBUF_GENL_VERSION, in the initial
 * network namespace.
 *
 * TRACEBUF_CMD_PROVIDER_GET: with TRACEBUF_A_ID, that provider (ENOENT
 * when the caller cannot see it, ERANGE for id 0); as a dump
 * (NLM_F_DUMP), every provider the caller can see, by id.  The caller
 * needs what TRACEBUF_IOC_ATTACH
 * needs (EPERM otherwise) and sees what a manager in its pid namespace
 * sees; pids are given in that namespace.  Unknown attributes and
 * malformed ones are refused, with an extended ack message.
 *
 * Multicast group TRACEBUF_GENL_MCGRP_EVENTS: PROVIDER_NEW when a provider
 * registers, PROVIDER_CHANGE when its state or manager changes,
 * PROVIDER_DEL when it unregisters (with its last state).  Joining it
 * needs CAP_SYS_ADMIN, and its pids are in the initial pid namespace;
 * managers elsewhere watch with TRACEBUF_ATTACH_F_WATCH.
 *
 * Each message carries the provider's attributes: ID, PID, NAME, STATE,
 * MANAGER_ID (0 if none), the counters, and with a buffer MODE,
 * BUFFER_SIZE and RECORDS_DROPPED (as the provider last wrote it in its
 * buffer header: a claim, not a measurement; left out when no provider
 * could have dropped so many, one a nanosecond on each possible CPU
 * since its buffer was made).
 */
#define TRACEBUF_GENL_NAME		"tracebuf"
#define TRACEBUF_GENL_VERSION		1
#define TRACEBUF_GENL_MCGRP_EVENTS	"events"

enum tracebuf_genl_cmd {
	TRACEBUF_CMD_UNSPEC,
	TRACEBUF_CMD_PROVIDER_GET,
	TRACEBUF_CMD_PROVIDER_NEW,	/* events group */
	TRACEBUF_CMD_PROVIDER_CHANGE,	/* events group */
	TRACEBUF_CMD_PROVIDER_DEL,	/* events group */

	__TRACEBUF_CMD_MAX,
};

#define TRACEBUF_CMD_MAX	(__TRACEBUF_CMD_MAX - 1)

enum tracebuf_genl_attr {
	TRACEBUF_A_UNSPEC,
	TRACEBUF_A_PAD,
	TRACEBUF_A_ID,			/* u32 */
	TRACEBUF_A_PID,			/* u32 */
	TRACEBUF_A_NAME,		/* string */
	TRACEBUF_A_STATE,		/* u32: TRACEBUF_STATE_* */
	TRACEBUF_A_MANAGER_ID,		/* u32 */
	TRACEBUF_A_MODE,		/* u32: TRACEBUF_MODE_* */
	TRACEBUF_A_BUFFER_SIZE,		/* u64 */
	TRACEBUF_A_PACKETS_SENT,	/* u64 */
	TRACEBUF_A_PACKETS_RECEIVED,	/* u64 */
	TRACEBUF_A_SAVES,		/* u64 */
	TRACEBUF_A_RECORDS_DROPPED,	/* u64 */

	__TRACEBUF_A_MAX,
};

#define TRACEBUF_A_MAX		(__TRACEBUF_A_MAX - 1)

/* ---------------------------------------------------------------------- */

#define TRACEBUF_IOC_MAGIC		0xBF

#define TRACEBUF_IOC_VERSION \
	_IOR(TRACEBUF_IOC_MAGIC, 0x00, struct tracebuf_version_args)
#define TRACEBUF_IOC_REGISTER \
	_IOWR(TRACEBUF_IOC_MAGIC, 0x01, struct tracebuf_register_args)
#define TRACEBUF_IOC_ATTACH \
	_IOWR(TRACEBUF_IOC_MAGIC, 0x02, struct tracebuf_attach_args)
#define TRACEBUF_IOC_SET_EVENTFD \
	_IOW(TRACEBUF_IOC_MAGIC, 0x03, struct tracebuf_eventfd_args)

#define TRACEBUF_IOC_PROVIDER_GET_CONFIG \
	_IOWR(TRACEBUF_IOC_MAGIC, 0x10, struct tracebuf_config_args)
#define TRACEBUF_IOC_PROVIDER_SEND \
	_IOW(TRACEBUF_IOC_MAGIC, 0x11, struct tracebuf_pkt)
#define TRACEBUF_IOC_PROVIDER_RELEASE \
	_IOW(TRACEBUF_IOC_MAGIC, 0x12, struct tracebuf_release_args)
#define TRACEBUF_IOC_PROVIDER_SET_CATEGORIES \
	_IOW(TRACEBUF_IOC_MAGIC, 0x13, struct tracebuf_known_args)

#define TRACEBUF_IOC_MGR_LIST \
	_IOWR(TRACEBUF_IOC_MAGIC, 0x20, struct tracebuf_list_args)
#define TRACEBUF_IOC_MGR_INITIALIZE \
	_IOWR(TRACEBUF_IOC_MAGIC, 0x21, struct tracebuf_initialize_args)
#define TRACEBUF_IOC_MGR_START \
	_IOW(TRACEBUF_IOC_MAGIC, 0x22, struct tracebuf_start_args)
#define TRACEBUF_IOC_MGR_STOP \
	_IOW(TRACEBUF_IOC_MAGIC, 0x23, struct tracebuf_target_args)
#define TRACEBUF_IOC_MGR_TERMINATE \
	_IOW(TRACEBUF_IOC_MAGIC, 0x24, struct tracebuf_target_args)
#define TRACEBUF_IOC_MGR_SEND \
	_IOW(TRACEBUF_IOC_MAGIC, 0x25, struct tracebuf_mgr_send_args)
#define TRACEBUF_IOC_MGR_GET_CATEGORIES \
	_IOWR(TRACEBUF_IOC_MAGIC, 0x26, struct tracebuf_get_known_args)
#define TRACEBUF_IOC_MGR_SET_TRACING \
	_IOW(TRACEBUF_IOC_MAGIC, 0x27, struct tracebuf_tracing_args)

#endif /* _UAPI_LINUX_TRACEBUF_H */
