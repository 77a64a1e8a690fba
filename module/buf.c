// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf: trace buffers.  Zero-filled pages, possibly highmem, with
 * Fuchsia's 128-byte header at offset 0, mapped read-write by the provider
 * and read-only by the manager, and freed with the last reference
 * (provider, mapping or handle).  The kernel maps a page while it touches
 * it (kmap_local_page()); only a kernel provider's buffer is vmap()ed
 * whole (tracebuf_buf_vmap()), since a 32-bit kernel's vmalloc space, a
 * few hundred MiB, is scarcer than the memory buffers may take.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/anon_inodes.h>
#include <linux/atomic.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/idr.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pfn_t.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/gfp.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "tracebuf_priv.h"

/* Bytes held by live buffers, checked against max_total_memory. */
static atomic64_t tracebuf_mem_used = ATOMIC64_INIT(0);

bool tracebuf_mem_reserve(u64 size)
{
	u64 limit = READ_ONCE(tracebuf_max_total_memory);

	if (atomic64_add_return(size, &tracebuf_mem_used) > limit) {
		atomic64_sub(size, &tracebuf_mem_used);
		return false;
	}
	return true;
}

void tracebuf_mem_unreserve(u64 size)
{
	atomic64_sub(size, &tracebuf_mem_used);
}

/* The uapi header's layout rule (Fuchsia's ComputeBufferSizes()). */
static void tracebuf_buf_compute_sizes(struct tracebuf_buf *buf)
{
	buf->durable_size = tracebuf_layout_durable_size(buf->size, buf->mode);
	buf->rolling_size = tracebuf_layout_rolling_size(buf->size, buf->mode);
}

/* The header, in page 0; tracebuf_buf_unmap_header() when done. */
static struct tracebuf_buffer_header *tracebuf_buf_map_header(struct tracebuf_buf *buf)
{
	BUILD_BUG_ON(sizeof(struct tracebuf_buffer_header) > PAGE_SIZE);
	return kmap_local_page(buf->pages[0]);
}

static void tracebuf_buf_unmap_header(struct tracebuf_buffer_header *hdr)
{
	kunmap_local(hdr);
}

/* The fields the kernel owns; the provider owns the others. */
static void tracebuf_buf_write_header(struct tracebuf_buf *buf,
				      struct tracebuf_buffer_header *hdr)
{
	hdr->magic = TRACEBUF_HEADER_MAGIC;
	hdr->version = TRACEBUF_HEADER_VERSION;
	hdr->buffering_mode = tracebuf_layout_header_mode(buf->mode);
	hdr->reserved1 = 0;
	hdr->total_size = buf->size;
	hdr->durable_buffer_size = buf->durable_size;
	hdr->rolling_buffer_size = buf->rolling_size;
}

/* Up to 4 GiB of pages: let others run now and then. */
static void tracebuf_buf_free_pages(struct tracebuf_buf *buf)
{
	unsigned long i;

	for (i = 0; i < buf->nr_pages && buf->pages[i]; i++) {
		__free_page(buf->pages[i]);
		if (!(i % TRACEBUF_RESCHED_PAGES))
			cond_resched();
	}
	kvfree(buf->pages);
}

/*
 * Returns a buffer with one reference, or NULL.  The caller reserved
 * @size with tracebuf_mem_reserve() (released when the buffer is retired
 * or freed) and charged it to @user (released when it is freed).  The
 * pages are charged to the caller's memory cgroup.  A buffer that does
 * not fit is an ENOMEM for the manager: never a warning in the log, never
 * the OOM killer, and a fatal signal stops the loop.  The pages may be
 * highmem (on a 32-bit kernel): user space maps them, and the kernel
 * reaches them through kmap_local_page() or a kernel provider's ->data
 * (tracebuf_buf_vmap()), never page_address(); highmem spares the scarce
 * low memory of a 32-bit kernel and is the same zones as before on a
 * 64-bit one, which has none.
 */
