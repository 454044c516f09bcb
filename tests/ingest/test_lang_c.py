"""Golden test of C extraction by the query engine (queries/c.scm)."""

from __future__ import annotations

from tests.ingest.langrows import calls, imports, inherits, parse, symbols

SOURCE = """\
#include <stdio.h>
#include "util/strbuf.h"

#define BUF_MAX 4096

/* A growable buffer. */
struct buffer {
    char *data;
    size_t len;
};

typedef struct { int x, y; } point_t;

enum color { RED, GREEN };

static int counter = 0;

/* Append one byte. */
static void buf_push(struct buffer *b, char c)
{
    b->data[b->len++] = c;
    strbuf_grow(b, 1);
}

char *buf_str(struct buffer *b) { return b->data; }

int main(int argc, char **argv)
{
    struct buffer b = {0};
    buf_push(&b, 'x');
    printf("%zu\\n", b.len);
    return ops->run(argc);
}
"""

TEST_SOURCE = """\
#include "buffer.h"

static void test_push(void) { buf_push(0, 'a'); }

int main(void) { test_push(); return 0; }
"""


def test_c_rows() -> None:
    fx = parse("c", SOURCE, "src/buffer.c")
    assert fx.language == "c" and fx.error_lines == []
    assert symbols(fx) == [
        ("BUF_MAX", "constant", 4, 4, "", False),
        ("buffer", "struct", 7, 10, "", False),
        ("point_t", "struct", 12, 12, "", False),
        ("color", "enum", 14, 14, "", False),
        ("counter", "variable", 16, 16, "", False),
        ("buf_push", "function", 19, 23, "", False),
        ("buf_str", "function", 25, 25, "", False),
        ("main", "function", 27, 33, "", False),
    ]
    assert [s.docstring for s in fx.symbols][1:6:4] == ["A growable buffer.", "Append one byte."]
    assert imports(fx) == [("stdio.h", "", "", 1), ("util/strbuf.h", "", "", 2)]
    assert calls(fx) == [
        ("buf_push", "strbuf_grow", 22),
        ("main", "buf_push", 30),
        ("main", "printf", 31),
        ("main", "ops.run", 32),
    ]
    assert inherits(fx) == []  # C has no inheritance


def test_c_tests_by_name_in_test_files() -> None:
    fx = parse("c", TEST_SOURCE, "tests/test_buffer.c")
    assert symbols(fx) == [("test_push", "function", 3, 3, "", True),
                           ("main", "function", 5, 5, "", False)]
    assert calls(fx) == [("test_push", "buf_push", 3), ("main", "test_push", 5)]
    same_name_elsewhere = parse("c", TEST_SOURCE, "src/selftest.c")
    assert [s.is_test for s in same_name_elsewhere.symbols] == [False, False]
