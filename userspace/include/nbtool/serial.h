/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the serial robots' tools (cm5ctl, parolctl) share: their options
 * for the port, the command table their main() dispatches on, their error
 * messages and their signals. Not installed: the tools' own header.
 *
 *	static const struct nbtool_cmd cmds[] = {
 *		{ "status", cmd_status, NBTOOL_DEVICE },
 *		{ "regs", cmd_regs, 0 },
 *		{ NULL },
 *	};
 *
 *	nbtool_serial_init(&tool, "CM5_DEVICE", "/dev/ttyUSB0");
 *	while ((o = getopt_long(argc, argv, "+d:L:h...", opts, NULL)) != -1) {
 *		switch (o) {
 *		(the tool's own options)
 *		default:
 *			ret = nbtool_serial_option(&tool, o, optarg);
 *			if (ret >= 0)
 *				return ret;
 *		}
 *	}
 *	return nbtool_serial_run(&tool, cmds, argc - optind, argv + optind);
 */
#ifndef _NBTOOL_SERIAL_H
#define _NBTOOL_SERIAL_H

#include <stdio.h>

#include <n_robot/link.h>
#include <nbtool/options.h>
#include <nbtool/signals.h>

struct nbtool_serial {
	const char *prog;		/* for messages: "prog: ..." */
	const char *robot;		/* "the CM-5": "is the CM-5 plugged in?" */
	const char *device;		/* -d, --device */
	enum nr_link_mode mode;		/* -L, --ldisc */
	void (*usage)(FILE *f);
	/* The tool's own hint for what failed with err, or NULL for the link's. */
	const char *(*hint)(const char *what, int err);
	/*
	 * The device, for the commands that need it (NBTOOL_DEVICE): 0 with
	 * *dev set, or the exit status once the reason is said. close() after.
	 */
	int (*open)(void **dev);
	void (*close)(void *dev);
};

/* The device: $env when set, else dflt. */
void nbtool_serial_init(struct nbtool_serial *t, const char *env, const char *dflt);

/*
 * getopt's 'd' (--device), 'L' (--ldisc), and the rest as nbtool_option()
 * takes them: -1 when taken (go on), else the exit status to return.
 */
int nbtool_serial_option(struct nbtool_serial *t, int opt, const char *arg);

/* nbtool_cmd.flags */
#define NBTOOL_DEVICE	(1U << 0)	/* open()ed before, close()d after */

struct nbtool_cmd {
	const char *name;		/* NULL ends the table... */
	int (*run)(void *dev, int argc, char **argv);	/* ...its run, if any, any other name */
	unsigned int flags;
};

/*
 * The command argv[0] names, with its arguments (argv[0] is its name): its
 * exit status. Without one, the usage; an unknown one is said so; both
 * NBTOOL_EXIT_USAGE. dev is NULL but for NBTOOL_DEVICE.
 */
int nbtool_serial_run(const struct nbtool_serial *t, const struct nbtool_cmd *cmds,
		      int argc, char **argv);

/*
 * "prog: what: strerror(-err) (hint)" on stderr. The hint is the tool's
 * (t->hint), else what the link's errors mean: no port, no permission,
 * the line discipline, another robot's device, a hang-up.
 */
void nbtool_serial_explain(const struct nbtool_serial *t, const char *what, int err);

#endif /* _NBTOOL_SERIAL_H */
