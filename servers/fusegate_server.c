// SPDX-License-Identifier: GPL-2.0
/*
 * fusegate-server: mount one of the test servers by hand or from a script.
 *
 *   fusegate-server [--behaviour NAME] [--target first|last]
 *                   [--entry-timeout S] [--attr-timeout S]
 *                   [--writeback-cache] [--delay-us N] [--statx] [--xattrs]
 *                   MOUNTPOINT
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

static void usage(FILE *f)
{
	fprintf(f, "usage: fusegate-server [--behaviour NAME] [--target first|last]\n"
		   "       [--entry-timeout S] [--attr-timeout S] [--writeback-cache]\n"
		   "       [--delay-us N] [--statx] [--xattrs] MOUNTPOINT\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "behaviour", required_argument, NULL, 'b' },
		{ "target", required_argument, NULL, 't' },
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
			rc = srv_behaviour_from_name(optarg);
			if (rc < 0) {
				fprintf(stderr, "unknown behaviour: %s\n", optarg);
				return 2;
			}
			cfg.behaviour = rc;
			break;
		case 't':
			if (strcmp(optarg, "first") && strcmp(optarg, "last")) {
				fprintf(stderr, "--target is first or last\n");
				return 2;
			}
			cfg.target = !strcmp(optarg, "last") ? SRV_TARGET_LAST :
							       SRV_TARGET_FIRST;
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
