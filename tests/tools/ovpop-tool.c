// SPDX-License-Identifier: GPL-2.0
/*
 * ovpop-tool: the guest's helper for the bad-input and security tests, built
 * static for the guest's arch by scripts/build.sh.
 *
 *   ovpop-tool corpus SEED DIR MAXSIZE  write malformed variants of the valid
 *                                       overlay SEED into DIR, one file a case
 *   ovpop-tool fuzz SEED N RNGSEED      send N mutated copies of SEED through
 *                                       configfs, one item each; prints counts
 *   ovpop-tool nocap CMD [ARG...]       run CMD as root without CAP_SYS_ADMIN
 *   ovpop-tool readloop UID SECS FILE...
 *                                       as UID, read each FILE to its end,
 *                                       over and over for SECS seconds; names
 *                                       the files never read whole
 *   ovpop-tool blobcheck UID SECS FILE A B
 *                                       as UID, read FILE over and over for
 *                                       SECS seconds: each read must give
 *                                       the bytes of file A or of file B
 *   ovpop-tool blobwrite SECS FILE A B  write A, B, A, ... to FILE, each by
 *                                       open, one write, close; SECS seconds
 *   ovpop-tool kclose FILE BLOB         open FILE, write BLOB, and leave the
 *                                       last reference to the file to a
 *                                       kernel thread
 *   ovpop-tool crc32 FILE               FILE's size and CRC-32 (zlib's, as
 *                                       tests/modules/ovpop_fpga.c reports
 *                                       an image): "SIZE CRC" (8 hex digits)
 *   ovpop-tool failnth K apply|rmdir ...
 *   ovpop-tool sweep|notify apply|rmdir ...
 *                                       allocation faults and reconfig
 *                                       notifier errors (faults.c)
 *
 * fuzz: each case is written to the dtbo attribute of a new item; a refused
 * blob must leave status "unapplied" and a message in "error"; an accepted
 * one (a mutation can be a valid overlay) is removed again. Every rmdir must
 * succeed. The last line is "fuzz: N cases, A applied, R refused, S silent,
 * F failed"; the exit status is non-zero if S or F is.
 *
 * readloop, blobcheck: a read failing with ENOENT or ENODEV (the item or
 * the module is gone) or EAGAIN (ovpop asks the reader to read again) is
 * counted, any other error
 * is a failure; the last line gives the counts, the exit status is non-zero
 * on a failure or, for blobcheck, a read that is neither A nor B.
 * kclose: the file is registered in an io_uring (IORING_REGISTER_FILES) and
 * every descriptor closed; the kernel tears the ring down in a workqueue
 * (io_ring_exit_work()), whose fput() of the file is a kernel thread's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/io_uring.h>

#include "faults.h"

#define CFS "/sys/kernel/config/device-tree/overlays"

/* FDT header fields, big-endian u32 at these offsets */
enum { H_MAGIC = 0, H_TOTALSIZE = 4, H_OFF_STRUCT = 8, H_OFF_STRINGS = 12,
	H_OFF_RSVMAP = 16, H_VERSION = 20, H_LAST_COMP = 24, H_SIZE_STRINGS = 32,
	H_SIZE_STRUCT = 36, H_LEN = 40 };
