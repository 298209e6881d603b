/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bravo mechanisms (locks/bravo.c, Dice & Kogan ATC'19):
 * - with the bias on, reads go through the visible-readers table, not the
 *   base (bravo_fast_read);
 * - a writer revokes the bias (bravo_revoke) and waits for a reader that
 *   holds the lock through the table (it is excluded although the base is
 *   free);
 * - after a revocation the bias stays off for inhibit_factor x the
 *   revocation time: slow reads in that window do not turn it back on, a slow
 *   read after it does;
 * - bad bases and table sizes are refused; bravo over ck-rwlock passes the
 *   torture checker (with trylocks and downgrade mixed in where offered).
 * Event counters are per thread: each thread snapshots its own.
 */
#include <errno.h>

#include "config.h"
#include "actor.h"
#include "torture.h"

#define BLOCK_MS 150
#define WAKE_MS 5000

static void need_events(void)
{
	if (!LAB_EVENT_COUNTS)
		cr_skip_test("built with -Devent_counts=false");
}

/* One read through the calling thread; returns how many of them went through the table. */
static uint64_t read_once(const struct lab_lock *l, uint64_t *rebias)
{
	struct lab_events before;

	lab_events_snapshot(&before);
	lab_down_read(l);
	lab_up_read(l);
	*rebias = ev_delta(&before, LAB_EV_bravo_rebias);
	return ev_delta(&before, LAB_EV_bravo_fast_read);
}

Test(bravo, fast_reads_revocation_and_inhibit, .timeout = 60)
{
	struct lab_lock l;
	struct lab_events before;
	struct actor w;
	uint64_t rebias, t_call, revoke_ns, window_end, reads_in_window = 0;

	need_events();
	lab_test_lock(&l, "bravo");

	/* A fresh lock has no bias: the first read is slow and turns it on. */
	cr_expect_eq(read_once(&l, &rebias), 0, "first read of a fresh lock went fast");
	cr_expect_eq(rebias, 1, "the first slow read did not turn the bias on");
	cr_expect_eq(read_once(&l, &rebias), 1, "read with the bias on did not go through the table");

	/* Hold a read through the table; a writer must wait for it although the base is free. */
	lab_events_snapshot(&before);
	lab_down_read(&l);
	cr_assert_eq(ev_delta(&before, LAB_EV_bravo_fast_read), 1, "held read is not a fast read");
	t_call = lab_clock_ns();
	actor_start(&w, &l, true);
	cr_expect_not(actor_wait(&w, BLOCK_MS), "a writer got in past a fast-path reader");
	lab_up_read(&l);
	cr_assert(actor_wait(&w, WAKE_MS), "the writer never got in after the fast reader left");
	actor_finish(&w);
	cr_expect_eq(EV(&w.ev, bravo_revoke), 1, "the writer did not revoke the bias");
	cr_expect_geq(EV(&w.ev, bravo_revoke_wait), 1, "the writer did not wait on the reader's slot");
	revoke_ns = EV(&w.ev, bravo_revoke_ns);
	cr_expect_geq(revoke_ns, 1000000, "revocation took %lu ns, less than the reader's hold",
		     (unsigned long)revoke_ns);

	/*
	 * InhibitUntil = end of revocation + 9 x revoke_ns, and the revocation
	 * ended after t_call: until t_call + 9 x revoke_ns, reads stay slow and
	 * must not turn the bias back on.
	 */
	window_end = t_call + 9 * revoke_ns;
	while (lab_clock_ns() + 2000000 < window_end) {
		cr_expect_eq(read_once(&l, &rebias), 0, "a read went fast during the inhibit window");
		cr_expect_eq(rebias, 0, "a slow read turned the bias on during the inhibit window");
		reads_in_window++;
		lab_sleep_ns(1000000);
	}
	cr_expect_gt(reads_in_window, 0, "no read fell inside the inhibit window (machine stalled?)");

	/* The revocation ended before the writer's down_write returned: past this, bias may return. */
	lab_sleep_ns(10 * revoke_ns + 10000000);
	cr_expect_eq(read_once(&l, &rebias), 0, "read right after the window went fast");
	cr_expect_eq(rebias, 1, "a slow read after the inhibit window did not turn the bias on");
	cr_expect_eq(read_once(&l, &rebias), 1, "bias is back but the read was slow");
	printf("bravo: revocation %lu ns, %lu slow reads in the inhibit window\n", (unsigned long)revoke_ns,
	       (unsigned long)reads_in_window);
	lab_lock_destroy(&l);
}

Test(bravo, inhibit_factor_zero_rebias_at_once, .timeout = 60)
{
	struct lab_lock l;
	uint64_t rebias;

	need_events();
	lab_test_lock(&l, "bravo:inhibit_factor=0");
	read_once(&l, &rebias);
	cr_expect_eq(rebias, 1);
	lab_down_write(&l);
	lab_up_write(&l);
	cr_expect_eq(read_once(&l, &rebias), 0, "read right after a revocation went fast");
	cr_expect_eq(rebias, 1, "inhibit_factor=0: the bias did not come back at once");
	cr_expect_eq(read_once(&l, &rebias), 1);
	lab_lock_destroy(&l);
}

Test(bravo, write_trylock_fails_on_fast_reader, .timeout = 60)
{
	struct lab_lock l;
	struct lab_events before;
	struct actor r, w;
	uint64_t rebias;

	need_events();
	lab_test_lock(&l, "bravo");
	read_once(&l, &rebias);		/* bias on */
	actor_start(&r, &l, false);
	cr_assert(actor_wait(&r, WAKE_MS));
	lab_events_snapshot(&before);
	cr_expect_eq(lab_down_write_trylock(&l), 0, "write_trylock succeeded over a fast reader");
	cr_expect_eq(ev_delta(&before, LAB_EV_bravo_revoke), 0, "a failed trylock counted a revocation");
	/* The failed trylock must leave the bias on: the next writer still revokes and waits. */
	actor_start(&w, &l, true);
	cr_expect_not(actor_wait(&w, BLOCK_MS), "a writer after a failed write_trylock got in past a fast reader");
	actor_finish(&r);
	cr_expect(actor_wait(&w, WAKE_MS), "the writer never got in after the fast reader left");
	actor_finish(&w);
	cr_expect_eq(EV(&r.ev, bravo_fast_read), 1, "the helper's read was not a fast read");
	cr_expect_eq(EV(&w.ev, bravo_revoke), 1, "the writer did not revoke");
	cr_expect_eq(lab_down_write_trylock(&l), 1, "write_trylock failed on a free lock");
	lab_up_write(&l);
	lab_lock_destroy(&l);
}

/*
 * Bad bases and table sizes are refused when the spec is parsed, with one
 * line naming the valid bases (they used to pass parsing and fail at init,
 * after the run had started, with two lines and "error -22"); init() still
 * refuses them in a conf built without the parser.
 */
Test(bravo, refuses_bad_bases)
{
	static const struct {
		const char *spec, *why;
	} bad[] = {
		{ "bravo:base=bravo", "base 'bravo' is the variant itself" },
		{ "bravo:base=null", "base 'null' does not exclude" },
		{ "bravo:base=busted", "base 'busted' is a hidden negative control" },
		{ "bravo:base=ck-pflock", "base 'ck-pflock' has no down_read_trylock" },
		{ "bravo:base=percpu-rwsem", "base 'percpu-rwsem' has no down_write_trylock" },
		{ "bravo:base=nosuch", "unknown lock variant 'nosuch' for base" },
		{ "bravo:table_slots=100", "bad value '100' for table_slots (a power of two in 64..65536)" },
	};
	static const char *const refused[] = { "bravo", "null", "busted", "ck-pflock", "ck-tflock",
					       "percpu-rwsem" };
	struct lab_rwsem_conf conf;
	char err[512];

	for (size_t i = 0; i < LAB_ARRAY_SIZE(bad); i++) {
		const char *valid;

		cr_assert_eq(lab_rwsem_parse(bad[i].spec, &conf, err, sizeof(err)), -1, "%s was accepted",
			     bad[i].spec);
		cr_expect(strstr(err, bad[i].why), "%s: '%s'", bad[i].spec, err);
		cr_expect(!strchr(err, '\n'), "%s: not one line: '%s'", bad[i].spec, err);
		if (strstr(bad[i].spec, "base=")) {
			valid = strstr(err, "(valid: ");
			cr_assert(valid, "%s: no valid list in '%s'", bad[i].spec, err);
			cr_expect(strstr(valid, "rwsem-xadd") && strstr(valid, "ck-rwlock"), "%s", err);
			for (size_t j = 0; j < LAB_ARRAY_SIZE(refused); j++) {
				char word[64];

				snprintf(word, sizeof(word), " %s,", refused[j]);
				cr_expect(!strstr(valid, word), "%s listed as valid: '%s'", refused[j], err);
				snprintf(word, sizeof(word), " %s)", refused[j]);
				cr_expect(!strstr(valid, word), "%s listed as valid: '%s'", refused[j], err);
			}
		}
	}
	/* Past the parser (a hand-built conf), init() is the last line of defence. */
	for (size_t j = 0; j < LAB_ARRAY_SIZE(refused); j++) {
		struct lab_lock l;

		cr_assert_eq(lab_rwsem_parse("bravo", &conf, err, sizeof(err)), 0, "%s", err);
		conf.knob[0] = lab_rwsem_index(refused[j]);
		cr_expect_eq(lab_lock_init(&l, &conf), -EINVAL, "base %s was accepted by init", refused[j]);
	}
}

/* Every base the parser accepts also initialises (the two checks agree). */
Test(bravo, accepted_bases_init)
{
	int accepted = 0;

	for (int i = 0; lab_rwsem_variants[i]; i++) {
		struct lab_rwsem_conf conf;
		struct lab_lock l;
		char spec[128], err[512];

		snprintf(spec, sizeof(spec), "bravo:base=%s", lab_rwsem_variants[i]->name);
		if (lab_rwsem_parse(spec, &conf, err, sizeof(err)))
			continue;
		accepted++;
		cr_expect_eq(lab_lock_init(&l, &conf), 0, "%s parsed but did not init", spec);
		lab_lock_destroy(&l);
	}
	cr_expect_geq(accepted, 6, "only %d bases accepted", accepted);
}

Test(bravo, torture_over_ck_rwlock, .timeout = 120)
{
	struct lab_rwsem_conf conf;
	struct lab_torture_opts o = {
		.lock = &conf,
		.readers = 2,
		.writers = 2,
		.duration_ns = (uint64_t)(400e6 * lab_test_scale()),
		.hold_loops = 20,
		.think_loops = 20,
		.trylock = true,
		.downgrade = true,
	};
	struct lab_torture_result r;
	char err[512];

	cr_assert_eq(lab_rwsem_parse("bravo:base=ck-rwlock", &conf, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(lab_torture_run(&o, &r), 0);
	printf("bravo:base=ck-rwlock Writes: Total: %lu Fail: %lu  Reads: Total: %lu Fail: %lu\n",
	       (unsigned long)r.wr_total, (unsigned long)r.wr_fail, (unsigned long)r.rd_total,
	       (unsigned long)r.rd_fail);
	cr_expect_eq(r.wr_fail, 0, "%lu write-side exclusion failures", (unsigned long)r.wr_fail);
	cr_expect_eq(r.rd_fail, 0, "%lu read-side exclusion failures", (unsigned long)r.rd_fail);
	cr_expect_gt(r.wr_total, 0, "no writer ever got the lock");
	cr_expect_gt(r.rd_total, 0, "no reader ever got the lock");
}

/*
 * Regression: under ThreadSanitizer `rwlab torture -l bravo:base=ck-rwlock`
 * ran and drew false race reports (exit 66): the TSan skip looked at bravo's
 * own caps, not at its base's ck_pr atomics. The exemption now follows a
 * variant's lock knobs.
 */
Test(bravo, foreign_atomics_follow_the_base)
{
	static const struct {
		const char *spec;
		bool foreign;
	} c[] = {
		{ "ck-rwlock", true }, { "bravo:base=ck-rwlock", true }, { "bravo:base=ck-brlock", true },
		{ "bravo", false }, { "bravo:base=pthread-wp", false }, { "rwsem", false },
	};

	for (size_t i = 0; i < LAB_ARRAY_SIZE(c); i++) {
		struct lab_rwsem_conf conf;
		char err[512];

		cr_assert_eq(lab_rwsem_parse(c[i].spec, &conf, err, sizeof(err)), 0, "%s", err);
		cr_expect_eq(lab_rwsem_conf_foreign_atomics(&conf), c[i].foreign, "%s", c[i].spec);
	}
}
