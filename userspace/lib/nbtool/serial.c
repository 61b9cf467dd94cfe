// SPDX-License-Identifier: GPL-2.0-only
/* The serial robots' tools' shared main (see <nbtool/serial.h>). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <n_robot/link.h>
#include <nbtool/serial.h>

void nbtool_serial_init(struct nbtool_serial *t, const char *env, const char *dflt)
{
	const char *dev = getenv(env);

	t->device = dev ? dev : dflt;
	t->mode = NR_LINK_AUTO;
}

int nbtool_serial_option(struct nbtool_serial *t, int opt, const char *arg)
{
	int m;

	switch (opt) {
	case 'd':
		t->device = arg;
		return -1;
	case 'L':
		m = nr_link_parse_mode(arg);
		if (m < 0) {
			fprintf(stderr, "%s: --ldisc: auto, yes or no, not '%s'\n", t->prog, arg);
			return NBTOOL_EXIT_USAGE;
		}
		t->mode = m;
		return -1;
	default:
		return nbtool_option(t->prog, t->usage, opt);
	}
}

int nbtool_serial_run(const struct nbtool_serial *t, const struct nbtool_cmd *cmds,
		      int argc, char **argv)
{
	const struct nbtool_cmd *c;
	void *dev = NULL;
	int ret;

	if (argc < 1) {
		t->usage(stderr);
		return NBTOOL_EXIT_USAGE;
	}
	for (c = cmds; c->name && strcmp(c->name, argv[0]); c++)
		;
	if (!c->run) {
		fprintf(stderr, "%s: unknown command '%s' (see --help)\n", t->prog, argv[0]);
		return NBTOOL_EXIT_USAGE;
	}
	if (c->flags & NBTOOL_DEVICE) {
		ret = t->open(&dev);
		if (ret)
			return ret;
	}
	ret = c->run(dev, argc, argv);
	if (c->flags & NBTOOL_DEVICE)
		t->close(dev);
	return ret;
}

/* What the link's errors mean, whichever robot is at the other end. */
static const char *link_hint(const struct nbtool_serial *t, int err, char *buf, size_t n)
{
	switch (-err) {
	case ENOENT:
		snprintf(buf, n, " (is %s plugged in? choose the port with -d)", t->robot);
		return buf;
	case EACCES:
		return " (add yourself to the dialout group)";
	case EPERM:
		return nr_link_module_loaded() ?
		       " (the n_robot line discipline needs CAP_NET_ADMIN: run as root, or use --ldisc=no)" :
		       " (the n_robot module is not loaded, and this kernel loads it only for a caller "
		       "that may load modules: run 'modprobe n_robot' as root, or use --ldisc=no)";
	case EIO:
		return " (the link went away)";
	case EPROTOTYPE:
		return " (that n_robot device is another robot's: see its compatible in the device tree)";
	case ENOTTY:
		return " (an n_robot device node frames in the kernel: leave out --ldisc=no)";
	}
	return "";
}

void nbtool_serial_explain(const struct nbtool_serial *t, const char *what, int err)
{
	const char *hint = t->hint ? t->hint(what, err) : NULL;
	char buf[96];

	if (!hint)
		hint = link_hint(t, err, buf, sizeof(buf));
	fprintf(stderr, "%s: %s: %s%s\n", t->prog, what, strerror(-err), hint);
}
