// SPDX-License-Identifier: GPL-2.0
/*
 * ovpop-tool's fault injection (tests/guest/faults.sh, the debug lane's
 * kernel):
 *
 *   ovpop-tool failnth K apply ITEM FILE
 *   ovpop-tool failnth K rmdir ITEM
 *	One operation on configfs item ITEM (created if missing) with the
 *	K-th allocation of this task in it failing (0: none); prints
 *	"injected|untouched ok|ERRNO N".
 *   ovpop-tool sweep apply|rmdir ITEM FILE GUARD GFILE GPATH FIRST STEP
 *	The operation, each k of it in turn failing, each checked; prints
 *	what failed and a summary.
 *   ovpop-tool notify apply|rmdir ITEM FILE GUARD GFILE GPATH ACTION...
 *	The operation with the OF reconfig notifier error injection failing
 *	those actions (debugfs notifier-error-inject/OF-reconfig, -EIO),
 *	checked as a sweep's.
 *
 * failnth: K is written to /proc/thread-self/fail-nth (lib/fault-inject.c:
 * each allocation the fault-injection filters let through counts it down,
 * the one taking it to 0 fails; faults.sh sets the filters), after the
 * write of FILE to ITEM's dtbo
 * and before the close that applies it (configfs), or before the rmdir.
 * A count still above 0 afterwards means the operation made fewer than K
 * such allocations: no fault was injected ("untouched"). The second word
 * is the result of the write or of the rmdir (an apply's own is in ITEM's
 * status and error), the third how many allocations were counted (K if
 * one failed).
 *
 * sweep: one process for the whole sweep, since starting one takes about
 * 0.1 s in the debug guest. ITEM must not exist. The overlay FILE is
 * applied and removed once without a fault first, for the references:
 * every platform and AMBA device with its sysfs path, the devices bound to
 * each of their drivers, the live tree's node and property names, ITEM's
 * devices report (without the driver column). The k swept: FIRST, then
 * every STEP-th, up to the first that the operation does not reach (it
 * makes fewer allocations), which must then succeed. After each operation:
 * - apply: the item is applied and all is as after the clean apply (with
 *   drivers probing, a device may have lost its driver to the fault:
 *   counted, not a failure), or unapplied with a message in error and all
 *   as before; then its clean removal leaves all as before. An untouched
 *   apply must succeed.
 * - rmdir: the item is gone and all is as before, or the rmdir failed and
 *   it is applied as after the clean apply; then its clean removal leaves
 *   all as before. An untouched rmdir must succeed.
 * - the kernel logged no report: a line matching the ERE in $FI_REPORT but
 *   not the one in $FI_EXPECTED (read from /dev/kmsg, attributed to k).
 * Every 25 operations and at the end, the configfs item GUARD (applied
 * before the sweep from GFILE, its property GPATH in the live tree) is
 * removed, which the OF core refuses while a changeset applied after it is
 * still registered, and applied again; GUARD "-": no guard (the kernel
 * keeps the changesets that the sweep's faults leave unapplied).
 * A failure prints "fault k=K OP: what", with the kernel's lines
 * of the operation; the last line is "sweep OP: N operations in T s: F
 * failed, R kernel reports, A applied, U with a driver unbound, K kept by
 * the kernel" (unapplied, the kernel keeping the changeset). The exit
 * status is 0 if F and R are 0, 1 if not, 2 if the sweep could not run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "faults.h"

#define CFS "/sys/kernel/config/device-tree/overlays"
#define NEI "/sys/kernel/debug/notifier-error-inject/OF-reconfig/actions"
#define BATCH 25	/* operations between two guard checks */
#define SHOWN 5		/* failures shown in detail */

static struct {
	const char *op, *item, *guard, *gpath;
	struct blob blob, gblob;	/* FILE and GFILE, read once */
	char report_path[512];	/* the item's devices report */
	int nth, kmsg;
	regex_t report, expected;
	struct state off, on;
	struct lines log;	/* the kernel's lines of the operation */
	unsigned long k;
	long failed, reports, applied, unbound, kept;
	int strict;		/* drivers are not probing: none may bind */
	int armed;		/* the next operation is the faulted one */
	char **actions;		/* reconfig actions failing in it (notify) */
} sw;

/* The item's attribute, first line only */
static char *attr(const char *name)
{
	char path[512], *s;

	snprintf(path, sizeof(path), CFS "/%s/%s", sw.item, name);
	s = read_text(path);
	s[strcspn(s, "\n")] = 0;
	return s;
}

