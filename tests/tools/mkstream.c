// SPDX-License-Identifier: GPL-2.0
/*
 * mkstream: turn a readable text description into send stream bytes, using
 * the library's writer.  Made for golden and hostile test streams.
 *
 * Usage: mkstream [-o OUTPUT] [DESCRIPTION]   (stdin / stdout by default)
 *
 * One item per line; '#' starts a comment, blank lines are ignored.
 *
 *   stream version=N          stream header (magic + version)
 *   raw VALUE                 raw bytes between commands
 *   repeat N LINE             the command LINE, N times
 *   NAME attr=VALUE ...       a command: NAME is a command name as printed
 *                             by btrfs receive --dump (mkfile, set_xattr...)
 *                             or cmd:NUMBER for any command number
 *
 * Attributes are named as in the library (path, path_to, file_offset,
 * clone_uuid...; "offset" is accepted for file_offset) or aNUMBER for any
 * number, e.g. a99=hex:00.  They are written in the order given.  VALUE is
 * parsed by the attribute's type:
 *
 *   numbers          42, 0x2a, 0644 (octal), -1
 *   uuid             01234567-89ab-cdef-0123-456789abcdef
 *   timespec         SECONDS[.NANOSECONDS], seconds may be negative
 *   string           word, or "quoted with \n \t \\ \" \xHH escapes"
 *
 * and for any attribute, a byte generator writes the bytes as they are
 * (use it to give an attribute a wrong size):
 *
 *   hex:6869  zeros:N  fill:N:BYTE  random:N[:SEED]  text:WORD
 *
 * data=... is the DATA attribute, written with the version's rule (no
 * length in v2+).  Knobs for malformed commands:
 *
 *   raw=VALUE   bytes appended to the payload at that point
 *   len=N       store N as the payload length
 *   crc=N       store N as the CRC
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <btrfs-stream/stream.h>

struct ctx {
	const char *file;
	unsigned int line;
	struct bstream_writer *w;
	/* Buffers referenced by the writer until the command ends. */
	void *bufs[64];
	int nbufs;
};

