/* SPDX-License-Identifier: GPL-2.0-only */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "matrix.h"
#include "text.h"
#include "threads.h"

#ifndef LAB_MATRIX_DIR
#define LAB_MATRIX_DIR "tools/matrices"
#endif

static const char *const single_keys[] = {
	"description", "locks", "workloads", "threads", "iterations", "duration", "warmup", "pin", "seed",
	"options", "report", "baseline", "by", "metrics", "significance", "reference", "machine", "flat",
	"published_cpus", "sim_machine", "min_effect", NULL
};
static const char *const multi_keys[] = { "map.column", "map.metric", "map.threads", "map.flat", "map.not_comparable",
					  "deviation", NULL };

/* Comma-separated lists: "a, b ,c" is read as "a,b,c". */
static const char *const list_keys[] = { "locks", "workloads", "threads", "metrics", "by", NULL };

static void squeeze_commas(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (isspace((unsigned char)*r)) {
			char *n = r;

			while (isspace((unsigned char)*n))
				n++;
			if (*n == ',' || (w > s && w[-1] == ',')) {
				r = n - 1;
				continue;
			}
		}
		*w++ = *r;
	}
	*w = 0;
}

static bool key_in(const char *const *list, const char *k)
{
	for (int i = 0; list[i]; i++)
		if (!strcmp(list[i], k))
			return true;
	return false;
}

/*
 * Keys only tools/reproduce --sim reads (matrix.h): sim_KEY for a run,
 * report or map key KEY (replaced under --sim), and sim_run. Sets *@multi
 * when the key may repeat.
 */
static bool sim_key(const char *k, bool *multi)
{
	*multi = true;
	if (!strcmp(k, "sim_run"))
		return true;
	if (strncmp(k, "sim_", 4) || !strncmp(k + 4, "sim_", 4) || !strcmp(k + 4, "description"))
		return false;
	if (key_in(multi_keys, k + 4))
		return true;
	*multi = false;
	return key_in(single_keys, k + 4);
}

/*
 * Where named matrices are looked for, in order: $RWLAB_MATRIX_DIR, the
 * installed share/rwlab/matrices beside the binary's prefix (found from
 * /proc/self/exe, so that an installed tree works wherever it is moved),
 * and the source tree the binary was built from.
 */
static int matrix_dirs(char dirs[][4096])
{
	const char *env = getenv("RWLAB_MATRIX_DIR");
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int k = 0;

	if (env && *env)
		snprintf(dirs[k++], 4096, "%s", env);
	if (n > 0) {
		exe[n] = 0;
		*strrchr(exe, '/') = 0;
		snprintf(dirs[k], 4096, "%.4000s/../share/rwlab/matrices", exe);
		if (!access(dirs[k], R_OK))
			k++;
	}
	snprintf(dirs[k++], 4096, "%s", LAB_MATRIX_DIR);
	return k;
}

