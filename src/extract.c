/*
 * extract.c - fenced code blocks of a Markdown reply, and which one is the candidate.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "extract.h"
#include "util/xalloc.h"

struct block {
	const char *start; /* first byte of the code */
	size_t len;
};

/* A fence line: optional indentation of up to 3 spaces, then ``` or ~~~ (3 or more). */
static size_t fence_len(const char *line, size_t n, char *ret_ch, size_t *ret_indent)
{
	size_t i = 0, k;

	while (i < n && i < 3 && line[i] == ' ')
		i++;
	if (i >= n || (line[i] != '`' && line[i] != '~'))
		return 0;
	for (k = i; k < n && line[k] == line[i]; k++)
		;
	if (k - i < 3)
		return 0;
	*ret_ch = line[i];
	*ret_indent = i;
	return k - i;
}

static bool python_info(const char *info, size_t n)
{
	while (n && isspace((unsigned char)*info))
		info++, n--;
	while (n && isspace((unsigned char)info[n - 1]))
		n--;
	return n == 0 || (n == 6 && !strncasecmp(info, "python", 6)) ||
	       (n == 2 && !strncasecmp(info, "py", 2)) || (n == 7 && !strncasecmp(info, "python3", 7));
}

/* Whether `code` defines function `name` at its top level (column 0, `def` or `async def`). */
static bool defines(const char *code, size_t len, const char *name)
{
	size_t nl = strlen(name);

	for (const char *p = code, *end = code + len; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *q = p;

		if (!eol)
			eol = end;
		if ((size_t)(eol - q) > 6 && !strncmp(q, "async ", 6))
			q += 6;
		if ((size_t)(eol - q) > 4 + nl && !strncmp(q, "def ", 4)) {
			q += 4;
			while (q < eol && *q == ' ')
				q++;
			if ((size_t)(eol - q) > nl && !strncmp(q, name, nl)) {
				q += nl;
				while (q < eol && *q == ' ')
					q++;
				if (q < eol && *q == '(')
					return true;
			}
		}
		p = eol + 1;
	}
	return false;
}

/*
 * Why no block will do: every name the closest block lacks, so that the model (who reads this as
 * feedback) and a user see all of them at once, not one at a time over several rounds.
 */
static void say_missing(const struct block *b, const char *const *entries, size_t nr_entries,
			size_t missing, struct strbuf *why)
{
	size_t said = 0;

	strbuf_addstr(why, "no code block defines every required function: ");
	for (size_t e = 0; e < nr_entries; e++) {
		if (defines(b->start, b->len, entries[e]))
			continue;
		if (said)
			strbuf_addstr(why, said + 1 == missing ? " and " : ", ");
		strbuf_addf(why, "'%s'", entries[e]);
		said++;
	}
	strbuf_addf(why, " %s missing (%zu of %zu missing in the closest block)",
		    missing == 1 ? "is" : "are", missing, nr_entries);
}

int extract_code(const char *reply, const char *finish, const char *const *entries,
		 size_t nr_entries, char **ret_code, struct strbuf *why)
{
	struct block *blocks = NULL;
	size_t nr = 0, alloc = 0, best_missing = (size_t)-1, best = 0;
	const char *p, *end, *open = NULL;
	size_t open_len = 0;
	char open_ch = 0;
	bool open_python = false, cut = finish && (!strcmp(finish, "length") ||
						   !strcmp(finish, "max_tokens"));
	int ret = -ENOENT;

	*ret_code = NULL;
	if (finish && !strcmp(finish, "refusal")) {
		strbuf_addstr(why, "the model refused");
		return -ENOENT;
	}
	if (!reply || !*reply) {
		strbuf_addstr(why, cut ? "the reply is empty: the token limit was reached before any "
					 "text" : "the reply is empty");
		return -ENOENT;
	}
	for (p = reply, end = reply + strlen(reply); p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *next;
		size_t n, flen, indent = 0;
		char ch = 0;

		eol = eol ? eol : end;
		next = eol < end ? eol + 1 : end;
		n = (size_t)(eol - p);
		if (n && p[n - 1] == '\r')
			n--;
		flen = fence_len(p, n, &ch, &indent);
		if (!open && flen) {
			open = next;
			open_len = flen;
			open_ch = ch;
			open_python = python_info(p + indent + flen, n - indent - flen);
		} else if (open && flen >= open_len && ch == open_ch) {
			/* a closing fence has nothing after the fence characters */
			size_t k = indent + flen;

			while (k < n && isspace((unsigned char)p[k]))
				k++;
			if (k == n) {
				if (open_python) {
					xgrow((void **)&blocks, sizeof(*blocks), nr + 1, &alloc);
					blocks[nr].start = open;
					blocks[nr].len = (size_t)(p - open);
					nr++;
				}
				open = NULL;
			}
		}
		p = next;
	}
	for (size_t b = nr; b-- > 0;) {
		size_t missing = 0;

		for (size_t e = 0; e < nr_entries; e++)
			missing += !defines(blocks[b].start, blocks[b].len, entries[e]);
		if (!missing) {
			*ret_code = xstrndup(blocks[b].start, blocks[b].len);
			ret = 0;
			goto out;
		}
		if (missing < best_missing) {
			best_missing = missing;
			best = b;
		}
	}
	if (open && open_python)
		strbuf_addstr(why, cut ? "the reply was cut off at the token limit inside its code block"
				       : "the reply's code block is never closed");
	else if (!nr)
		strbuf_addstr(why, cut ? "the reply was cut off at the token limit before any Python "
					 "code block" : "the reply has no fenced Python code block");
	else
		say_missing(&blocks[best], entries, nr_entries, best_missing, why);
out:
	free(blocks);
	return ret;
}
