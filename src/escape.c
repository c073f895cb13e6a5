#include "escape.h"

#include <string.h>

void escape_html(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			strbuf_addstr(sb, "&amp;");
			break;
		case '<':
			strbuf_addstr(sb, "&lt;");
			break;
		case '>':
			strbuf_addstr(sb, "&gt;");
			break;
		case '"':
			strbuf_addstr(sb, "&quot;");
			break;
		case '\'':
			strbuf_addstr(sb, "&#39;");
			break;
		default:
			strbuf_addch(sb, *s);
		}
	}
}

void escape_csv(struct strbuf *sb, const char *s)
{
	size_t n;

	if (!s)
		return;
	n = strlen(s);
	if (!strpbrk(s, ",\"\r\n") && !(n && (s[0] == ' ' || s[n - 1] == ' '))) {
		strbuf_add(sb, s, n);
		return;
	}
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		if (*s == '"')
			strbuf_addch(sb, '"');
		strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '"');
}
