// SPDX-License-Identifier: GPL-2.0-only
/*
 * The gadget and its endpoints.
 *
 * Bulk transfers go through Linux AIO on the FunctionFS endpoint files,
 * with completions signalled on an eventfd that the main loop polls. AIO
 * is what lets an answer be withdrawn: io_cancel() on a queued IN write
 * calls FunctionFS's ffs_aio_cancel(), which dequeues the USB request at
 * once (usb_ep_dequeue), so bytes the host didn't read are gone before the
 * next cycle's acknowledge. A blocking write() could only be interrupted
 * by a signal.
 *
 * The endpoint files are non-blocking: while the host hasn't configured
 * the device, a submission completes at once with -EAGAIN instead of
 * sleeping in the kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "emu.h"

/* aio_data of each transfer: IO_OUT + the OUT slot, or IO_IN + the IN slot */
#define IO_OUT		1
#define IO_IN		16

static long io_setup(unsigned int nr, aio_context_t *ctx)
{
	return syscall(__NR_io_setup, nr, ctx);
}

static long io_destroy(aio_context_t ctx)
{
	return syscall(__NR_io_destroy, ctx);
}

static long io_submit(aio_context_t ctx, long n, struct iocb **cbs)
{
	return syscall(__NR_io_submit, ctx, n, cbs);
}

static long io_cancel(aio_context_t ctx, struct iocb *cb, struct io_event *ev)
{
	return syscall(__NR_io_cancel, ctx, cb, ev);
}

