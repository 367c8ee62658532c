/* pread_cost.c — what one page-cached 4 KiB pread(2) costs in the kernel,
 * under the conditions that differ between iogauge and fio (built and run by
 * psync_kernel.sh).
 *
 *   pread_cost FILE MODE    MODE is any of these letters, or "-" for none:
 *     t  another thread exists (the descriptor table is shared)
 *     u  then unshare(CLONE_FILES): this thread's own copy of the table
 *     r  posix_fadvise(POSIX_FADV_RANDOM) on the file, as fio does
 *     n  open with O_NOATIME
 *   pread_cost clock        the cost of clock_gettime(CLOCK_MONOTONIC) and rdtsc
 *
 * It prints the fastest of 300 batches of 2000 random 4 KiB reads, per read:
 * the fastest batch is the one that nothing else on a busy machine
 * interrupted, so it moves far less from run to run than a mean. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

static unsigned long long now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

static void *idle(void *a)
{
	(void)a;
	for (;;)
		pause();
	return 0;
}

static int clock_cost(void)
{
	unsigned long long best = ~0ull, best_tsc = ~0ull, sum = 0;
	for (int r = 0; r < 200; r++) {
		unsigned long long t0 = now();
		for (int i = 0; i < 100000; i++)
			sum += now();
		unsigned long long d = now() - t0;
		if (d < best)
			best = d;
		t0 = now();
		for (int i = 0; i < 100000; i++)
			sum += __rdtsc();
		d = now() - t0;
		if (d < best_tsc)
			best_tsc = d;
	}
	printf("clock_gettime %.1f ns  rdtsc %.1f ns  (%llu)\n", best / 1e5, best_tsc / 1e5, sum & 1);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "clock"))
		return clock_cost();
	if (argc != 3) {
		fprintf(stderr, "usage: pread_cost FILE MODE | pread_cost clock\n");
		return 2;
	}
	const char *m = argv[2];
	pthread_t th;
	if (strchr(m, 't') && pthread_create(&th, 0, idle, 0))
		return 2;
	if (strchr(m, 'u') && unshare(CLONE_FILES)) {
		perror("unshare");
		return 2;
	}
	int fd = open(argv[1], O_RDONLY | (strchr(m, 'n') ? O_NOATIME : 0));
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	unsigned long long blocks = lseek(fd, 0, SEEK_END) / 4096;
	if (blocks == 0) {
		fprintf(stderr, "%s: smaller than 4 KiB\n", argv[1]);
		return 2;
	}
	if (strchr(m, 'r'))
		posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	char *buf = aligned_alloc(4096, 4096);
	unsigned long long x = 88172645463325252ull, best = ~0ull;
	for (int rep = 0; rep < 300; rep++) {
		unsigned long long t0 = now();
		for (int i = 0; i < 2000; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			if (pread(fd, buf, 4096, (x % blocks) * 4096) != 4096) {
				perror("pread");
				return 2;
			}
		}
		unsigned long long d = now() - t0;
		if (d < best)
			best = d;
	}
	printf("%.1f\n", best / 2000.0);
	return 0;
}
