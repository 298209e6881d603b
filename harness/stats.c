/* SPDX-License-Identifier: GPL-2.0-only */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

double lab_amean(const double *v, int n)
{
	double s = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	return n ? s / n : NAN;
}

double lab_hmean(const double *v, int n)
{
	double s = 0;

	for (int i = 0; i < n; i++) {
		if (v[i] <= 0)
			return NAN;
		s += 1.0 / v[i];
	}
	return n ? n / s : NAN;
}

double lab_gmean(const double *v, int n)
{
	double s = 0;

	for (int i = 0; i < n; i++) {
		if (v[i] <= 0)
			return NAN;
		s += log(v[i]);
	}
	return n ? exp(s / n) : NAN;
}

static double sum_sq_dev(const double *v, int n)
{
	double m = lab_amean(v, n), s = 0;

	for (int i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return s;
}

double lab_stddev(const double *v, int n)
{
	return n < 2 ? NAN : sqrt(sum_sq_dev(v, n) / (n - 1));
}

double lab_stddev_pop(const double *v, int n)
{
	return n < 1 ? NAN : sqrt(sum_sq_dev(v, n) / n);
}

double lab_hstddev(const double *v, int n)
{
	double h = lab_hmean(v, n), s = 0;

	if (n < 2 || isnan(h))
		return NAN;
	for (int i = 0; i < n; i++)
		s += (1 / v[i] - 1 / h) * (1 / v[i] - 1 / h);
	return sqrt(s * h * h * h * h / n);
}

double lab_hcoeffvar(const double *v, int n)
{
	double h = lab_hmean(v, n);

	return isnan(h) ? NAN : 100 * lab_hstddev(v, n) / h;
}

double lab_coeffvar(const double *v, int n)
{
	double m = lab_amean(v, n);

	return m == 0 ? NAN : 100 * lab_stddev(v, n) / m;
}

double lab_min(const double *v, int n)
{
	double m = v[0];

	for (int i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

double lab_max(const double *v, int n)
{
	double m = v[0];

	for (int i = 1; i < n; i++)
		m = v[i] > m ? v[i] : m;
	return m;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double *sorted_copy(const double *v, int n)
{
	double *s = malloc((size_t)(n ? n : 1) * sizeof(*s));

	if (!s)
		abort();
	memcpy(s, v, (size_t)n * sizeof(*s));
	qsort(s, (size_t)n, sizeof(*s), cmp_double);
	return s;
}

double lab_median(const double *v, int n)
{
	double *s, m;

	if (n < 1)
		return NAN;
	s = sorted_copy(v, n);
	m = n & 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

/*
 * Continued fraction of the regularised incomplete beta function I_x(a, b),
 * evaluated with the modified Lentz method. Its terms are
 *   d(2m+1) = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1)),
 *   d(2m)   =  m(b-m) x / ((a+2m-1)(a+2m)),
 * and I_x(a,b) = x^a (1-x)^b / (a B(a,b)) / (1 + d1/(1 + d2/(1 + ...))).
 * It converges fast for x < (a+1)/(a+b+2); the caller uses the symmetry
 * I_x(a,b) = 1 - I_{1-x}(b,a) otherwise.
 */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1), f;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	f = d;
	for (int m = 1; m <= 1000; m++) {
		double num, delta;

		/* even step: d(2m) */
		num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 + num * d;
		c = 1 + num / c;
		if (fabs(d) < tiny)
			d = tiny;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		f *= d * c;
		/* odd step: d(2m+1) */
		num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + num * d;
		c = 1 + num / c;
		if (fabs(d) < tiny)
			d = tiny;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		delta = d * c;
		f *= delta;
		if (fabs(delta - 1) < eps)
			break;
	}
	return f;
}

static double inc_beta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * betacf(a, b, x) / a;
	return 1 - front * betacf(b, a, 1 - x) / b;
}

double lab_student_t_sf2(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return 0;
	return inc_beta(df / 2, 0.5, df / (df + t * t));
}

double lab_student_t_crit2(double p, double df)
{
	double lo = 0, hi = 1;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	while (lab_student_t_sf2(hi, df) > p && hi < 1e12)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {	/* the tail falls as t grows */
		double mid = (lo + hi) / 2;

		if (lab_student_t_sf2(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* Shared by both t-tests: t statistic and the two variance terms. Returns false if undefined. */
static bool t_parts(const double *a, int na, const double *b, int nb, double *t, double *va_n,
		    double *vb_n, bool *degenerate, double *p_degenerate)
{
	double ma, mb, se;

	if (na < 2 || nb < 2)
		return false;
	ma = lab_amean(a, na);
	mb = lab_amean(b, nb);
	*va_n = sum_sq_dev(a, na) / (na - 1) / na;
	*vb_n = sum_sq_dev(b, nb) / (nb - 1) / nb;
	se = sqrt(*va_n + *vb_n);
	*degenerate = se == 0;
	*p_degenerate = ma == mb ? 1 : 0;
	*t = se == 0 ? 0 : (ma - mb) / se;
	return true;
}

double lab_welch_p(const double *a, int na, const double *b, int nb)
{
	double t, va, vb, pd, df;
	bool deg;

	if (!t_parts(a, na, b, nb, &t, &va, &vb, &deg, &pd))
		return NAN;
	if (deg)
		return pd;
	df = (va + vb) * (va + vb) / (va * va / (na - 1) + vb * vb / (nb - 1));
	return lab_student_t_sf2(t, df);
}

double lab_mmtests_ttest_p(const double *a, int na, const double *b, int nb)
{
	double t, va, vb, pd;
	bool deg;

	if (!t_parts(a, na, b, nb, &t, &va, &vb, &deg, &pd))
		return NAN;
	if (deg)
		return pd;
	return lab_student_t_sf2(t, na + nb - 2);
}

double lab_mmtests_ttest_p_means(double mean_a, double sd_a, int na, double mean_b, double sd_b, int nb)
{
	double se;

	if (na < 2 || nb < 2 || isnan(mean_a) || isnan(mean_b) || isnan(sd_a) || isnan(sd_b))
		return NAN;
	se = sqrt(sd_a * sd_a / na + sd_b * sd_b / nb);
	if (se == 0)
		return mean_a == mean_b ? 1 : 0;
	return lab_student_t_sf2((mean_a - mean_b) / se, na + nb - 2);
}

bool lab_mmtests_ci_significant(double mean_a, double sd_a, double mean_b, double sd_b)
{
	if (isnan(mean_a) || isnan(mean_b) || isnan(sd_a) || isnan(sd_b))
		return false;
	return fabs(mean_b - mean_a) > LAB_QNORM_975 * (sd_a + sd_b);
}

/* Trimmed sorted copy: drops min(n >> 5, 3) from each end; returns the kept count. */
static double *lkp_trim(const double *v, int n, int *kept)
{
	double *s = sorted_copy(v, n);
	int drop = n >> 5 < 3 ? n >> 5 : 3;

	memmove(s, s + drop, (size_t)(n - 2 * drop) * sizeof(*s));
	*kept = n - 2 * drop;
	return s;
}

bool lab_lkp_changed(const double *a, int na, const double *b, int nb, double min_ratio)
{
	double *sa, *sb, mina, meda, maxa, minb, medb, maxb, lo, hi;
	int ka, kb;
	bool changed;

	if ((na < 3 && nb < 3) || na < 1 || nb < 1)
		return false;
	sa = lkp_trim(a, na, &ka);
	sb = lkp_trim(b, nb, &kb);
	mina = sa[0], meda = sa[ka / 2], maxa = sa[ka - 1];
	minb = sb[0], medb = sb[kb / 2], maxb = sb[kb - 1];
	free(sa);
	free(sb);
	changed = (minb > meda && medb > maxa) || (mina > medb && meda > maxb);
	if (!changed)
		return false;
	lo = meda < medb ? meda : medb;
	hi = meda < medb ? medb : meda;
	if (lo <= 0)
		return hi > lo;
	return hi / lo > min_ratio;
}

double lab_pdiff(double new_, double base)
{
	if (new_ == base || new_ == 0)
		return 0;
	if (base == 0)
		return 100;
	return new_ * 100 / base - 100;
}

double lab_pndiff(double new_, double base)
{
	if (new_ == base)
		return 0;
	if (new_ == 0)
		return 100;
	if (base == 0)
		return -99;
	return 100 - new_ * 100 / base;
}

double lab_jain_fairness(const double *v, int n)
{
	double s = 0, s2 = 0;

	for (int i = 0; i < n; i++) {
		s += v[i];
		s2 += v[i] * v[i];
	}
	return s2 == 0 ? NAN : s * s / (n * s2);
}