/*
 * Is the state @want ("applied": sw.on, "absent": sw.off)? Else 0, with
 * the first difference in @why. A device with its driver missing in an
 * apply with drivers probing is counted in *@unbound.
 */
static int state_is(const struct state *want, char *why, size_t len,
		    int *unbound)
{
	struct state now;
	int ok = 0;

	state_get(&now, sw.report_path);
	if (strcmp(now.devs, want->devs))
		state_diff(why, len, "devices", want->devs, now.devs);
	else if (strcmp(now.dt, want->dt))
		state_diff(why, len, "live tree", want->dt, now.dt);
	else if (strcmp(now.rep, want->rep))
		state_diff(why, len, "devices report", want->rep, now.rep);
	else if (strcmp(now.drvs, want->drvs) && (want == &sw.off || sw.strict))
		state_diff(why, len, "drivers", want->drvs, now.drvs);
	else
		ok = 1;
	if (ok && unbound && strcmp(now.drvs, want->drvs))
		*unbound = 1;
	state_free(&now);
	return ok;
}

/* Reads the kernel's new records into sw.log; counts the reports */
static int kmsg_scan(void)
{
	char buf[8192], *msg;
	int n = 0;
	ssize_t r;

	for (;;) {
		r = read(sw.kmsg, buf, sizeof(buf) - 1);
		if (r < 0 && errno == EPIPE)	/* overwritten: go on */
			continue;
		if (r <= 0)
			break;
		buf[r] = 0;
		msg = strchr(buf, ';');
		msg = msg ? msg + 1 : buf;
		msg[strcspn(msg, "\n")] = 0;
		if (strstr(msg, "kobject_release"))
			continue;	/* DEBUG_KOBJECT_RELEASE's, thousands */
		lines_add(&sw.log, "%s", msg);
		if (!strstr(msg, "OVPOP-") &&
		    !regexec(&sw.report, msg, 0, NULL, 0) &&
		    regexec(&sw.expected, msg, 0, NULL, 0)) {
			lines_add(&sw.log, "^^^ a kernel report");
			n++;
		}
	}
	return n;
}

static void mark(const char *what)
{
	dprintf(sw.kmsg, "OVPOP-FI: %s %s k=%lu\n", sw.item, what, sw.k);
}

/* A failed operation: the first ones are shown with the kernel's lines */
static void fail(const char *fmt, ...)
{
	va_list ap;
	size_t i;

	if (++sw.failed > SHOWN)
		return;
	printf("fault k=%lu %s: ", sw.k, sw.op);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	for (i = 0; i < sw.log.n; i++)
		if (i < 12 || !strcmp(sw.log.v[i], "^^^ a kernel report") ||
		    (i + 1 < sw.log.n &&
		     !strcmp(sw.log.v[i + 1], "^^^ a kernel report")))
			printf("  | %s\n", sw.log.v[i]);
	fflush(stdout);
}