enum { T_BEGIN = 1, T_END = 2, T_PROP = 3, T_NOP = 4, T_FDT_END = 9 };

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static uint32_t get32(const struct blob *b, size_t off)
{
	const unsigned char *p = b->d + off;

	if (off + 4 > b->n)
		return 0;
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static void put32(struct blob *b, size_t off, uint32_t v)
{
	if (off + 4 > b->n)
		return;
	b->d[off] = v >> 24;
	b->d[off + 1] = v >> 16;
	b->d[off + 2] = v >> 8;
	b->d[off + 3] = v;
}

struct blob load(const char *path)
{
	struct blob b = { NULL, 0 };
	struct stat st;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		die(path);
	b.n = st.st_size;
	b.d = malloc(b.n + 1);
	if (!b.d || read(fd, b.d, b.n) != (ssize_t)b.n)
		die(path);
	close(fd);
	return b;
}

static struct blob copy(const struct blob *s, size_t n)
{
	struct blob b = { calloc(1, n ? n : 1), n };

	if (!b.d)
		die("calloc");
	memcpy(b.d, s->d, n < s->n ? n : s->n);
	return b;
}

/* Offset of the n-th (from 0) token @tok in the structure block, or 0 */
static size_t find_token(const struct blob *b, uint32_t tok, int nth)
{
	size_t off = get32(b, H_OFF_STRUCT), end = off + get32(b, H_SIZE_STRUCT);
	uint32_t t, len;

	while (off + 4 <= end && off + 4 <= b->n) {
		t = get32(b, off);
		if (t == tok && nth-- == 0)
			return off;
		off += 4;
		if (t == T_BEGIN) {
			while (off < b->n && b->d[off])
				off++;
			off = (off + 4) & ~(size_t)3;
		} else if (t == T_PROP) {
			len = get32(b, off);
			off = (off + 8 + len + 3) & ~(size_t)3;
		}
	}
	return 0;
}

static void save(const char *dir, const char *name, const struct blob *b)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s.dtbo", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || (b->n && write(fd, b->d, b->n) != (ssize_t)b->n))
		die(path);
	close(fd);
	free(b->d);
}

/* @b (of s->n + k * len bytes) = @s with its record at @off repeated k times */
static void dup_record(struct blob *b, const struct blob *s, size_t off,
		       size_t len, size_t k)
{
	size_t j;

	for (j = 1; j <= k; j++)	/* the record again, and all after it */
		memcpy(b->d + off + j * len, s->d + off, s->n - off);
	put32(b, H_TOTALSIZE, s->n + k * len);
	put32(b, H_SIZE_STRUCT, get32(s, H_SIZE_STRUCT) + k * len);
	if (get32(s, H_OFF_STRINGS) > off)
		put32(b, H_OFF_STRINGS, get32(s, H_OFF_STRINGS) + k * len);
}

/* Offset of the first value of node @name (a child of the root), or 0 */
static size_t first_value_of(const struct blob *b, const char *name)
{
	size_t len = strlen(name) + 1, off;

	for (off = 4; off + len + 24 <= b->n; off += 4)
		if (get32(b, off - 4) == T_BEGIN && !memcmp(b->d + off, name, len))
			break;
	off += (len + 3) & ~(size_t)3;
	return off + 12 < b->n && get32(b, off) == T_PROP ? off + 12 : 0;
}

/* Offset of the value of the first property named @name, or 0 */
static size_t prop_value_named(const struct blob *b, const char *name)
{
	size_t strings = get32(b, H_OFF_STRINGS), off;
	int i;

	for (i = 0; (off = find_token(b, T_PROP, i)); i++)
		if (strings + get32(b, off + 8) + strlen(name) < b->n &&
		    !strcmp((const char *)b->d + strings + get32(b, off + 8), name))
			return off + 12;
	return 0;
}

