/*
 * shard.h - the deterministic split of a run's task list into shards (DESIGN §7), and the
 * compact index lists Slurm's --array takes.
 *
 * Pure functions, no I/O. A split depends only on the number of items and of shards, so the
 * same task list and the same --shards give the same shards on every host and every rerun (a
 * rerun resubmits shard K with exactly the tasks it had).
 */
#ifndef KGB_SHARD_H
#define KGB_SHARD_H

#include <stddef.h>

#include "util/strbuf.h"

/*
 * The number of shards for nr_items items when `want` were asked for: want, at most one per
 * item (no empty shard), at least one; want == 0 means one per item.
 */
size_t shard_count(size_t nr_items, size_t want);

/*
 * The shard of item i of nr_items in nr_shards (nr_shards >= 1): items are dealt round-robin,
 * item i to shard i % nr_shards, so neighbours in the list (often similar tasks: one source,
 * one family) land in different shards and the shards' sizes differ by at most one.
 */
size_t shard_of(size_t i, size_t nr_shards);

/*
 * Appends the indices v[0..n) (ascending, distinct) to sb as Slurm's array list: runs of
 * consecutive indices as "a-b", the rest as "a", comma-separated ("0-3,5,7-8"); nothing when
 * n == 0.
 */
void shard_format_ranges(struct strbuf *sb, const size_t *v, size_t n);

#endif
