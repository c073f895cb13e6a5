#include "shard.h"

size_t shard_count(size_t nr_items, size_t want)
{
	if (!nr_items)
		return 1;
	if (!want || want > nr_items)
		return nr_items;
	return want;
}

size_t shard_of(size_t i, size_t nr_shards)
{
	return nr_shards ? i % nr_shards : 0;
}

void shard_format_ranges(struct strbuf *sb, const size_t *v, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		if (i)
			strbuf_addch(sb, ',');
		if (j > i)
			strbuf_addf(sb, "%zu-%zu", v[i], v[j]);
		else
			strbuf_addf(sb, "%zu", v[i]);
		i = j + 1;
	}
}