/* The named cases: what each breaks is in its name */
static int corpus(const struct blob *s, const char *dir, size_t maxsize)
{
	size_t n = s->n, prop = find_token(s, T_PROP, 0);
	size_t plen = 12 + ((get32(s, prop + 4) + 3) & ~(size_t)3);
	size_t fixup = first_value_of(s, "__fixups__");
	size_t compat = prop_value_named(s, "compatible");
	size_t last_end = 0, off;
	struct blob b;
	int i, count = 0;

	for (i = 0; (off = find_token(s, T_END, i)); i++)
		last_end = off;
#define CASE(name, len, edit) do { b = copy(s, len); edit; save(dir, name, &b); \
	count++; } while (0)
	CASE("empty", 0, (void)0);
	CASE("one-byte", 1, (void)0);
	CASE("header-truncated", 20, (void)0);
	CASE("bad-magic", n, put32(&b, H_MAGIC, 0xd00dfeef));
	CASE("header-only", H_LEN, put32(&b, H_TOTALSIZE, H_LEN));
	CASE("totalsize-too-big", n, put32(&b, H_TOTALSIZE, n + 4096));
	CASE("totalsize-too-small", n, put32(&b, H_TOTALSIZE, H_LEN));
	CASE("truncated-half", n / 2, (void)0);
	CASE("truncated-half-resized", n / 2, put32(&b, H_TOTALSIZE, n / 2));
	CASE("truncated-struct", n - 8, put32(&b, H_TOTALSIZE, n - 8));
	CASE("version-1", n, put32(&b, H_VERSION, 1));
	CASE("last-comp-version-99", n, put32(&b, H_LAST_COMP, 99));
	CASE("struct-offset-past-end", n, put32(&b, H_OFF_STRUCT, n));
	CASE("strings-offset-past-end", n, put32(&b, H_OFF_STRINGS, n + 64));
	CASE("rsvmap-offset-past-end", n, put32(&b, H_OFF_RSVMAP, n + 64));
	CASE("struct-size-huge", n, put32(&b, H_SIZE_STRUCT, 0xfffffff0));
	CASE("strings-size-huge", n, put32(&b, H_SIZE_STRINGS, 0xfffffff0));
	CASE("struct-misaligned", n,
	     put32(&b, H_OFF_STRUCT, get32(s, H_OFF_STRUCT) + 1));
	CASE("bad-token", n, put32(&b, prop, 0x0badbeef));
	CASE("prop-len-huge", n, put32(&b, prop + 4, 0x7ffffff0));
	CASE("prop-nameoff-past-strings", n, put32(&b, prop + 8, 0x00ffffff));
	CASE("no-end-token", n,
	     put32(&b, get32(s, H_OFF_STRUCT) + get32(s, H_SIZE_STRUCT) - 4,
		   T_NOP));
	CASE("unclosed-node", n, put32(&b, last_end, T_NOP));
	CASE("extra-end-node", n,
	     put32(&b, get32(s, H_OFF_STRUCT) + get32(s, H_SIZE_STRUCT) - 4,
		   T_END));
	CASE("dup-prop-record", n + plen, dup_record(&b, s, prop, plen, 1));
	/* more than 8 names in the node: ovpop checks those by hashing */
	CASE("dup-prop-records-many", n + 9 * plen,
	     dup_record(&b, s, prop, plen, 9));
	if (!fixup || !compat)
		die("the seed has no __fixups__ or no compatible");
	/* the core strlen()s these values: the NUL ends the property */
	CASE("fixup-unterminated", n,
	     b.d[fixup + get32(s, fixup - 8) - 1] = ':');
	CASE("compatible-unterminated", n,
	     b.d[compat + get32(s, compat - 8) - 1] = 'x');
	CASE("zeroes", 4096, memset(b.d, 0, b.n));
	CASE("random", 4096, for (off = 0; off < b.n; off++)
		b.d[off] = (unsigned char)(off * 2654435761u >> 13));
	CASE("text", 64, memcpy(b.d, "/dts-v1/;\n/plugin/;\n&{/} { status = \"okay\"; };\n", 48));
	CASE("oversize", maxsize + 1, put32(&b, H_TOTALSIZE, maxsize + 1));
#undef CASE
	printf("corpus: %d cases in %s\n", count, dir);
	return 0;
}

static uint64_t rng;

static uint32_t rnd(uint32_t below)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return below ? (uint32_t)(rng >> 32) % below : 0;
}