/* "a, b, c": the matrix names in @dir. */
static void matrix_names(const char *dir, char *buf, size_t len)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < n; i++) {
		size_t l = strlen(ents[i]->d_name);

		if (l > 7 && !strcmp(ents[i]->d_name + l - 7, ".matrix") && off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%.*s", off ? ", " : "", (int)(l - 7),
						ents[i]->d_name);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

void lab_matrix_names(char *buf, size_t len)
{
	char dirs[3][4096];
	int nd = matrix_dirs(dirs);

	buf[0] = 0;
	for (int i = 0; i < nd && !buf[0]; i++) {	/* the first directory that has some */
		matrix_names(dirs[i], buf, len);
		for (char *p = buf; (p = strstr(p, ", ")); )	/* "a, b" -> "a b" */
			memmove(p, p + 1, strlen(p + 1) + 1);
	}
}

int lab_matrix_resolve(const char *name, char *path, size_t len, char *err, size_t errlen)
{
	char dirs[3][4096], names[1024];
	int nd;

	if (strchr(name, '/') || (strlen(name) > 7 && !strcmp(name + strlen(name) - 7, ".matrix"))) {
		snprintf(path, len, "%s", name);
		if (access(path, R_OK)) {
			snprintf(err, errlen, "cannot read matrix '%s': %s", name, strerror(errno));
			return -1;
		}
		return 0;
	}
	nd = matrix_dirs(dirs);
	for (int i = 0; i < nd; i++) {
		snprintf(path, len, "%.2000s/%.1000s.matrix", dirs[i], name);
		if (!access(path, R_OK))
			return 0;
	}
	matrix_names(dirs[nd > 1 && access(dirs[0], R_OK) ? 1 : 0], names, sizeof(names));
	snprintf(err, errlen, "no matrix '%s' (valid: %s; or a path to a .matrix file)", name,
		 names[0] ? names : "none found");
	return -1;
}

static int fail(char *err, size_t errlen, const char *path, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int fail(char *err, size_t errlen, const char *path, int line, const char *fmt, ...)
{
	va_list ap;
	int off = snprintf(err, errlen, "%s:%d: ", path, line);

	va_start(ap, fmt);
	if (off >= 0 && (size_t)off < errlen)
		vsnprintf(err + off, errlen - (size_t)off, fmt, ap);
	va_end(ap);
	return -1;
}

/* Split "A -> B" at the arrow into trimmed parts. Returns 0 or -1. */
static int split_arrow(char *s, char **a, char **b)
{
	char *arrow = strstr(s, "->");

	if (!arrow || strstr(arrow + 2, "->"))
		return -1;
	*arrow = 0;
	*a = lab_trim(s);
	*b = lab_trim(arrow + 2);
	return **a && **b ? 0 : -1;
}

/* Check a map.* value's syntax. */
static int check_map(const char *key, const char *value, const char *path, int line, char *err, size_t errlen)
{
	char buf[1024], *a, *b;

	if (strlen(value) >= sizeof(buf))
		return fail(err, errlen, path, line, "%s: value too long", key);
	if (!strcmp(key, "map.threads")) {
		char *save = NULL;

		snprintf(buf, sizeof(buf), "%s", value);
		for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (split_arrow(tok, &a, &b))
				return fail(err, errlen, path, line,
					    "map.threads: '%s' is not CLIENTS -> THREADS (e.g. 40 -> cpus)", lab_trim(tok));
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", value);
	if (!strcmp(key, "deviation"))
		return 0;	/* free text: how the matrix departs from the published set-up */
	if (!strcmp(key, "map.flat") || !strcmp(key, "map.not_comparable")) {
		char *bar;

		if (split_arrow(buf, &a, &b) || !(bar = strchr(a, '|')) || !(bar = strchr(bar + 1, '|')) ||
		    strchr(bar + 1, '|') || !*lab_trim(bar + 1))
			return fail(err, errlen, path, line, "%s: expected 'BENCHMARK | METRIC | CLIENTS|* -> %s', got '%s'",
				    key, strcmp(key, "map.flat") ? "why rwlab's figure is not comparable" :
								   "the thread's words (source)", value);
		return 0;
	}
	if (split_arrow(buf, &a, &b))
		return fail(err, errlen, path, line, "%s: expected 'PUBLISHED -> RWLAB', got '%s'", key, value);
	if (!strcmp(key, "map.metric")) {
		char *bar = strchr(a, '|'), *bar2 = strchr(b, '|'), *bar3;

		if (!bar || strchr(bar + 1, '|') || !*lab_trim(bar + 1) || !bar2)
			return fail(err, errlen, path, line,
				    "map.metric: expected 'BENCHMARK | METRIC -> WORKLOAD | METRIC [| sum]', got '%s'",
				    value);
		bar3 = strchr(bar2 + 1, '|');
		if (bar3 && strcmp(lab_trim(bar3 + 1), "sum") && strcmp(lab_trim(bar3 + 1), "mean"))
			return fail(err, errlen, path, line, "map.metric: aggregate '%s' is not sum or mean",
				    lab_trim(bar3 + 1));
	}
	return 0;
}

/* Longest line accepted, newline excluded (a matrix is a short hand-written file). */
#define MATRIX_LINE_MAX 4095

int lab_matrix_load(const char *name, struct lab_matrix *m, char *err, size_t errlen)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	struct stat st;
	const char *base;
	int lineno = 0;
	bool is_sim, sim_multi;

	memset(m, 0, sizeof(*m));
	if (lab_matrix_resolve(name, m->path, sizeof(m->path), err, errlen))
		return -1;
	base = strrchr(m->path, '/') ? strrchr(m->path, '/') + 1 : m->path;
	snprintf(m->name, sizeof(m->name), "%.*s", (int)(strlen(base) > 7 && strstr(base, ".matrix") ?
							  strstr(base, ".matrix") - base : (long)strlen(base)), base);
	f = fopen(m->path, "r");
	if (!f) {
		snprintf(err, errlen, "cannot read matrix '%s': %s", m->path, strerror(errno));
		return -1;
	}
	if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "cannot read matrix '%s': %s", m->path, strerror(EISDIR));
		fclose(f);
		return -1;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		char *s, *eq, *key, *value;

		lineno++;
		if (len - (line[len - 1] == '\n') > MATRIX_LINE_MAX) {
			fail(err, errlen, m->path, lineno, "line longer than %d characters", MATRIX_LINE_MAX);
			goto bad;
		}
		/*
		 * A NUL or other control byte: not a text file (and not for an error
		 * message). A CR only ends a line (CRLF, or the last line's end).
		 */
		for (ssize_t i = 0; i < len; i++) {
			unsigned char c = (unsigned char)line[i];
			bool eol_cr = c == '\r' && (i + 1 == len || (i + 2 == len && line[i + 1] == '\n'));

			if ((c < 0x20 && c != '\t' && c != '\n' && !eol_cr) || c == 0x7f) {
				fail(err, errlen, m->path, lineno,
				     "control byte 0x%02x at column %zd: not a text matrix file", c, i + 1);
				goto bad;
			}
		}
		s = line;
		if (lineno == 1 && !strncmp(s, "\xef\xbb\xbf", 3))
			s += 3;	/* a UTF-8 byte order mark */
		if (strchr(s, '#'))
			*strchr(s, '#') = 0;
		s = lab_trim(s);
		if (!*s)
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			fail(err, errlen, m->path, lineno, "expected 'key = value', got '%s'", s);
			goto bad;
		}
		*eq = 0;
		key = lab_trim(s);
		value = lab_trim(eq + 1);
		is_sim = sim_key(key, &sim_multi);
		if (!key_in(single_keys, key) && !key_in(multi_keys, key) && !is_sim) {
			size_t off;

			fail(err, errlen, m->path, lineno, "unknown key '%s' (valid:", key);
			off = strlen(err);
			for (int i = 0; single_keys[i] && off < errlen; i++)
				off += (size_t)snprintf(err + off, errlen - off, " %s", single_keys[i]);
			for (int i = 0; multi_keys[i] && off < errlen; i++)
				off += (size_t)snprintf(err + off, errlen - off, " %s", multi_keys[i]);
			if (off < errlen)
				snprintf(err + off, errlen - off, " sim_KEY sim_run)");
			goto bad;
		}
		if (!*value) {
			fail(err, errlen, m->path, lineno, "empty value for '%s'", key);
			goto bad;
		}
		if (key_in(single_keys, key) || (is_sim && !sim_multi)) {
			int prev;

			if (lab_matrix_get(m, key, &prev)) {
				fail(err, errlen, m->path, lineno, "'%s' given twice (first on line %d)", key, prev);
				goto bad;
			}
		} else if (strcmp(key, "sim_run") && check_map(is_sim ? key + 4 : key, value, m->path, lineno, err, errlen)) {
			goto bad;
		}
		if (!strcmp(key, "report")) {
			enum lab_report_format fmt;

			if (lab_report_format_parse(value, &fmt)) {
				fail(err, errlen, m->path, lineno, "unknown report format '%s' (valid: %s)", value,
				     LAB_REPORT_FORMATS);
				goto bad;
			}
		}
		if (!strcmp(key, "significance")) {
			enum lab_report_sig sig;

			if (lab_report_sig_parse(value, &sig)) {
				fail(err, errlen, m->path, lineno, "unknown significance rule '%s' (valid: %s)", value,
				     LAB_REPORT_SIGS);
				goto bad;
			}
		}
		if (!strcmp(key, "flat") || !strcmp(key, "min_effect")) {
			char *end;
			double v = strtod(value, &end);

			if (*end || !(v >= 0) || v > 100) {
				fail(err, errlen, m->path, lineno, "%s: '%s' is not a percentage in 0..100", key, value);
				goto bad;
			}
		}
		if (m->n == LAB_MATRIX_KEYS) {
			fail(err, errlen, m->path, lineno, "more than %d keys", LAB_MATRIX_KEYS);
			goto bad;
		}
		snprintf(m->kv[m->n].key, sizeof(m->kv[m->n].key), "%s", key);
		if (key_in(list_keys, key))
			squeeze_commas(value);
		m->kv[m->n].value = strdup(value);
		if (!m->kv[m->n].value)
			abort();
		m->kv[m->n++].line = lineno;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "cannot read matrix '%s': %s", m->path, strerror(errno));
		goto bad;
	}
	free(line);
	fclose(f);
	if (!m->n) {
		snprintf(err, errlen, "%s: empty matrix (expected 'key = value' lines)", m->path);
		lab_matrix_free(m);
		return -1;
	}
	return 0;
