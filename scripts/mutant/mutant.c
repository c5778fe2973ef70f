// SPDX-License-Identifier: GPL-2.0
/*
 * fusegate's mutant schema switch, copied into fs/fuse by
 * scripts/mutschema.py (never part of a series).
 *
 * fuse.mutant (a module parameter: on the command line, or at
 * /sys/module/fuse/parameters/mutant) is the number of the mutant that is
 * on; 0 is none.  /sys/kernel/debug/fuse_mutant_reached lists the sites
 * whose guard ran since it was last written to (any write clears it and
 * the next file).  /sys/kernel/debug/fuse_mutant_cond lists, as
 * "t=SITES f=SITES", the condition sites whose unmutated condition was
 * seen true and seen false since then.
 */
#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/moduleparam.h>
#include <linux/seq_file.h>
#include "mutant.h"

unsigned int fuse_mutant;
module_param_named(mutant, fuse_mutant, uint, 0644);
MODULE_PARM_DESC(mutant, "The mutant of the schema that is on (0: none)");

unsigned long fuse_mut_reached[BITS_TO_LONGS(FUSE_MUT_SITES)];
unsigned long fuse_mut_true[BITS_TO_LONGS(FUSE_MUT_SITES)];
unsigned long fuse_mut_false[BITS_TO_LONGS(FUSE_MUT_SITES)];

static int fuse_mut_reached_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%*pbl\n", FUSE_MUT_SITES, fuse_mut_reached);
	return 0;
}

static int fuse_mut_reached_open(struct inode *inode, struct file *file)
{
	return single_open(file, fuse_mut_reached_show, NULL);
}

static ssize_t fuse_mut_reached_write(struct file *file, const char __user *buf,
				      size_t len, loff_t *ppos)
{
	bitmap_zero(fuse_mut_reached, FUSE_MUT_SITES);
	bitmap_zero(fuse_mut_true, FUSE_MUT_SITES);
	bitmap_zero(fuse_mut_false, FUSE_MUT_SITES);
	return len;
}

static const struct file_operations fuse_mut_reached_fops = {
	.owner = THIS_MODULE,
	.open = fuse_mut_reached_open,
	.read = seq_read,
	.write = fuse_mut_reached_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int fuse_mut_cond_show(struct seq_file *m, void *v)
{
	seq_printf(m, "t=%*pbl f=%*pbl\n", FUSE_MUT_SITES, fuse_mut_true,
		   FUSE_MUT_SITES, fuse_mut_false);
	return 0;
}

static int fuse_mut_cond_open(struct inode *inode, struct file *file)
{
	return single_open(file, fuse_mut_cond_show, NULL);
}

static const struct file_operations fuse_mut_cond_fops = {
	.owner = THIS_MODULE,
	.open = fuse_mut_cond_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static int __init fuse_mut_init(void)
{
	debugfs_create_file("fuse_mutant_reached", 0600, NULL, NULL,
			    &fuse_mut_reached_fops);
	debugfs_create_file("fuse_mutant_cond", 0400, NULL, NULL,
			    &fuse_mut_cond_fops);
	return 0;
}
late_initcall(fuse_mut_init);