static void mutate(struct blob *b)
{
	static const uint32_t interesting[] = { 0, 1, 2, 3, 4, 9, 0x7f, 0x80,
		0xff, 0x7fffffff, 0x80000000, 0xffffffff, 0xd00dfeed, 40, 17, 16 };
	int k, nmut = 1 + rnd(4);
	size_t off;

	for (k = 0; k < nmut && b->n; k++) {
		off = rnd(b->n);
		switch (rnd(6)) {
		case 0:
			b->d[off] ^= 1u << rnd(8);
			break;
		case 1:
			b->d[off] = rnd(256);
			break;
		case 2:
			put32(b, off & ~(size_t)3,
			      interesting[rnd(sizeof(interesting) / 4)]);
			break;
		case 3:	/* a header field */
			put32(b, 4 * rnd(10), interesting[rnd(16)]);
			break;
		case 4:	/* truncate (not to nothing: that is no write at all) */
			b->n = off ? off : 1;
			break;
		default: /* a token */
			put32(b, off & ~(size_t)3, 1 + rnd(9));
			break;
		}
	}
}

static int read_attr(const char *item, const char *attr, char *buf, size_t len)
{
	char path[256];
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), CFS "/%s/%s", item, attr);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	r = read(fd, buf, len - 1);
	close(fd);
	if (r < 0)
		return -1;
	buf[r] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* One case: 0 refused with a message, 1 applied and removed, <0 a failure */
static int fuzz_one(const struct blob *b, const char *item, char *why,
		    size_t whylen)
{
	char path[256], status[64], error[512];
	int fd, ret;

	snprintf(path, sizeof(path), CFS "/%s", item);
	if (mkdir(path, 0755)) {
		snprintf(why, whylen, "mkdir: %s", strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), CFS "/%s/dtbo", item);
	fd = open(path, O_WRONLY);
	if (fd < 0 || (b->n && write(fd, b->d, b->n) != (ssize_t)b->n)) {
		snprintf(why, whylen, "write: %s", strerror(errno));
		ret = -1;
	} else {
		ret = 0;
	}
	if (fd >= 0)
		close(fd);	/* the apply */
	if (!ret && (read_attr(item, "status", status, sizeof(status)) ||
		     read_attr(item, "error", error, sizeof(error)))) {
		snprintf(why, whylen, "reading the attributes: %s",
			 strerror(errno));
		ret = -1;
	} else if (!ret && !strcmp(status, "applied")) {
		ret = 1;
	} else if (!ret && (strcmp(status, "unapplied") || !error[0])) {
		snprintf(why, whylen, "refused silently: status '%s', error '%s'",
			 status, error);
		ret = -2;
	}
	snprintf(path, sizeof(path), CFS "/%s", item);
	if (rmdir(path)) {
		snprintf(why, whylen, "rmdir: %s", strerror(errno));
		ret = -1;
	}
	return ret;
}

static int fuzz(const struct blob *s, long n, unsigned long seed)
{
	long i, applied = 0, refused = 0, silent = 0, failed = 0;
	char item[64], why[1024];
	struct blob b;
	int r;

	rng = seed ? seed : 1;
	for (i = 0; i < n; i++) {
		b = copy(s, s->n);
		mutate(&b);
		snprintf(item, sizeof(item), "fuzz-%ld", i);
		r = fuzz_one(&b, item, why, sizeof(why));
		if (r == 1) {
			applied++;
		} else if (r == 0) {
			refused++;
		} else {
			if (r == -2)
				silent++;
			else
				failed++;
			if (silent + failed <= 10)
				printf("fuzz: case %ld (seed %lu): %s\n", i, seed, why);
		}
		free(b.d);
	}
	printf("fuzz: %ld cases, %ld applied, %ld refused, %ld silent, %ld failed\n",
	       n, applied, refused, silent, failed);
	return silent || failed;
}

static int nocap(char **argv)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	/* Out of the bounding set, so that exec as root does not give it back */
	if (prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN, 0, 0, 0))
		die("PR_CAPBSET_DROP");
	if (syscall(SYS_capget, &h, d))
		die("capget");
	d[0].effective &= ~(1u << CAP_SYS_ADMIN);
	d[0].permitted &= ~(1u << CAP_SYS_ADMIN);
	d[0].inheritable &= ~(1u << CAP_SYS_ADMIN);
	if (syscall(SYS_capset, &h, d))
		die("capset");
	execvp(argv[0], argv);
	die(argv[0]);
	return 2;
}

/* --- readers and closers for the race and credential tests (security) --- */