bad:
	free(line);
	fclose(f);
	lab_matrix_free(m);
	return -1;
}

void lab_matrix_free(struct lab_matrix *m)
{
	for (int i = 0; i < m->n; i++)
		free(m->kv[i].value);
	for (int i = 0; i < m->nowned; i++)
		free(m->owned[i]);
	m->n = m->nowned = 0;
}

const char *lab_matrix_get(const struct lab_matrix *m, const char *key, int *line)
{
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->kv[i].key, key)) {
			if (line)
				*line = m->kv[i].line;
			return m->kv[i].value;
		}
	return NULL;
}

static char *own(struct lab_matrix *m, const char *s)
{
	char *d = strdup(s);

	if (!d || m->nowned == (int)(sizeof(m->owned) / sizeof(m->owned[0])))
		abort();
	m->owned[m->nowned++] = d;
	return d;
}

int lab_matrix_run_args(struct lab_matrix *m, int ncpus, char **argv, int *lines, int cap, char *err,
			size_t errlen)
{
	static const char *const opt[][2] = {
		{ "locks", "--lock" },	 { "workloads", "--workload" }, { "threads", "--threads" },
		{ "iterations", "--iterations" }, { "duration", "--duration" }, { "warmup", "--warmup" },
		{ "pin", "--pin" },	 { "seed", "--seed" },
	};
	int n = 0;

	for (size_t k = 0; k < sizeof(opt) / sizeof(opt[0]); k++) {
		int line;
		const char *v = lab_matrix_get(m, opt[k][0], &line);
		char buf[1024];

		if (!v)
			continue;
		if (!strcmp(opt[k][0], "threads")) {
			char why[256];

			if (lab_eval_threads(v, ncpus, buf, sizeof(buf), why, sizeof(why)))
				return fail(err, errlen, m->path, line, "%s", why);
			v = buf;
		}
		if (n + 2 > cap)
			return fail(err, errlen, m->path, line, "too many options");
		lines[n] = line;
		argv[n++] = (char *)opt[k][1];
		lines[n] = line;
		argv[n++] = own(m, v);
	}
	{
		int line;
		const char *v = lab_matrix_get(m, "options", &line);
		char *copy, *save = NULL;

		if (v) {
			copy = own(m, v);
			for (char *tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
				if (n == cap)
					return fail(err, errlen, m->path, line, "too many options");
				lines[n] = line;
				argv[n++] = tok;
			}
		}
	}
	return n;
}

