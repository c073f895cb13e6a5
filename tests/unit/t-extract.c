/* t-extract.c - which code a reply yields, and why a reply yields none (src/extract.h). */
#include "unit.h"

#include "extract.h"

#define KERNEL "import triton\n\ndef add(x, y):\n    return x\n"

static void test_extract(void **state)
{
	static const char *const entries[] = {"add", "add_out", "add_grad"};
	static const struct {
		const char *what, *reply, *finish;
		size_t nr_entries;
		const char *want;   /* the code, or NULL */
		const char *reason; /* a substring of why, when want is NULL */
	} rows[] = {
		{"one python block", "Here:\n```python\n" KERNEL "```\nDone.", "stop", 1, KERNEL,
		 NULL},
		{"py and no info string", "```py\n" KERNEL "```\n", "stop", 1, KERNEL, NULL},
		{"bare fence", "```\n" KERNEL "```", NULL, 1, KERNEL, NULL},
		{"tilde fence, CRLF", "~~~python\r\ndef add(a):\r\n  pass\r\n~~~\r\n", NULL, 1,
		 "def add(a):\r\n  pass\r\n", NULL},
		{"last complete block wins", "```python\ndef add(a): 1\n```\nbetter:\n```python\n"
		 "def add(b): 2\n```\n", "stop", 1, "def add(b): 2\n", NULL},
		{"a block with the entry beats a later helper block",
		 "```python\ndef add(a): 1\n```\n```python\ndef helper(): 2\n```\n", "stop", 1,
		 "def add(a): 1\n", NULL},
		{"other languages are not code", "```bash\nkgb eval\n```\n", "stop", 1, NULL,
		 "no fenced Python code block"},
		{"no block at all", "I cannot help with that kernel.", "stop", 1, NULL,
		 "no fenced Python code block"},
		{"refusal", "I'm sorry", "refusal", 1, NULL, "refused"},
		{"empty", "", "stop", 1, NULL, "empty"},
		{"null reply", NULL, NULL, 1, NULL, "empty"},
		{"cut off inside the block", "```python\ndef add(x, y):\n    return", "length", 1, NULL,
		 "cut off at the token limit inside its code block"},
		{"never closed", "```python\ndef add(x):\n", "stop", 1, NULL, "never closed"},
		{"anthropic max_tokens before code", "Let me think...", "max_tokens", 1, NULL,
		 "cut off at the token limit before any"},
		{"second entry missing", "```python\n" KERNEL "```", "stop", 2, NULL,
		 "'add_out' is missing (1 of 2 missing in the closest block)"},
		{"both entries missing: both named", "```python\ndef helper(): 1\n```", "stop", 2,
		 NULL, "function: 'add' and 'add_out' are missing (2 of 2 missing in the closest"},
		{"three missing: a list", "```python\ndef helper(): 1\n```", "stop", 3, NULL,
		 "function: 'add', 'add_out' and 'add_grad' are missing (3 of 3 missing"},
		{"the closest block's names, not the last block's",
		 "```python\n" KERNEL "```\n```python\ndef helper(): 1\n```", "stop", 3, NULL,
		 "function: 'add_out' and 'add_grad' are missing (2 of 3 missing"},
		{"nested def does not count", "```python\nclass K:\n    def add(self):\n        pass\n"
		 "```", "stop", 1, NULL, "'add' is missing"},
		{"prefix of another name does not count", "```python\ndef add_out(x): 1\n```", "stop",
		 1, NULL, "'add' is missing"},
		{"async def and spaces before (", "```python\nasync def add (x): 1\ndef add_out(y): 2\n"
		 "```", "stop", 2, "async def add (x): 1\ndef add_out(y): 2\n", NULL},
		{"longer closing fence, indented", "````python\n" KERNEL "  `````\n", "stop", 1, KERNEL,
		 NULL},
		{"text after backticks is not a closing fence",
		 "```python\ns = '''\n```python x\n'''\ndef add(): 1\n```\n", "stop", 1,
		 "s = '''\n```python x\n'''\ndef add(): 1\n", NULL},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct strbuf why = STRBUF_INIT;
		char *code = NULL;
		int r = extract_code(rows[i].reply, rows[i].finish, entries, rows[i].nr_entries, &code,
				     &why);

		print_message("%s: %s\n", rows[i].what, why.buf);
		if (rows[i].want) {
			assert_int_equal(r, 0);
			assert_string_equal(code, rows[i].want);
			assert_int_equal(why.len, 0);
		} else {
			assert_int_equal(r, -ENOENT);
			assert_null(code);
			assert_non_null(strstr(why.buf, rows[i].reason));
		}
		free(code);
		strbuf_release(&why);
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_extract),
};

UNIT_MAIN(tests)