static void become(const char *uid_s)
{
	uid_t uid = strtoul(uid_s, NULL, 10);

	if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
		die("setuid");
}

/* Reads @path to its end into @buf; the length, or -1 with errno */
static ssize_t slurp(const char *path, unsigned char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while (n < size && (r = read(fd, buf + n, size - n)) > 0)
		n += r;
	if (r < 0) {
		r = errno;
		close(fd);
		errno = r;
		return -1;
	}
	close(fd);
	return n;
}

struct reads {
	long n, gone, again, failed;
};

/* Counts a failed read; false for an unexpected error (printed) */
static int read_failed(struct reads *c, const char *path)
{
	if (errno == ENOENT || errno == ENODEV) {
		c->gone++;
	} else if (errno == EAGAIN) {
		c->again++;
	} else {
		if (!c->failed++)
			printf("%s: %s\n", path, strerror(errno));
		return 0;
	}
	return 1;
}

static unsigned char rbuf[1 << 20];

/*
 * Seconds on the monotonic clock: the wall clock jumps when an overlay's
 * RTC registers and the kernel sets the time from it (RTC_HCTOSYS)
 */
static time_t now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec;
}

static int readloop(char **files, int nfiles, long secs)
{
	time_t end = now() + secs;
	struct reads c = { 0 };
	long *ok = calloc(nfiles, sizeof(*ok));
	int i, unread = 0;

	if (!ok)
		die("calloc");
	while (now() < end)
		for (i = 0; i < nfiles; i++)
			if (slurp(files[i], rbuf, sizeof(rbuf)) >= 0)
				ok[i]++;
			else
				read_failed(&c, files[i]);
	for (i = 0; i < nfiles; i++) {
		c.n += ok[i];
		if (!ok[i]) {
			printf("never read: %s\n", files[i]);
			unread++;
		}
	}
	free(ok);
	printf("readloop: %ld reads, %ld gone, %ld again, %ld failed, %d of %d files never read\n",
	       c.n, c.gone, c.again, c.failed, unread, nfiles);
	return c.failed != 0;
}

static int same(const unsigned char *d, size_t n, const struct blob *b)
{
	return n == b->n && !memcmp(d, b->d, n);
}

/* A read that is neither A nor B: where it differs from the one its size */
static void mismatch(const unsigned char *d, size_t n, const struct blob *a,
		     const struct blob *b)
{
	const struct blob *ref = n == a->n ? a : b;
	size_t i = 0;

	if (n != a->n && n != b->n) {
		printf("blobcheck: %zu bytes, neither %zu nor %zu\n", n, a->n,
		       b->n);
		return;
	}
	while (i < n && d[i] == ref->d[i])
		i++;
	printf("blobcheck: %zu bytes, the size of %s, differing from byte %zu on\n",
	       n, ref == a ? "A" : "B", i);
}

static int blobcheck(const char *file, const struct blob *a,
		     const struct blob *b, long secs)
{
	time_t end = now() + secs;
	struct reads c = { 0 };
	long na = 0, nb = 0, bad = 0;
	ssize_t n;

	while (now() < end) {
		n = slurp(file, rbuf, sizeof(rbuf));
		if (n < 0) {
			read_failed(&c, file);
			continue;
		}
		c.n++;
		if (same(rbuf, n, a))
			na++;
		else if (same(rbuf, n, b))
			nb++;
		else if (!bad++)
			mismatch(rbuf, n, a, b);
	}
	printf("blobcheck: %ld reads, %ld A, %ld B, %ld neither, %ld again, %ld failed\n",
	       c.n, na, nb, bad, c.again, c.failed);
	return bad || c.failed;
}

