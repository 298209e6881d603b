/* SPDX-License-Identifier: MIT */
/*
 * MIT, not GPL-2.0-only: this test program links OpenSSL 3 (Apache-2.0), which
 * GPL-2.0-only code may not be combined with. It is built for the tests only,
 * never installed, and links nothing of rwlab.
 */
/*
 * OpenSSL 3 driver for the LD_PRELOAD tests and `rwlab exec`: N threads each
 * fetch SHA-256 (EVP_MD_fetch, the provider store's read-locked lookup, and
 * EVP_get_digestbyname) and digest "abc" with it, ITERS times.
 *
 *   ossl_driver [THREADS [ITERS]]      (defaults 2, 20000)
 *
 * Prints "digests/s: R" and "digests: N"; exits 1 if any digest differs from
 * the FIPS 180-2 test vector SHA-256("abc"), 2 on bad arguments.
 */
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* FIPS 180-2, appendix B.1: SHA-256("abc"). */
static const unsigned char expect[32] = {
	0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
	0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
};

static long iters;

static void *worker(void *arg)
{
	long *bad = arg;

	for (long i = 0; i < iters; i++) {
		unsigned char out[EVP_MAX_MD_SIZE];
		unsigned int len = 0;
		EVP_MD *md = EVP_MD_fetch(NULL, "SHA256", NULL);
		const EVP_MD *byname = EVP_get_digestbyname("sha256");

		if (!md || !byname || !EVP_Digest("abc", 3, out, &len, (i & 1) ? md : byname, NULL) ||
		    len != sizeof(expect) || memcmp(out, expect, sizeof(expect)))
			(*bad)++;
		EVP_MD_free(md);
	}
	return NULL;
}

static long arg(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 1 || v > 100000000) {
		fprintf(stderr, "ossl_driver: %s '%s' is not a positive integer\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? (int)arg(argv[1], "THREADS") : 2;
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	long *bad = calloc((size_t)n, sizeof(*bad)), total = 0;
	struct timespec a, b;
	double s;

	iters = argc > 2 ? arg(argv[2], "ITERS") : 20000;
	if (!t || !bad)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, &bad[i])) {
			fprintf(stderr, "ossl_driver: pthread_create failed\n");
			return 2;
		}
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		total += bad[i];
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	printf("threads: %d\ndigests: %ld\ndigests/s: %.0f\n", n, n * iters, (double)(n * iters) / s);
	if (total) {
		printf("WRONG: %ld of %ld digests differ from SHA-256(\"abc\")\n", total, n * iters);
		return 1;
	}
	printf("ok\n");
	free(t);
	free(bad);
	return 0;
}