/*
 * "BENCH | METRIC | CLIENTS -> words" into the four fields of a map.flat or
 * map.not_comparable entry (each as large as lab_refmap's). Returns 0 or -1.
 */
static int row_words(char *buf, char bench[96], char metric[128], char clients[32], char words[256])
{
	char *a, *b, *bar, *bar2;

	if (split_arrow(buf, &a, &b) || !(bar = strchr(a, '|')) || !(bar2 = strchr(bar + 1, '|')))
		return -1;
	*bar = *bar2 = 0;
	snprintf(bench, 96, "%s", lab_trim(a));
	snprintf(metric, 128, "%s", lab_trim(bar + 1));
	snprintf(clients, 32, "%s", lab_trim(bar2 + 1));
	snprintf(words, 256, "%s", lab_trim(b));
	return 0;
}

int lab_matrix_refmap(const struct lab_matrix *m, struct lab_refmap *map, char *err, size_t errlen)
{
	int line = 0;
	const char *machine = lab_matrix_get(m, "machine", NULL), *cpus = lab_matrix_get(m, "published_cpus", &line);

	memset(map, 0, sizeof(*map));
	snprintf(map->machine, sizeof(map->machine), "%s", machine ? machine : "");
	if (cpus && (map->cpus = atoi(cpus)) <= 0)
		return fail(err, errlen, m->path, line, "published_cpus '%s' is not a positive number", cpus);
	for (int i = 0; i < m->n; i++) {
		const char *key = m->kv[i].key;
		char buf[1024], *a, *b, *save = NULL;

		snprintf(buf, sizeof(buf), "%s", m->kv[i].value);
		if (!strcmp(key, "map.column")) {
			if (map->ncol == LAB_REFMAP_COLS)
				return fail(err, errlen, m->path, m->kv[i].line, "more than %d map.column", LAB_REFMAP_COLS);
			if (split_arrow(buf, &a, &b))
				return fail(err, errlen, m->path, m->kv[i].line, "malformed %s", key);
			snprintf(map->col[map->ncol].ref, sizeof(map->col[0].ref), "%s", a);
			snprintf(map->col[map->ncol++].ours, sizeof(map->col[0].ours), "%s", b);
		} else if (!strcmp(key, "map.metric")) {
			char *bar, *bar2;

			if (map->nmet == LAB_REFMAP_METRICS)
				return fail(err, errlen, m->path, m->kv[i].line, "more than %d map.metric",
					    LAB_REFMAP_METRICS);
			if (split_arrow(buf, &a, &b))
				return fail(err, errlen, m->path, m->kv[i].line, "malformed %s", key);
			bar = strchr(a, '|');
			if (!bar || !strchr(b, '|'))
				return fail(err, errlen, m->path, m->kv[i].line, "malformed %s", key);
			*bar = 0;
			snprintf(map->met[map->nmet].bench, sizeof(map->met[0].bench), "%s", lab_trim(a));
			snprintf(map->met[map->nmet].metric, sizeof(map->met[0].metric), "%s", lab_trim(bar + 1));
			bar = strchr(b, '|');
			*bar = 0;
			bar2 = strchr(bar + 1, '|');
			if (bar2) {
				*bar2 = 0;
				map->met[map->nmet].sum = !strcmp(lab_trim(bar2 + 1), "sum");
			}
			snprintf(map->met[map->nmet].workload, sizeof(map->met[0].workload), "%s", lab_trim(b));
			snprintf(map->met[map->nmet++].ours, sizeof(map->met[0].ours), "%s", lab_trim(bar + 1));
		} else if (!strcmp(key, "map.flat")) {
			if (map->nflat == LAB_REFMAP_METRICS)
				return fail(err, errlen, m->path, m->kv[i].line, "more than %d map.flat", LAB_REFMAP_METRICS);
			if (row_words(buf, map->flat[map->nflat].bench, map->flat[map->nflat].metric,
				      map->flat[map->nflat].clients, map->flat[map->nflat].words))
				return fail(err, errlen, m->path, m->kv[i].line, "malformed %s", key);
			map->nflat++;
		} else if (!strcmp(key, "map.not_comparable")) {
			if (map->nnc == LAB_REFMAP_METRICS)
				return fail(err, errlen, m->path, m->kv[i].line, "more than %d map.not_comparable",
					    LAB_REFMAP_METRICS);
			if (row_words(buf, map->nc[map->nnc].bench, map->nc[map->nnc].metric, map->nc[map->nnc].clients,
				      map->nc[map->nnc].words))
				return fail(err, errlen, m->path, m->kv[i].line, "malformed %s", key);
			map->nnc++;
		} else if (!strcmp(key, "map.threads")) {
			for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				if (map->nthr == LAB_REFMAP_THREADS)
					return fail(err, errlen, m->path, m->kv[i].line, "more than %d map.threads entries",
						    LAB_REFMAP_THREADS);
				if (split_arrow(tok, &a, &b))
					return fail(err, errlen, m->path, m->kv[i].line, "malformed %s", key);
				snprintf(map->thr[map->nthr].ref, sizeof(map->thr[0].ref), "%s", a);
				snprintf(map->thr[map->nthr++].ours, sizeof(map->thr[0].ours), "%s", b);
			}
		}
	}
	if ((map->ncol || map->nmet) && (map->ncol < 2 || !map->nmet)) {
		snprintf(err, errlen, "%s: a reference mapping needs two map.column and at least one map.metric", m->path);
		return -1;
	}
	return 0;
}

int lab_matrix_reference(const struct lab_matrix *m, char *path, size_t len)
{
	const char *ref = lab_matrix_get(m, "reference", NULL);
	const char *slash = strrchr(m->path, '/');
	char joined[8192], *real;

	if (!ref)
		return -1;
	if (ref[0] == '/' || !slash)
		snprintf(joined, sizeof(joined), "%s", ref);
	else
		snprintf(joined, sizeof(joined), "%.*s/%s", (int)(slash - m->path), m->path, ref);
	/* Installed: the matrices in share/rwlab/matrices, the tables in share/rwlab/reference. */
	if (access(joined, R_OK) && slash && ref[0] != '/' && strrchr(ref, '/')) {
		char inst[8192];

		snprintf(inst, sizeof(inst), "%.*s/../reference%s", (int)(slash - m->path), m->path, strrchr(ref, '/'));
		if (!access(inst, R_OK))
			snprintf(joined, sizeof(joined), "%s", inst);
	}
	real = realpath(joined, NULL);	/* tidy "dir/../../x" when the file exists */
	snprintf(path, len, "%s", real ? real : joined);
	free(real);
	return 0;
}
