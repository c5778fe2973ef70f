// SPDX-License-Identifier: GPL-2.0
/*
 * fusegate-server: mount one of the test servers by hand or from a script.
 *
 *   fusegate-server [--behaviour NAME] [--entry-timeout S]
 *                   [--attr-timeout S] [--writeback-cache] [--delay-us N]
 *                   [--statx] [--xattrs] MOUNTPOINT
 *
 * Serves in the foreground until the mount goes away; then prints one line
 * per request it read ("opcode unique nodeid [sub dep]") on stdout.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse_server.h"

/* The server's modes, by the names --behaviour takes */
static const char *const names[SRV_NR_BEHAVIOURS] = {
	[SRV_COMPLIANT] = "compliant",
	[SRV_COMPOUND_ENOSYS] = "compound-enosys",
	[SRV_COMPOUND_EOPNOTSUPP] = "compound-eopnotsupp",
	[SRV_COMPOUND_EINVAL] = "compound-einval",
};

static int behaviour_from_name(const char *name)
{
	int i;

	for (i = 0; i < SRV_NR_BEHAVIOURS; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

static void usage(FILE *f)
{
	int i;

	fprintf(f, "usage: fusegate-server [--behaviour NAME] [--entry-timeout S]\n"
		   "       [--attr-timeout S] [--writeback-cache] [--delay-us N]\n"
		   "       [--statx] [--xattrs] MOUNTPOINT\n"
		   "behaviours:");
	for (i = 0; i < SRV_NR_BEHAVIOURS; i++)
		fprintf(f, " %s", names[i]);
	fprintf(f, "\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "behaviour", required_argument, NULL, 'b' },
		{ "entry-timeout", required_argument, NULL, 'e' },
		{ "attr-timeout", required_argument, NULL, 'a' },
		{ "writeback-cache", no_argument, NULL, 'w' },
		{ "delay-us", required_argument, NULL, 'd' },
		{ "statx", no_argument, NULL, 'x' },
		{ "xattrs", no_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct srv_config cfg = { .entry_timeout = 1, .attr_timeout = 1,
				  .notify_fd = -1, .control_fd = -1 };
	int c, fd, rc;
	unsigned int i;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			rc = behaviour_from_name(optarg);
			if (rc < 0) {
				fprintf(stderr, "unknown behaviour: %s\n", optarg);
				return 2;
			}
			cfg.behaviour = rc;
			break;
		case 'e': cfg.entry_timeout = strtoull(optarg, NULL, 0); break;
		case 'a': cfg.attr_timeout = strtoull(optarg, NULL, 0); break;
		case 'w': cfg.writeback_cache = true; break;
		case 'd': cfg.delay_us = strtoul(optarg, NULL, 0); break;
		case 'x': cfg.statx = true; break;
		case 'X': cfg.xattrs = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	cfg.mountpoint = argv[optind];
	cfg.log = srv_log_create();
	fd = srv_mount(cfg.mountpoint);
	if (fd < 0) {
		fprintf(stderr, "mount %s: %s\n", cfg.mountpoint, strerror(-fd));
		return 1;
	}
	rc = srv_run_fd(&cfg, fd);
	for (i = 0; cfg.log && i < cfg.log->n; i++) {
		const struct srv_record *r = &cfg.log->rec[i];

		printf("%u %llu %llu", r->opcode, (unsigned long long)r->unique,
		       (unsigned long long)r->nodeid);
		if (r->sub)
			printf(" sub %u", r->dep_index);
		printf("\n");
	}
	return rc;
}