struct tracebuf_buf *tracebuf_buf_create(u64 size, u32 mode,
					 struct tracebuf_user *user)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_RETRY_MAYFAIL;
	struct tracebuf_buffer_header *hdr;
	struct tracebuf_buf *buf;
	unsigned long i;

	buf = kzalloc(sizeof(*buf), GFP_KERNEL_ACCOUNT);
	if (!buf)
		return NULL;
	buf->nr_pages = size >> PAGE_SHIFT;
	buf->pages = kvcalloc(buf->nr_pages, sizeof(*buf->pages), gfp);
	if (!buf->pages)
		goto out_free_buf;
	for (i = 0; i < buf->nr_pages; i++) {
		if (fatal_signal_pending(current))
			goto out_free_pages;
		buf->pages[i] = alloc_page(gfp | __GFP_HIGHMEM | __GFP_ZERO);
		if (!buf->pages[i])
			goto out_free_pages;
		cond_resched();
	}

	kref_init(&buf->refs);
	buf->size = size;
	buf->mode = mode;
	buf->created_ns = ktime_get_ns();
	set_bit(TRACEBUF_BUF_LIVE, &buf->flags);
	tracebuf_user_get(user);
	buf->user = user;
	tracebuf_buf_compute_sizes(buf);
	hdr = tracebuf_buf_map_header(buf);
	tracebuf_buf_write_header(buf, hdr);
	tracebuf_buf_unmap_header(hdr);
	return buf;

out_free_pages:
	tracebuf_buf_free_pages(buf);
out_free_buf:
	kfree(buf);
	return NULL;
}

void tracebuf_buf_get(struct tracebuf_buf *buf)
{
	kref_get(&buf->refs);
}

/*
 * Map the whole buffer at ->data, for a kernel provider, which writes
 * records across pages from its tracepoint probes.  Once: the mapping
 * lasts until the buffer is freed.  It may sleep.
 */
int tracebuf_buf_vmap(struct tracebuf_buf *buf)
{
	void *data;

	if (READ_ONCE(buf->data))
		return 0;
	data = vmap(buf->pages, buf->nr_pages, VM_MAP, PAGE_KERNEL);
	if (!data)
		return -ENOMEM;
	if (cmpxchg(&buf->data, NULL, data))
		vunmap(data);
	return 0;
}

/* Slots of sealable buffers (tracebuf_buf_set_sealable()). */
static DEFINE_IDA(tracebuf_seal_ida);

static void tracebuf_buf_seal_free(struct tracebuf_buf *buf)
{
	if (buf->seal_id <= 0)
		return;
	ida_free(&tracebuf_seal_ida, buf->seal_id);
	mutex_destroy(&buf->seal_lock);
}

static void tracebuf_buf_free_work(struct work_struct *work)
{
	struct tracebuf_buf *buf = container_of(work, struct tracebuf_buf, free_work);

	if (buf->data)
		vunmap(buf->data);
	tracebuf_buf_free_pages(buf);
	tracebuf_buf_seal_free(buf);
	kfree(buf);
}

/*
 * The last reference may go under tracebuf_lock (a provider detached),
 * and freeing 4 GiB takes a while: the memory counts as free at once, the
 * pages go on tracebuf_wq, which module exit drains.
 */
/*
 * Its provider lets go of it (detach): from now on it counts against its
 * user's share only, whoever keeps it mapped.
 */
void tracebuf_buf_retire(struct tracebuf_buf *buf)
{
	if (test_and_clear_bit(TRACEBUF_BUF_LIVE, &buf->flags))
		tracebuf_mem_unreserve(buf->size);
}

static void tracebuf_buf_free(struct kref *kref)
{
	struct tracebuf_buf *buf = container_of(kref, struct tracebuf_buf, refs);

	tracebuf_buf_retire(buf);
	tracebuf_user_uncharge(buf->user, buf->size);
	tracebuf_user_put(buf->user);
	INIT_WORK(&buf->free_work, tracebuf_buf_free_work);
	queue_work(tracebuf_wq, &buf->free_work);
}