__attribute__((format(printf, 2, 3), noreturn))
static void die(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mkstream: '%s' line %u: ", c->file, c->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *keep(struct ctx *c, size_t len)
{
	void *p = malloc(len ? len : 1);

	if (!p || c->nbufs == (int)(sizeof(c->bufs) / sizeof(c->bufs[0])))
		die(c, "out of memory or too many values");
	c->bufs[c->nbufs++] = p;
	return p;
}

static void release(struct ctx *c)
{
	while (c->nbufs)
		free(c->bufs[--c->nbufs]);
}

static unsigned long long parse_num(struct ctx *c, const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (*s == '-')
		v = (unsigned long long)strtoll(s, &end, 0);
	else
		v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		die(c, "bad number '%s'", s);
	return v;
}

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/*
 * Expand a byte generator (hex:, zeros:, fill:, random:, text:) into a kept
 * buffer.  Returns false if s is not a generator.
 */
static bool gen_bytes(struct ctx *c, const char *s, uint8_t **out, size_t *len)
{
	if (!strncmp(s, "hex:", 4)) {
		size_t n = strlen(s + 4);
		uint8_t *p;

		if (n % 2)
			die(c, "odd number of hex digits in '%s'", s);
		p = keep(c, n / 2);
		for (size_t i = 0; i < n / 2; i++) {
			int hi = hexval(s[4 + 2 * i]), lo = hexval(s[5 + 2 * i]);

			if (hi < 0 || lo < 0)
				die(c, "bad hex digit in '%s'", s);
			p[i] = hi << 4 | lo;
		}
		*out = p;
		*len = n / 2;
		return true;
	}
	if (!strncmp(s, "zeros:", 6)) {
		*len = parse_num(c, s + 6);
		*out = keep(c, *len);
		memset(*out, 0, *len);
		return true;
	}
	if (!strncmp(s, "fill:", 5)) {
		char num[32];
		const char *colon = strchr(s + 5, ':');

		if (!colon || colon - (s + 5) >= (int)sizeof(num))
			die(c, "fill needs fill:N:BYTE, got '%s'", s);
		memcpy(num, s + 5, colon - (s + 5));
		num[colon - (s + 5)] = 0;
		*len = parse_num(c, num);
		*out = keep(c, *len);
		memset(*out, (int)parse_num(c, colon + 1), *len);
		return true;
	}
	if (!strncmp(s, "random:", 7)) {
		char *end;
		unsigned long long seed = 1;
		uint64_t x;

		*len = strtoull(s + 7, &end, 0);
		if (*end == ':')
			seed = parse_num(c, end + 1);
		else if (*end)
			die(c, "random needs random:N[:SEED], got '%s'", s);
		*out = keep(c, *len);
		x = seed * 0x9E3779B97F4A7C15ull + 1;
		for (size_t i = 0; i < *len; i++) {
			/* xorshift64: reproducible filler, not cryptography */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			(*out)[i] = (uint8_t)(x >> 32);
		}
		return true;
	}
	if (!strncmp(s, "text:", 5)) {
		*len = strlen(s + 5);
		*out = keep(c, *len);
		memcpy(*out, s + 5, *len);
		return true;
	}
	return false;
}

static void parse_uuid(struct ctx *c, const char *s, uint8_t uuid[16])
{
	int n = 0;

	for (const char *p = s; *p; p++) {
		int hi, lo;

		if (*p == '-')
			continue;
		hi = hexval(p[0]);
		lo = p[1] ? hexval(p[1]) : -1;
		if (hi < 0 || lo < 0 || n == 16)
			die(c, "bad uuid '%s'", s);
		uuid[n++] = hi << 4 | lo;
		p++;
	}
	if (n != 16)
		die(c, "bad uuid '%s'", s);
}

static struct bstream_timespec parse_time(struct ctx *c, const char *s)
{
	struct bstream_timespec ts = { 0 };
	char buf[64];
	char *dot;

	if (strlen(s) >= sizeof(buf))
		die(c, "bad time '%s'", s);
	strcpy(buf, s);
	dot = strchr(buf, '.');
	if (dot) {
		*dot = 0;
		ts.nsec = (uint32_t)parse_num(c, dot + 1);
	}
	ts.sec = (int64_t)parse_num(c, buf);
	return ts;
}

static void check(struct ctx *c, int ret)
{
	if (ret < 0)
		die(c, "%s", bstream_writer_errmsg(c->w));
}

static void put_attr(struct ctx *c, const char *key, const char *val)
{
	uint8_t *bytes;
	size_t len;
	int attr;

	if (!strcmp(key, "offset"))
		key = "file_offset";
	if (key[0] == 'a' && key[1] >= '0' && key[1] <= '9')
		attr = (int)parse_num(c, key + 1);
	else
		attr = bstream_attr_from_name(key);
	if (attr < 0)
		die(c, "unknown attribute '%s'", key);

	if (attr == BTRFS_SEND_A_DATA) {
		if (!gen_bytes(c, val, &bytes, &len)) {
			len = strlen(val);
			bytes = keep(c, len);
			memcpy(bytes, val, len);
		}
		check(c, bstream_put_data(c->w, bytes, len));
		return;
	}
	if (gen_bytes(c, val, &bytes, &len)) {
		check(c, bstream_put_bytes(c->w, attr, bytes, len));
		return;
	}
	switch (bstream_attr_type(attr)) {
	case BSTREAM_T_U8:
		check(c, bstream_put_u8(c->w, attr, (uint8_t)parse_num(c, val)));
		break;
	case BSTREAM_T_U32:
		check(c, bstream_put_u32(c->w, attr, (uint32_t)parse_num(c, val)));
		break;
	case BSTREAM_T_U64:
		check(c, bstream_put_u64(c->w, attr, parse_num(c, val)));
		break;
	case BSTREAM_T_UUID: {
		uint8_t uuid[16];

		parse_uuid(c, val, uuid);
		check(c, bstream_put_uuid(c->w, attr, uuid));
		break;
	}
	case BSTREAM_T_TIMESPEC:
		check(c, bstream_put_timespec(c->w, attr, parse_time(c, val)));
		break;
	default:
		check(c, bstream_put_bytes(c->w, attr, val, strlen(val)));
		break;
	}
}

/*
 * Split a line into tokens in place; a token may contain "quoted" parts
 * with C escapes.  Returns the number of tokens.
 */
static int tokenize(struct ctx *c, char *line, char **tok, int max)
{
	int n = 0;
	char *src = line;

	for (;;) {
		char *dst;

		while (*src == ' ' || *src == '\t')
			src++;
		if (!*src || *src == '#')
			break;
		if (n == max)
			die(c, "too many tokens");
		tok[n++] = dst = src;
		while (*src && *src != ' ' && *src != '\t') {
			if (*src != '"') {
				*dst++ = *src++;
				continue;
			}
			src++;
			while (*src != '"') {
				if (!*src)
					die(c, "unterminated quote");
				if (*src != '\\') {
					*dst++ = *src++;
					continue;
				}
				src++;
				switch (*src) {
				case 'n': *dst++ = '\n'; break;
				case 't': *dst++ = '\t'; break;
				case 'r': *dst++ = '\r'; break;
				case 'a': *dst++ = '\a'; break;
				case 'b': *dst++ = '\b'; break;
				case 'f': *dst++ = '\f'; break;
				case 'v': *dst++ = '\v'; break;
				case 'e': *dst++ = 0x1b; break;
				case 'x': {
					int hi = hexval(src[1]);
					int lo = hi < 0 ? -1 : hexval(src[2]);

					if (lo < 0)
						die(c, "bad \\x escape");
					if (!(hi << 4 | lo))
						die(c, "\\x00 cannot be used in a string; use hex:");
					*dst++ = hi << 4 | lo;
					src += 2;
					break;
				}
				case 0:
					die(c, "unterminated quote");
				default: *dst++ = *src; break;
				}
				src++;
			}
			src++;
		}
		if (*src)
			src++;
		*dst = 0;
	}
	return n;
}

static void do_command(struct ctx *c, char **tok, int n)
{
	struct bstream_cmd_fixup fix = { 0 };
	int cmd;

	if (!strncmp(tok[0], "cmd:", 4))
		cmd = (int)parse_num(c, tok[0] + 4);
	else
		cmd = bstream_cmd_from_name(tok[0]);
	if (cmd < 0)
		die(c, "unknown command '%s'", tok[0]);
	check(c, bstream_cmd_begin(c->w, cmd));
	for (int i = 1; i < n; i++) {
		const char *eq = strchr(tok[i], '=');
		char key[64];

		if (!eq || eq - tok[i] >= (int)sizeof(key))
			die(c, "expected attr=value, got '%s'", tok[i]);
		memcpy(key, tok[i], eq - tok[i]);
		key[eq - tok[i]] = 0;
		if (!strcmp(key, "len")) {
			fix.flags |= BSTREAM_FIX_LEN;
			fix.len = (uint32_t)parse_num(c, eq + 1);
		} else if (!strcmp(key, "crc")) {
			fix.flags |= BSTREAM_FIX_CRC;
			fix.crc = (uint32_t)parse_num(c, eq + 1);
		} else if (!strcmp(key, "raw")) {
			uint8_t *b;
			size_t l;

			if (!gen_bytes(c, eq + 1, &b, &l))
				die(c, "raw needs a byte generator (hex:...)");
			check(c, bstream_put_raw(c->w, b, l));
		} else {
			put_attr(c, key, eq + 1);
		}
	}
	check(c, bstream_cmd_end(c->w, &fix));
	release(c);
}

static void do_line(struct ctx *c, char *line)
{
	char *tok[256];
	int n = tokenize(c, line, tok, 256);

	if (n == 0)
		return;
	if (!strcmp(tok[0], "stream")) {
		unsigned long long version = 1;

		for (int i = 1; i < n; i++) {
			if (strncmp(tok[i], "version=", 8))
				die(c, "stream takes version=N");
			version = parse_num(c, tok[i] + 8);
		}
		check(c, bstream_write_header(c->w, (uint32_t)version));
	} else if (!strcmp(tok[0], "raw")) {
		uint8_t *b;
		size_t l;

		if (n != 2 || !gen_bytes(c, tok[1], &b, &l))
			die(c, "raw needs one byte generator (hex:...)");
		check(c, bstream_put_raw(c->w, b, l));
		release(c);
	} else if (!strcmp(tok[0], "repeat")) {
		unsigned long long count;

		if (n < 3)
			die(c, "repeat needs a count and a command");
		count = parse_num(c, tok[1]);
		for (unsigned long long i = 0; i < count; i++)
			do_command(c, tok + 2, n - 2);
	} else {
		do_command(c, tok, n);
	}
}

int main(int argc, char **argv)
{
	struct ctx c = { .file = "<stdin>" };
	const char *output = NULL;
	FILE *in = stdin;
	char *line = NULL;
	size_t cap = 0;
	int fd = STDOUT_FILENO;
	int opt;

	while ((opt = getopt(argc, argv, "o:h")) != -1) {
		switch (opt) {
		case 'o':
			output = optarg;
			break;
		default:
			fprintf(stderr, "usage: mkstream [-o OUTPUT] [DESCRIPTION]\n");
			return opt == 'h' ? 0 : 1;
		}
	}
	if (optind < argc) {
		c.file = argv[optind];
		in = fopen(c.file, "r");
		if (!in) {
			fprintf(stderr, "mkstream: cannot open '%s': %m\n", c.file);
			return 1;
		}
	}
	if (output) {
		fd = open(output, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) {
			fprintf(stderr, "mkstream: cannot create '%s': %m\n", output);
			return 1;
		}
	}
	c.w = bstream_writer_new();
	if (!c.w || bstream_writer_set_fd(c.w, fd)) {
		fprintf(stderr, "mkstream: cannot create writer\n");
		return 1;
	}
	while (getline(&line, &cap, in) > 0) {
		c.line++;
		line[strcspn(line, "\n")] = 0;
		do_line(&c, line);
	}
	free(line);
	bstream_writer_free(c.w);
	if (fd != STDOUT_FILENO && close(fd)) {
		fprintf(stderr, "mkstream: cannot write '%s': %m\n", output);
		return 1;
	}
	return 0;
}