/* Writes @b to @file in one write; 0, or -1 (printed) */
static int write_file(const char *file, const struct blob *b)
{
	int fd = open(file, O_WRONLY);

	if (fd < 0 || write(fd, b->d, b->n) != (ssize_t)b->n) {
		perror(file);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return close(fd);
}

static int blobwrite(const char *file, const struct blob *a,
		     const struct blob *b, long secs)
{
	time_t end = now() + secs;
	long n = 0;

	while (now() < end)
		if (write_file(file, n++ & 1 ? b : a))
			return 1;
	printf("blobwrite: %ld writes\n", n);
	return 0;
}

static int kclose(const char *file, const struct blob *b)
{
	struct io_uring_params p = { 0 };
	int fd = open(file, O_WRONLY), ring;

	if (fd < 0 || write(fd, b->d, b->n) != (ssize_t)b->n)
		die(file);
	ring = syscall(__NR_io_uring_setup, 1, &p);
	if (ring < 0)
		die("io_uring_setup");
	if (syscall(__NR_io_uring_register, ring, IORING_REGISTER_FILES, &fd, 1))
		die("IORING_REGISTER_FILES");
	close(fd);
	close(ring);	/* the ring is torn down in a workqueue */
	return 0;
}

/* The commands above, or -1 if @argv names none of them */
static int race_tool(int argc, char **argv)
{
	struct blob a, b;

	if (argc >= 5 && !strcmp(argv[1], "readloop")) {
		become(argv[2]);
		return readloop(argv + 4, argc - 4, strtol(argv[3], NULL, 10));
	}
	if (argc == 7 && !strcmp(argv[1], "blobcheck")) {
		a = load(argv[5]);
		b = load(argv[6]);
		become(argv[2]);
		return blobcheck(argv[4], &a, &b, strtol(argv[3], NULL, 10));
	}
	if (argc == 6 && !strcmp(argv[1], "blobwrite")) {
		a = load(argv[4]);
		b = load(argv[5]);
		return blobwrite(argv[3], &a, &b, strtol(argv[2], NULL, 10));
	}
	if (argc == 4 && !strcmp(argv[1], "kclose")) {
		a = load(argv[3]);
		return kclose(argv[2], &a);
	}
	if (argc >= 2 && (!strcmp(argv[1], "readloop") ||
			  !strcmp(argv[1], "blobcheck") ||
			  !strcmp(argv[1], "blobwrite") ||
			  !strcmp(argv[1], "kclose"))) {
		fprintf(stderr, "usage: ovpop-tool readloop UID SECS FILE... | blobcheck UID SECS FILE A B | blobwrite SECS FILE A B | kclose FILE BLOB\n");
		return 2;
	}
	return -1;
}

/* CRC-32, reflected, polynomial 0xedb88320: the kernel's crc32_le(~0, ...) ^ ~0 */
static int crc32_file(const struct blob *b)
{
	uint32_t crc = ~0U;
	size_t i;
	int k;

	for (i = 0; i < b->n; i++) {
		crc ^= b->d[i];
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320U & -(crc & 1));
	}
	printf("%zu %08x\n", b->n, ~crc);
	return 0;
}

int main(int argc, char **argv)
{
	struct blob s;
	int ret;

	if (argc == 3 && !strcmp(argv[1], "crc32")) {
		s = load(argv[2]);
		return crc32_file(&s);
	}

	if (argc >= 5 && !strcmp(argv[1], "corpus")) {
		s = load(argv[2]);
		return corpus(&s, argv[3], strtoul(argv[4], NULL, 0));
	}
	if (argc >= 5 && !strcmp(argv[1], "fuzz")) {
		s = load(argv[2]);
		return fuzz(&s, strtol(argv[3], NULL, 0),
			    strtoul(argv[4], NULL, 0));
	}
	if (argc >= 3 && !strcmp(argv[1], "nocap"))
		return nocap(argv + 2);
	ret = race_tool(argc, argv);
	if (ret >= 0)
		return ret;
	ret = faults_main(argc, argv);
	if (ret >= 0)
		return ret;
	fprintf(stderr, "usage: ovpop-tool crc32 FILE | corpus SEED DIR MAXSIZE | fuzz SEED N RNGSEED | nocap CMD [ARG...] | failnth ... | sweep ... | notify ...\n");
	return 2;
}