void tracebuf_buf_put(struct tracebuf_buf *buf)
{
	kref_put(&buf->refs, tracebuf_buf_free);
}

/*
 * Zero the provider-owned header fields; the durable data end survives a
 * CLEAR_NONDURABLE.  The kernel-owned fields (magic, version, mode, sizes)
 * are never cleared, only rewritten with the values they already hold: a
 * provider may read them at any time after INITIALIZE, including while a
 * START clears the buffer.
 */
static void tracebuf_buf_reset_header(struct tracebuf_buf *buf, bool durable)
{
	struct tracebuf_buffer_header *hdr = tracebuf_buf_map_header(buf);

	hdr->wrapped_count = 0;
	if (durable)
		hdr->durable_data_end = 0;
	hdr->rolling_data_end[0] = 0;
	hdr->rolling_data_end[1] = 0;
	hdr->num_records_dropped = 0;
	hdr->stop_mark = 0;
	hdr->bytes_recorded = 0;
	memset(hdr->reserved, 0, sizeof(hdr->reserved));
	tracebuf_buf_write_header(buf, hdr);
	tracebuf_buf_unmap_header(hdr);
}

/* The header's num_records_dropped, one load: the provider writes it. */
u64 tracebuf_buf_records_dropped(struct tracebuf_buf *buf)
{
	struct tracebuf_buffer_header *hdr = tracebuf_buf_map_header(buf);
	u64 dropped = READ_ONCE(hdr->num_records_dropped);

	tracebuf_buf_unmap_header(hdr);
	return dropped;
}

/* Zero [from, to) of the buffer, a page at a time; it may sleep. */
void tracebuf_buf_zero(struct tracebuf_buf *buf, u64 from, u64 to)
{
	unsigned long n = 0;

	to = min_t(u64, to, buf->size);
	while (from < to) {
		unsigned int off = offset_in_page(from);
		unsigned int len = min_t(u64, PAGE_SIZE - off, to - from);

		memzero_page(buf->pages[from >> PAGE_SHIFT], off, len);
		from += len;
		if (++n % TRACEBUF_RESCHED_PAGES == 0)
			cond_resched();
	}
}

/*
 * START's buffer disposition.  Unlike Fuchsia, clearing zeroes the
 * cleared bytes, so a reader walking records never meets stale ones.
 * Called without tracebuf_lock, under the provider's ctl_lock, while the
 * provider is INITIALIZED or STOPPED and so must not be writing.
 */
void tracebuf_buf_apply_disposition(struct tracebuf_buf *buf, u32 disposition)
{
	switch (disposition) {
	case TRACEBUF_START_CLEAR_ENTIRE:
		tracebuf_buf_zero(buf, TRACEBUF_HEADER_SIZE, buf->size);
		tracebuf_buf_reset_header(buf, true);
		break;
	case TRACEBUF_START_CLEAR_NONDURABLE:
		tracebuf_buf_zero(buf, TRACEBUF_HEADER_SIZE + buf->durable_size, buf->size);
		tracebuf_buf_reset_header(buf, false);
		break;
	default:	/* TRACEBUF_START_RETAIN */
		break;
	}
}

/*
 * Sealed saves (the uapi header's TRACEBUF_INIT_F_SEAL_SAVES).  The
 * provider's mappings of a sealable buffer sit in its file's address
 * space at pgoff seal_base + page, seal_base of a slot no other live
 * sealable buffer has, so that unmap_mapping_pages() reaches every one of
 * them (split or moved) and nobody else's.  They are filled by faults
 * only, never at mmap (a VMA is in the address space only after ->mmap
 * returns), under seal_lock: sealing sets the bit and unmaps under it,
 * so no fault maps a sealed page.  A fault in a rolling buffer maps the
 * whole of it (in this VMA): the provider writes it through, and after
 * each save it comes back in one fault, not one a page.  VM_IO keeps
 * get_user_pages() off these mappings (nothing can hold a page to write
 * it later) and fork from copying them; the pages are mapped as special
 * entries (vmf_insert_mixed() where the architecture has them, as x86-64
 * and arm64 do), which get_user_pages_fast(), reading the page tables
 * without the VMA, leaves to that slow path too.  The VMA's buffer
 * reference, not the entries, keeps the pages.
 */
