/* SPDX-License-Identifier: MIT */
#include <math.h>

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

double lab_stddev(const double *v, int n)
{
	double m, s = 0;

	if (n < 2)
		return NAN;
	m = lab_amean(v, n);
	for (int i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return sqrt(s / (n - 1));
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