static long io_getevents(aio_context_t ctx, long min, long max,
			 struct io_event *ev, struct timespec *t)
{
	return syscall(__NR_io_getevents, ctx, min, max, ev, t);
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

/* A gadget left behind by an emulator that was killed: take it down. */
static void remove_stale(const char *name)
{
	struct nb_gadget g;
	struct stat st;

	memset(&g, 0, sizeof(g));
	snprintf(g.dir, sizeof(g.dir), "/sys/kernel/config/usb_gadget/%s", name);
	if (stat(g.dir, &st))
		return;
	snprintf(g.name, sizeof(g.name), "%s", name);
	snprintf(g.ffs, sizeof(g.ffs), "/dev/ffs-%s", name);
	g.ep0 = g.ep_in = g.ep_out = -1;
	g.mounted = 1;
	nb_gadget_destroy(&g);
}

static int io_init(struct emu_io *io, size_t cap)
{
	io->buf = aligned_alloc(64, cap);
	if (!io->buf)
		return -ENOMEM;
	io->cap = cap;
	io->busy = false;
	return 0;
}

int usb_setup(struct emu *e)
{
	const struct nb_gadget_config cfg = {
		.vendor = 0xffff,
		.product = e->opt.product,
		.bcd_device = 0x0100,
		.manufacturer = "naobody",
		.product_name = e->opt.product_name,
		.serial = "0",
		.bulk_packet = (uint16_t)e->opt.bulk_packet,
		.iso = (uint8_t)e->opt.iso,
	};
	int err;

	err = nb_gadget_load_modules();
	if (err == -EBUSY) {
		emu_log(e, 0, "dummy_hcd is loaded at high speed; 'rmmod dummy_hcd' and start again");
		return err;
	}
	if (err) {
		emu_log(e, 0, "cannot load dummy_hcd, libcomposite and usb_f_fs, or configfs is not mounted");
		return err;
	}
	remove_stale(e->opt.name);
	err = nb_gadget_create(&e->g, e->opt.name, &cfg);
	if (err) {
		emu_log(e, 0, "cannot create the gadget '%s': %s", e->opt.name, strerror(-err));
		return err;
	}
	e->created = true;
	err = set_nonblock(e->g.ep0);
	err = err ?: set_nonblock(e->g.ep_in);
	err = err ?: set_nonblock(e->g.ep_out);
	if (err)
		return err;

	e->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (e->evfd < 0)
		return -errno;
	if (io_setup(16, &e->aio) < 0) {
		emu_log(e, 0, "io_setup: %s", strerror(errno));
		return -errno;
	}
	for (unsigned int i = 0; i < EMU_OUT_SLOTS; i++) {
		err = io_init(&e->out[i], EMU_OUT_BUF);
		if (err)
			return err;
	}
	return 0;
}

void usb_teardown(struct emu *e)
{
	if (e->bound)
		usb_unbind(e);
	/* io_destroy cancels what is still queued and waits for it. */
	if (e->aio)
		io_destroy(e->aio);
	e->aio = 0;
	if (e->created)
		nb_gadget_destroy(&e->g);
	e->created = false;
	if (e->evfd >= 0)
		close(e->evfd);
	e->evfd = -1;
	for (unsigned int i = 0; i < EMU_OUT_SLOTS; i++) {
		free(e->out[i].buf);
		e->out[i].buf = NULL;
	}
}

int usb_bind(struct emu *e)
{
	int err;

	if (e->bound)
		return 0;
	err = nb_gadget_bind(&e->g, e->opt.udc);
	if (err) {
		emu_log(e, 0, "cannot bind to %s: %s", e->opt.udc, strerror(-err));
		return err;
	}
	e->bound = true;
	e->st.connects++;
	emu_log(e, 1, "bound to %s", e->opt.udc);
	return 0;
}

int usb_unbind(struct emu *e)
{
	int err;

	if (!e->bound)
		return 0;
	usb_cancel_in(e);
	err = nb_gadget_unbind(&e->g);
	if (err)
		emu_log(e, 0, "cannot unbind: %s", strerror(-err));
	e->bound = false;
	usb_disabled(e);
	emu_log(e, 1, "unbound");
	return err;
}

/* The host unconfigured the device, or it went away. */
void usb_disabled(struct emu *e)
{
	e->enabled = false;
	if (e->held)
		ep0_release(e);	/* the event that came cancelled it */
}

static void prep(struct emu *e, struct emu_io *io, int fd, uint64_t tag,
		 int opcode, const void *buf, size_t len)
{
	memset(&io->cb, 0, sizeof(io->cb));
	io->cb.aio_data = tag;
	io->cb.aio_lio_opcode = opcode;
	io->cb.aio_fildes = fd;
	io->cb.aio_buf = (uint64_t)(uintptr_t)buf;
	io->cb.aio_nbytes = len;
	io->cb.aio_flags = IOCB_FLAG_RESFD;
	io->cb.aio_resfd = e->evfd;
	io->cancelled = false;
	io->len = len;
}

/* Submit n prepared transfers at once; 0, or -errno if any failed. */
static int submit_all(struct emu *e, struct emu_io **io, int n)
{
	struct iocb *cbs[2];
	long done;

	for (int i = 0; i < n; i++)
		cbs[i] = &io[i]->cb;
	done = io_submit(e->aio, n, cbs);
	for (long i = 0; i < (done > 0 ? done : 0); i++)
		io[i]->busy = true;
	if (done == n)
		return 0;
	return done < 0 ? -errno : -EAGAIN;
}

static int submit(struct emu *e, struct emu_io *io, int fd, uint64_t tag,
		  int opcode, const void *buf, size_t len)
{
	prep(e, io, fd, tag, opcode, buf, len);
	return submit_all(e, &io, 1);
}

/* The OUT read the next frame goes to, or NULL if none is queued. */
static struct emu_io *live_out(struct emu *e)
{
	for (unsigned int i = 0; i < EMU_OUT_SLOTS; i++)
		if (e->out[i].busy && !e->out[i].cancelled)
			return &e->out[i];
	return NULL;
}

int usb_submit_out(struct emu *e)
{
	unsigned int i;
	int err;

	if (!e->enabled || live_out(e))
		return 0;
	for (i = 0; i < EMU_OUT_SLOTS && e->out[i].busy; i++)
		;
	if (i == EMU_OUT_SLOTS) {
		emu_log(e, 0, "bulk OUT read: every slot is still being withdrawn");
		return -EBUSY;
	}
	err = submit(e, &e->out[i], e->g.ep_out, IO_OUT + i, IOCB_CMD_PREAD,
		     e->out[i].buf, e->out[i].cap);
	if (err)
		emu_log(e, 0, "bulk OUT read: %s", strerror(-err));
	return err;
}

/*
 * Has the host delivered a frame that hasn't reached us yet? FunctionFS
 * completes an AIO read through a workqueue, so a frame's data can come
 * after the 0x14 the host sent once it had been delivered, and the setup
 * alone can't tell whether it is the 0x14 of the newest frame we have or
 * of one still on its way (the host may have given up on the newest
 * one's 0x14). The UDC knows: io_cancel() on the queued read asks it to
 * dequeue the request (ffs_aio_cancel(), usb_ep_dequeue()). If the
 * request has completed, that fails (EINVAL) and changes nothing: a frame
 * is on its way. If it was still queued, no frame is: it is taken off
 * (its completion, -ECONNRESET, comes later and is ignored) and another
 * read is queued at once; the host's next frame, if it is already being
 * sent, waits (NAKs) meanwhile.
 *
 * The host sends a 0x14 only once its frame is delivered and then waits
 * for it, so the request holds no part of a frame when this is asked,
 * unless the 0x14 is one the host has given up on and it is sending the
 * next frame, longer than what dummy_hcd moves in one pass (1216 bytes
 * a millisecond at full speed): that part is lost, and the frame arrives
 * cut, as when the host unlinks a frame halfway.
 */
bool usb_frame_in_flight(struct emu *e)
{
	struct emu_io *io = live_out(e);
	struct io_event ev;

	if (!io)
		return false;
	if (io_cancel(e->aio, &io->cb, &ev) == 0 || errno != EINPROGRESS) {
		emu_log(e, 3, "bulk OUT: a frame is on its way");
		return true;
	}
	io->cancelled = true;
	usb_submit_out(e);
	return false;
}

static struct emu_io *free_in_slot(struct emu *e, unsigned int *slot,
				   const struct emu_io *taken)
{
	for (unsigned int i = 0; i < EMU_IN_SLOTS; i++) {
		if (!e->in[i].busy && &e->in[i] != taken) {
			*slot = i;
			return &e->in[i];
		}
	}
	return NULL;
}

/*
 * Queue the answer in e->answer for frame seq, withdrawing any older one.
 * A transfer of a multiple of 64 bytes shorter than what the host reads
 * needs a zero-length packet to end the host's read; FunctionFS never adds
 * one, so it is a second, empty write.
 */
int usb_submit_in(struct emu *e, uint64_t seq, size_t len, bool zlp)
{
	struct emu_io *io[2];
	unsigned int slot;
	int n = zlp ? 2 : 1, err;

	if (!e->enabled)
		return -ESHUTDOWN;
	usb_cancel_in(e);
	for (int part = 0; part < n; part++) {
		io[part] = free_in_slot(e, &slot, part ? io[0] : NULL);
		if (!io[part]) {
			emu_log(e, 0, "bulk IN: every slot is still being withdrawn");
			return -EBUSY;
		}
		io[part]->seq = seq;
		io[part]->zlp = part == 1;
		prep(e, io[part], e->g.ep_in, IO_IN + slot, IOCB_CMD_PWRITE,
		     e->answer, part ? 0 : len);
	}
	/*
	 * One io_submit for both, so that the ZLP is queued while the answer
	 * still is: see EMU_MIN_ANSWER in exchange.c for why that matters.
	 */
	err = submit_all(e, io, n);
	if (err)
		emu_log(e, 0, "bulk IN write: %s", strerror(-err));
	return err;
}

bool usb_in_queued(struct emu *e)
{
	for (unsigned int i = 0; i < EMU_IN_SLOTS; i++)
		if (e->in[i].busy && !e->in[i].cancelled)
			return true;
	return false;
}

static void reap(struct emu *e, const struct io_event *ev)
{
	long res = (long)ev->res;
	struct emu_io *io;

	if (ev->data >= IO_OUT && ev->data < IO_OUT + EMU_OUT_SLOTS) {
		io = &e->out[ev->data - IO_OUT];
		io->busy = false;
		/* a read taken off by usb_frame_in_flight(): -ECONNRESET */
		if (io->cancelled && res <= 0)
			return;
		if (res > 0)
			memcpy(e->frame, io->buf, (size_t)res);
		else if (res < 0 && res != -EAGAIN && res != -ESHUTDOWN &&
			 res != -ECONNRESET)
			emu_log(e, 1, "bulk OUT: %s", strerror((int)-res));
		/*
		 * The next read is queued before this frame is looked at,
		 * so that the host's next frame finds one whatever happens
		 * to this one. Errors come with a disable, after which the
		 * next ENABLE resubmits; but that ENABLE may have come
		 * before this completion, so resubmit while enabled, a few
		 * times.
		 */
		e->out_errors = res < 0 ? e->out_errors + 1 : 0;
		if (e->out_errors < 3)
			usb_submit_out(e);
		if (res > 0)
			exchange_frame(e, e->frame, (size_t)res);
		return;
	}
	if (ev->data < IO_IN || ev->data >= IO_IN + EMU_IN_SLOTS)
		return;
	io = &e->in[ev->data - IO_IN];
	io->busy = false;
	if (!io->zlp)
		exchange_answer_done(e, io->seq, res);
}

/*
 * Withdraw the queued answer. The IN request leaves the endpoint's queue
 * at once (usb_ep_dequeue); its completion (-ECONNRESET, or its length if
 * the host had just read it all) arrives through the eventfd later.
 */
void usb_cancel_in(struct emu *e)
{
	struct io_event ev;
	long r;

	for (unsigned int i = 0; i < EMU_IN_SLOTS; i++) {
		if (!e->in[i].busy || e->in[i].cancelled)
			continue;
		e->in[i].cancelled = true;
		r = io_cancel(e->aio, &e->in[i].cb, &ev);
		emu_log(e, 3, "answer %llu withdrawn: %s", (unsigned long long)e->in[i].seq,
			r < 0 ? strerror(errno) : "done");
	}
}

/*
 * Halt an endpoint: FunctionFS halts it when a file is used against its
 * direction (a read of an IN endpoint, a write to an OUT one). An IN
 * endpoint halts only with nothing queued, so the answer goes first.
 */
int usb_halt_in(struct emu *e)
{
	uint8_t b;

	usb_cancel_in(e);
	if (read(e->g.ep_in, &b, sizeof(b)) < 0 && errno == EBADMSG)
		return 0;
	return -errno ?: -EIO;
}

int usb_halt_out(struct emu *e)
{
	uint8_t b = 0;

	if (write(e->g.ep_out, &b, sizeof(b)) < 0 && errno == EBADMSG)
		return 0;
	return -errno ?: -EIO;
}

void usb_aio_events(struct emu *e)
{
	struct io_event ev[8];
	struct timespec zero = { 0, 0 };
	uint64_t n;
	long got;

	if (read(e->evfd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return;
	do {
		got = io_getevents(e->aio, 0, 8, ev, &zero);
		for (long i = 0; i < got; i++)
			reap(e, &ev[i]);
	} while (got == 8);
}