#define TRACEBUF_SEAL_SLOT_PAGES	(TRACEBUF_BUFFER_MAX >> PAGE_SHIFT)
/*
 * As many as loff_t holds, and a page offset: an unsigned long, whose
 * 2^32 pages on a 32-bit kernel hold 4094 slots after slot 0 (4 KiB
 * pages).
 */
#define TRACEBUF_SEAL_SLOTS		min_t(u64, BIT(20), ULONG_MAX / TRACEBUF_SEAL_SLOT_PAGES)

/* INITIALIZE with TRACEBUF_INIT_F_SEAL_SAVES, before anyone maps @buf. */
int tracebuf_buf_set_sealable(struct tracebuf_buf *buf)
{
	u64 first, end;
	unsigned int r;
	int id;

	id = ida_alloc_range(&tracebuf_seal_ida, 1, TRACEBUF_SEAL_SLOTS - 1,
			     GFP_KERNEL_ACCOUNT);
	if (id < 0)
		return id;
	buf->seal_id = id;
	buf->seal_base = (unsigned long)id * TRACEBUF_SEAL_SLOT_PAGES;
	for (r = 0; r < 2; r++) {
		tracebuf_layout_sealed(buf->size, buf->mode, r, PAGE_SIZE, &first, &end);
		buf->seal_first[r] = first >> PAGE_SHIFT;
		buf->seal_end[r] = end >> PAGE_SHIFT;
	}
	mutex_init(&buf->seal_lock);
	set_bit(TRACEBUF_BUF_SEALABLE, &buf->flags);
	return 0;
}

/*
 * Seal the rolling buffers in @mask (bit r: rolling buffer r) until
 * tracebuf_buf_unseal(): a provider's SAVE_BUFFER seals the one to save,
 * its STOPPED the others.  False when @buf is not sealable.
 */
bool tracebuf_buf_seal(struct tracebuf_buf *buf, unsigned int mask)
{
	struct address_space *mapping;
	unsigned int r;

	lockdep_assert_held(&tracebuf_lock);

	if (!test_bit(TRACEBUF_BUF_SEALABLE, &buf->flags))
		return false;
	mutex_lock(&buf->seal_lock);
	mapping = READ_ONCE(buf->seal_mapping);
	for (r = 0; r < 2; r++) {
		unsigned long first = buf->seal_first[r], end = buf->seal_end[r];

		if (!(mask & BIT(r)))
			continue;
		set_bit(TRACEBUF_BUF_SEALED + r, &buf->flags);
		/*
		 * In pages: unmap_mapping_range() casts its byte offset to a
		 * pgoff_t before shifting, which on a 32-bit kernel loses
		 * every slot's offset above 4 GiB.
		 */
		if (mapping && end > first)
			unmap_mapping_pages(mapping, buf->seal_base + first,
					    end - first, true);
	}
	mutex_unlock(&buf->seal_lock);
	return true;
}

/*
 * The seals of @mask end (BUFFER_SAVED, the START after a stop, or the
 * manager going): the next touch maps the pages again.  The provider
 * hears of it under tracebuf_lock, after this.
 */
void tracebuf_buf_unseal(struct tracebuf_buf *buf, unsigned int mask)
{
	unsigned int r;

	lockdep_assert_held(&tracebuf_lock);

	if (!test_bit(TRACEBUF_BUF_SEALABLE, &buf->flags))
		return;
	mutex_lock(&buf->seal_lock);
	for (r = 0; r < 2; r++)
		if (mask & BIT(r))
			clear_bit(TRACEBUF_BUF_SEALED + r, &buf->flags);
	mutex_unlock(&buf->seal_lock);
}