static unsigned long fail_nth(unsigned long k)
{
	char buf[32];
	ssize_t n;

	n = snprintf(buf, sizeof(buf), "%lu", k);
	if (k && pwrite(sw.nth, buf, n, 0) != n)
		fi_fatal("fail-nth");
	n = pread(sw.nth, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		fi_fatal("fail-nth");
	buf[n] = 0;
	if (!k && strtoul(buf, NULL, 10) && pwrite(sw.nth, "0", 1, 0) != 1)
		fi_fatal("fail-nth");
	return strtoul(buf, NULL, 10);
}

/* Sets or clears the injected error of the reconfig actions sw.actions */
static void inject(int on)
{
	char path[512];
	char **a;
	int fd;

	for (a = sw.actions; a && *a; a++) {
		snprintf(path, sizeof(path), NEI "/%s/error", *a);
		fd = open(path, O_WRONLY);
		if (fd < 0 || write(fd, on ? "-5" : "0", on ? 2 : 1) < 0)
			fi_fatal(path);
		close(fd);
	}
}

/*
 * Applies @b to @item (created here), the @k-th allocation failing;
 * returns the write's errno; *@left is what the count had left
 */
static int do_apply(const char *item, const struct blob *b, unsigned long k,
		    unsigned long *left)
{
	char path[512];
	int fd, err = 0;
	ssize_t w;

	*left = 0;
	snprintf(path, sizeof(path), CFS "/%s", item);
	if (mkdir(path, 0755) && errno != EEXIST)
		err = errno;
	snprintf(path, sizeof(path), CFS "/%s/dtbo", item);
	fd = err ? -1 : open(path, O_WRONLY);
	if (fd < 0)
		return err ?: errno;
	w = write(fd, b->d, b->n);
	if (w < 0)
		err = errno;
	else if ((size_t)w != b->n)
		err = EIO;	/* configfs writes all or nothing */
	if (sw.armed)
		inject(1);
	if (fail_nth(k) != k)
		fi_fatal("fail-nth: the count did not stick");
	close(fd);	/* the apply; configfs drops its result */
	*left = fail_nth(0);
	if (sw.armed)
		inject(0);
	return err;
}

static int do_rmdir(const char *item, unsigned long k, unsigned long *left)
{
	char path[512];
	int err = 0;

	*left = 0;
	snprintf(path, sizeof(path), CFS "/%s", item);
	if (sw.armed)
		inject(1);
	if (fail_nth(k) != k)
		fi_fatal("fail-nth: the count did not stick");
	if (rmdir(path))
		err = errno;
	*left = fail_nth(0);
	if (sw.armed)
		inject(0);
	return err;
}

static int exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

static int item_exists(const char *item)
{
	char path[512];

	snprintf(path, sizeof(path), CFS "/%s", item);
	return exists(path);
}

/* After a failure: the item gone and all as before, or the sweep ends */
static int recover(void)
{
	char why[1024];
	unsigned long left;

	if (item_exists(sw.item))
		do_rmdir(sw.item, 0, &left);
	sleep(1);
	if (state_is(&sw.off, why, sizeof(why), NULL))
		return 0;
	printf("fault k=%lu %s: cannot get back to the state before: %s\n",
	       sw.k, sw.op, why);
	return -1;
}

/* The clean removal after an operation that left the item */
static int clean_rmdir(const char *result)
{
	char why[1024];
	unsigned long left;
	int err = do_rmdir(sw.item, 0, &left);

	if (err) {
		fail("%s; then the clean removal failed: %s", result,
		     strerror(err));
		return recover();
	}
	if (!state_is(&sw.off, why, sizeof(why), NULL)) {
		fail("%s; after the clean removal: %s", result, why);
		return recover();
	}
	return 0;
}

/* One apply with fault sw.k; 1: it was untouched, -1: the sweep ends */
static int apply_one(unsigned long *left)
{
	char why[1024], res[64], *status, *error;
	int err, unbound = 0, ret;

	mark("apply");
	sw.armed = 1;
	err = do_apply(sw.item, &sw.blob, sw.k, left);
	sw.armed = 0;
	snprintf(res, sizeof(res), "%s %s", *left ? "untouched" : "injected",
		 err ? strerrorname_np(err) : "ok");
	if (err && !item_exists(sw.item)) {
		fail("%s: mkdir failed", res);
		return recover();
	}
	status = attr("status");
	error = attr("error");
	ret = 0;
	if (!strcmp(status, "applied")) {
		sw.applied++;
		if (!state_is(&sw.on, why, sizeof(why), &unbound)) {
			fail("%s, applied, but %s", res, why);
			ret = recover();
		}
		sw.unbound += unbound;
		if (unbound && sw.unbound <= SHOWN)
			printf("unbound k=%lu: applied, a device has no driver\n",
			       sw.k);
	} else if (*left) {
		fail("%s: no fault, but status %s: %s", res, status, error);
		ret = recover();
	} else if (strcmp(status, "unapplied")) {
		fail("%s: status '%s'", res, status);
		ret = recover();
	} else if (!*error) {
		fail("%s: unapplied without a message in error", res);
	} else if (!state_is(&sw.off, why, sizeof(why), NULL)) {
		fail("%s, unapplied (%s), but %s", res, error, why);
		ret = recover();
	}
	if (strstr(error, "keeps its unapplied"))
		sw.kept++;
	free(status);
	free(error);
	if (!ret && item_exists(sw.item))
		ret = clean_rmdir(res);
	return ret < 0 ? -1 : !!*left;
}

/* One removal with fault sw.k; as apply_one() */
static int rmdir_one(unsigned long *left)
{
	char why[1024], res[64], *status;
	unsigned long l0;
	int err, ret = 0;

	err = do_apply(sw.item, &sw.blob, 0, &l0);
	status = attr("status");
	if (err || strcmp(status, "applied")) {
		fail("the clean apply failed: %s", err ? strerror(err) : status);
		free(status);
		return recover() ? -1 : 0;
	}
	free(status);
	mark("rmdir");
	sw.armed = 1;
	err = do_rmdir(sw.item, sw.k, left);
	sw.armed = 0;
	snprintf(res, sizeof(res), "%s %s", *left ? "untouched" : "injected",
		 err ? strerrorname_np(err) : "ok");
	if (!err) {
		if (item_exists(sw.item)) {
			fail("%s, but the item is still there", res);
			ret = recover();
		} else if (!state_is(&sw.off, why, sizeof(why), NULL)) {
			fail("%s, gone, but %s", res, why);
			ret = recover();
		}
		return ret < 0 ? -1 : !!*left;
	}
	status = attr("status");
	if (*left)
		fail("%s: no fault, but the rmdir failed", res);
	else if (strcmp(status, "applied"))
		fail("%s: refused, but status '%s'", res, status);
	else if (!state_is(&sw.on, why, sizeof(why), NULL))
		fail("%s: refused, but %s", res, why);
	free(status);
	ret = clean_rmdir(res);
	return ret < 0 ? -1 : !!*left;
}

/* The guard goes and comes back: nothing registered after it stayed */
static int guard_check(void)
{
	char path[512], *status;
	unsigned long left;
	int err;

	if (!strcmp(sw.guard, "-"))
		return 0;
	snprintf(path, sizeof(path), CFS "/%s", sw.guard);
	if (rmdir(path) || exists(sw.gpath)) {
		printf("fault k=%lu %s: the guard %s cannot be removed: a changeset stayed registered\n",
		       sw.k, sw.op, sw.guard);
		return -1;
	}
	err = do_apply(sw.guard, &sw.gblob, 0, &left);
	snprintf(path, sizeof(path), CFS "/%s/status", sw.guard);
	status = read_text(path);
	status[strcspn(status, "\n")] = 0;
	if (err || strcmp(status, "applied")) {
		printf("fault k=%lu %s: the guard cannot be applied again: %s\n",
		       sw.k, sw.op, status);
		free(status);
		return -1;
	}
	free(status);
	return 0;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* The references: all before, and after a clean apply */
static int references(unsigned long *count)
{
	char why[1024], *status;
	struct timespec t0;
	unsigned long left, na, nr;
	long ta, tr;
	int err;

	state_get(&sw.off, sw.report_path);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = do_apply(sw.item, &sw.blob, 1000000, &left);
	ta = ms_since(&t0);
	na = 1000000 - left;
	status = attr("status");
	if (err || strcmp(status, "applied")) {
		printf("%s: the clean apply failed: %s\n", sw.op, status);
		free(status);
		return -1;
	}
	free(status);
	state_get(&sw.on, sw.report_path);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = do_rmdir(sw.item, 1000000, &left);
	tr = ms_since(&t0);
	nr = 1000000 - left;
	if (err || !state_is(&sw.off, why, sizeof(why), NULL)) {
		printf("%s: the clean removal failed: %s%s\n", sw.op,
		       err ? strerror(err) : "", why);
		return -1;
	}
	*count = strcmp(sw.op, "rmdir") ? na : nr;
	printf("clean apply: %lu allocations in %ld ms, its removal %lu in %ld ms\n",
	       na, ta, nr, tr);
	kmsg_scan();
	lines_free(&sw.log);
	return 0;
}

/* What sweep and notify share: OP ITEM FILE GUARD GFILE GPATH */
static int setup(char **argv, unsigned long *count)
{
	char *probe;

	sw.op = argv[0];
	sw.item = argv[1];
	sw.blob = load(argv[2]);
	sw.guard = argv[3];
	if (strcmp(sw.guard, "-"))
		sw.gblob = load(argv[4]);
	sw.gpath = argv[5];
	snprintf(sw.report_path, sizeof(sw.report_path), CFS "/%s/devices",
		 sw.item);
	if (strcmp(sw.op, "apply") && strcmp(sw.op, "rmdir"))
		return -1;
	if (!getenv("FI_REPORT") || !getenv("FI_EXPECTED") ||
	    regcomp(&sw.report, getenv("FI_REPORT"), REG_EXTENDED | REG_NOSUB) ||
	    regcomp(&sw.expected, getenv("FI_EXPECTED"), REG_EXTENDED | REG_NOSUB)) {
		fprintf(stderr, "ovpop-tool: FI_REPORT and FI_EXPECTED must be EREs\n");
		return -1;
	}
	sw.nth = open("/proc/thread-self/fail-nth", O_RDWR);
	sw.kmsg = open("/dev/kmsg", O_RDWR | O_NONBLOCK);
	if (sw.nth < 0 || sw.kmsg < 0)
		fi_fatal("/proc/thread-self/fail-nth or /dev/kmsg");
	lseek(sw.kmsg, 0, SEEK_END);
	probe = read_text("/sys/bus/platform/drivers_autoprobe");
	sw.strict = probe[0] == '0';
	free(probe);
	return references(count);
}

/* One operation, faulted as set up; then the kernel's log */
static int one(unsigned long *left)
{
	int ret;

	lines_free(&sw.log);
	ret = strcmp(sw.op, "apply") ? rmdir_one(left) : apply_one(left);
	if (kmsg_scan()) {
		sw.reports++;
		fail("the kernel reported");
	}
	return ret;
}

/*
 * sweep OP ITEM FILE GUARD GFILE GPATH FIRST STEP: k = FIRST, then every
 * STEP-th, until an operation is left untouched
 */
static int sweep(char **argv)
{
	unsigned long step, count = 0, left = 0;
	struct timespec t0;
	int ret = 0;
	long n = 0;

	if (setup(argv, &count))
		return 2;
	step = strtoul(argv[7], NULL, 10);
	if (!step)
		return 2;
	if (!count) {
		printf("sweep %s: the clean operation made no allocation that the filters count: nothing to sweep\n",
		       sw.op);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (sw.k = strtoul(argv[6], NULL, 10); ; sw.k += step) {
		ret = one(&left);
		n++;
		if (ret < 0)
			break;
		if ((n % BATCH == 0 || left) && (ret = guard_check()) < 0)
			break;
		if (left)
			break;
		if (sw.k > 2 * count + 100) {
			fail("still injected: more than twice the %lu allocations of the clean operation",
			     count);
			break;
		}
	}
	printf("sweep %s: %ld operations in %ld s, k up to %lu of about %lu: %ld failed, %ld kernel reports, %ld applied, %ld with a driver unbound, %ld kept by the kernel\n",
	       sw.op, n, ms_since(&t0) / 1000, sw.k, count, sw.failed,
	       sw.reports, sw.applied, sw.unbound, sw.kept);
	if (ret < 0)
		return 2;
	return sw.failed || sw.reports;
}

/* notify OP ITEM FILE GUARD GFILE GPATH ACTION... */
static int notify(char **argv)
{
	unsigned long count, left;
	size_t i;
	int n = 0, ret;

	if (setup(argv, &count))
		return 2;
	sw.actions = argv + 6;
	ret = one(&left);
	for (i = 0; i < sw.log.n; i++)
		n += !!strstr(sw.log.v[i], "Injecting error");
	printf("notify %s: %d notification(s) failed; the item %s\n", sw.op, n,
	       item_exists(sw.item) ? "stayed" : "is gone");
	if (ret < 0 || guard_check() < 0)
		return 2;
	return sw.failed || sw.reports;
}

/**
 * faults_main() - the fault injection commands of ovpop-tool
 * @argc: main()'s
 * @argv: main()'s
 *
 * Return: the exit status, or -1 if argv[1] is none of them.
 */
int faults_main(int argc, char **argv)
{
	unsigned long left = 0, k;
	int err;

	if (argc == 10 && !strcmp(argv[1], "sweep"))
		return sweep(argv + 2);
	if (argc >= 9 && !strcmp(argv[1], "notify"))
		return notify(argv + 2);
	if (argc < 5 || strcmp(argv[1], "failnth"))
		return -1;
	sw.nth = open("/proc/thread-self/fail-nth", O_RDWR);
	if (sw.nth < 0)
		fi_fatal("/proc/thread-self/fail-nth");
	k = strtoul(argv[2], NULL, 10);
	if (argc == 6 && !strcmp(argv[3], "apply")) {
		sw.item = argv[4];
		sw.blob = load(argv[5]);
		err = do_apply(argv[4], &sw.blob, k, &left);
	} else if (argc == 5 && !strcmp(argv[3], "rmdir")) {
		err = do_rmdir(argv[4], k, &left);
	} else {
		return -1;
	}
	printf("%s %s %lu\n", left ? "untouched" : "injected",
	       err ? strerrorname_np(err) : "ok", k - left);
	return 0;
}