/*
 * Every VMA holds a buffer reference: mmap takes the first, and open/close
 * balance the copies the core makes on fork (after MADV_DOFORK), split
 * (partial munmap, mprotect) and mremap.
 */
static void tracebuf_vm_open(struct vm_area_struct *vma)
{
	tracebuf_buf_get(vma->vm_private_data);
}

static void tracebuf_vm_close(struct vm_area_struct *vma)
{
	tracebuf_buf_put(vma->vm_private_data);
}

/*
 * The pages are inserted at mmap; this brings one back after something
 * zapped it (MADV_DONTNEED and friends, which a process's allocator or
 * sanitizer may apply to ranges it does not own): the data is still in
 * the buffer's pages, so the next touch must find it, not SIGBUS.
 */
static vm_fault_t tracebuf_vm_fault(struct vm_fault *vmf)
{
	struct tracebuf_buf *buf = vmf->vma->vm_private_data;

	if (vmf->pgoff >= buf->nr_pages)
		return VM_FAULT_SIGBUS;
	vmf->page = buf->pages[vmf->pgoff];
	get_page(vmf->page);
	return 0;
}

static const struct vm_operations_struct tracebuf_vm_ops = {
	.open = tracebuf_vm_open,
	.close = tracebuf_vm_close,
	.fault = tracebuf_vm_fault,
};

/*
 * The rolling buffer whose sealed range holds page @i of sealable @buf,
 * or -1: the header, the durable buffer, or a page a rolling buffer
 * shares with its neighbour.  The ranges are fixed at INITIALIZE.
 */
static int tracebuf_seal_range_of(const struct tracebuf_buf *buf, unsigned long i)
{
	int r;

	for (r = 0; r < 2; r++)
		if (i >= buf->seal_first[r] && i < buf->seal_end[r])
			return r;
	return -1;
}

/*
 * A provider's mapping of a sealable buffer: every page comes here, and
 * the whole rolling buffer it is in, unless that is sealed.
 */
static vm_fault_t tracebuf_vm_fault_sealable(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct tracebuf_buf *buf = vma->vm_private_data;
	unsigned long i = vmf->pgoff - buf->seal_base, first = i, end = i + 1;
	unsigned long vfirst = vma->vm_pgoff - buf->seal_base, p;
	vm_fault_t ret = VM_FAULT_NOPAGE, err;
	int r;

	if (vmf->pgoff < buf->seal_base || i >= buf->nr_pages)
		return VM_FAULT_SIGBUS;
	r = tracebuf_seal_range_of(buf, i);
	mutex_lock(&buf->seal_lock);
	if (r >= 0) {
		if (test_bit(TRACEBUF_BUF_SEALED + r, &buf->flags)) {
			ret = VM_FAULT_SIGBUS;
			goto out;
		}
		first = max(buf->seal_first[r], vfirst);
		end = min(buf->seal_end[r], vfirst + vma_pages(vma));
	}
	for (p = first; p < end; p++) {
		/* a page mapped already is left as it is */
		err = vmf_insert_mixed(vma, vma->vm_start + ((p - vfirst) << PAGE_SHIFT),
				       page_to_pfn_t(buf->pages[p]));
		if ((err & VM_FAULT_ERROR) && p == i)
			ret = err;
	}
out:
	mutex_unlock(&buf->seal_lock);
	return ret;
}

/*
 * A debugger's access (ptrace, /proc/PID/mem: access_remote_vm()), which
 * cannot pin a page of a VM_IO mapping and comes here instead: up to the
 * end of the page at @addr, from the buffer's page; but a write is
 * refused where the provider's own store would be: into a mapping not
 * writable now, or a sealed rolling buffer.  A kernel without
 * CONFIG_HAVE_IOREMAP_PROT (32-bit ARM) never comes here: there a
 * debugger gets EIO from these mappings.
 */
static int tracebuf_vm_access_sealable(struct vm_area_struct *vma, unsigned long addr,
				       void *data, int len, int write)
{
	struct tracebuf_buf *buf = vma->vm_private_data;
	unsigned long i = vma->vm_pgoff - buf->seal_base +
			  ((addr - vma->vm_start) >> PAGE_SHIFT);
	unsigned int off = offset_in_page(addr);
	void *va;
	int r;

	if (len <= 0 || i >= buf->nr_pages)
		return -EINVAL;
	if (write && !(vma->vm_flags & VM_WRITE))
		return -EFAULT;
	len = min_t(int, len, PAGE_SIZE - off);
	r = tracebuf_seal_range_of(buf, i);
	mutex_lock(&buf->seal_lock);
	if (write && r >= 0 && test_bit(TRACEBUF_BUF_SEALED + r, &buf->flags)) {
		len = -EFAULT;
		goto out;
	}
	va = kmap_local_page(buf->pages[i]);
	if (write)
		memcpy(va + off, data, len);
	else
		memcpy(data, va + off, len);
	kunmap_local(va);
out:
	mutex_unlock(&buf->seal_lock);
	return len;
}

/*
 * The sealable mappings are counted too: a seal unmaps its rolling
 * buffer from every one of them, under tracebuf_lock, so a bound on them
 * (TRACEBUF_SEAL_MAPPINGS_MAX) bounds that work, where vm.max_map_count
 * of them would hold every provider and manager up for as long at each
 * save.  libtracebuf maps a buffer once.
 */
static void tracebuf_vm_open_sealable(struct vm_area_struct *vma)
{
	struct tracebuf_buf *buf = vma->vm_private_data;

	atomic_inc(&buf->seal_vmas);
	tracebuf_vm_open(vma);
}

static void tracebuf_vm_close_sealable(struct vm_area_struct *vma)
{
	struct tracebuf_buf *buf = vma->vm_private_data;

	atomic_dec(&buf->seal_vmas);
	tracebuf_vm_close(vma);
}

/* A split (partial munmap, mprotect) makes one more: not past the bound. */
static int tracebuf_vm_may_split_sealable(struct vm_area_struct *vma, unsigned long addr)
{
	struct tracebuf_buf *buf = vma->vm_private_data;

	return atomic_read(&buf->seal_vmas) < TRACEBUF_SEAL_MAPPINGS_MAX ? 0 : -ENOMEM;
}

static const struct vm_operations_struct tracebuf_vm_ops_sealable = {
	.open = tracebuf_vm_open_sealable,
	.close = tracebuf_vm_close_sealable,
	.may_split = tracebuf_vm_may_split_sealable,
	.fault = tracebuf_vm_fault_sealable,
	.access = tracebuf_vm_access_sealable,
};

/*
 * Map [pgoff, pgoff + len) of the buffer.  Only shared mappings: a private
 * copy would silently stop seeing the other side.  Never executable: data,
 * and a provider's at that (PROT_EXEC is EPERM, VM_MAYEXEC cleared so
 * mprotect() cannot add it).  The read-only handle clears VM_MAYWRITE so
 * mprotect() cannot make the mapping writable.  VM_DONTCOPY keeps the
 * buffer out of children unless they ask with MADV_DOFORK; VM_DONTEXPAND
 * refuses growing it with mremap(); VM_DONTDUMP keeps it out of core
 * dumps (the manager reads it; README).
 */
int tracebuf_buf_mmap(struct tracebuf_buf *buf, struct vm_area_struct *vma,
		      bool writable)
{
	unsigned long pages = buf->size >> PAGE_SHIFT;
	unsigned long len = vma_pages(vma);
	int ret;

	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_pgoff >= pages || len > pages - vma->vm_pgoff)
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	tracebuf_vm_flags_clear(vma, VM_MAYEXEC);
	if (!writable) {
		if (vma->vm_flags & VM_WRITE)
			return -EPERM;
		tracebuf_vm_flags_clear(vma, VM_MAYWRITE);
	}

	tracebuf_vm_flags_set(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);
	if (writable && test_bit(TRACEBUF_BUF_SEALABLE, &buf->flags)) {
		struct address_space *mapping = vma->vm_file->f_mapping;
		struct address_space *old = cmpxchg(&buf->seal_mapping, NULL, mapping);

		/* one provider file maps it: there is no other */
		if (old && old != mapping)
			return -EINVAL;
		if (atomic_inc_return(&buf->seal_vmas) > TRACEBUF_SEAL_MAPPINGS_MAX) {
			atomic_dec(&buf->seal_vmas);
			return -ENOMEM;
		}
		tracebuf_vm_flags_set(vma, VM_IO | VM_MIXEDMAP);
		vma->vm_pgoff += buf->seal_base;
		vma->vm_private_data = buf;
		vma->vm_ops = &tracebuf_vm_ops_sealable;
		tracebuf_buf_get(buf);
		return 0;
	}
	ret = vm_insert_pages(vma, vma->vm_start, buf->pages + vma->vm_pgoff,
			      &len);
	if (ret)
		return ret;
	vma->vm_private_data = buf;
	vma->vm_ops = &tracebuf_vm_ops;
	tracebuf_buf_get(buf);
	return 0;
}

/* The manager's read-only handle. */

static ssize_t tracebuf_handle_read(struct file *file, char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	struct tracebuf_buf *buf = file->private_data;
	loff_t pos = *ppos;
	size_t done = 0;

	if (pos < 0)
		return -EINVAL;
	if (pos >= buf->size)
		return 0;
	count = min_t(u64, count, buf->size - pos);
	if (!count)
		return 0;
	while (done < count) {
		unsigned int off = offset_in_page(pos);
		size_t len = min_t(size_t, PAGE_SIZE - off, count - done);
		void *va = kmap_local_page(buf->pages[pos >> PAGE_SHIFT]);
		size_t left = copy_to_user(ubuf + done, va + off, len);

		kunmap_local(va);
		done += len - left;
		pos += len - left;
		if (left)
			break;
		cond_resched();
	}
	if (!done)
		return -EFAULT;
	*ppos = pos;
	return done;
}

static loff_t tracebuf_handle_llseek(struct file *file, loff_t offset,
				     int whence)
{
	struct tracebuf_buf *buf = file->private_data;

	return fixed_size_llseek(file, offset, whence, buf->size);
}

static int tracebuf_handle_mmap(struct file *file, struct vm_area_struct *vma)
{
	return tracebuf_buf_mmap(file->private_data, vma, false);
}

static int tracebuf_handle_release(struct inode *inode, struct file *file)
{
	tracebuf_buf_put(file->private_data);
	return 0;
}

static const struct file_operations tracebuf_handle_fops = {
	.owner = THIS_MODULE,
	.read = tracebuf_handle_read,
	.llseek = tracebuf_handle_llseek,
	.mmap = tracebuf_handle_mmap,
	.release = tracebuf_handle_release,
};

/*
 * A read-only handle holding its own buffer reference, for the
 * descriptor the caller reserved: it fd_install()s it once nothing can
 * fail any more, or fput()s it.
 */
struct file *tracebuf_buf_open_handle(struct tracebuf_buf *buf)
{
	struct file *file;

	tracebuf_buf_get(buf);
	file = anon_inode_getfile("[tracebuf]", &tracebuf_handle_fops, buf,
				  O_RDONLY);
	if (IS_ERR(file)) {
		tracebuf_buf_put(buf);
		return file;
	}
	file->f_mode |= FMODE_PREAD | FMODE_LSEEK;
	return file;
}
