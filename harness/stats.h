/* SPDX-License-Identifier: MIT */
/*
 * Summary statistics over the iterations of one cell. All functions take
 * @n >= 1 values; they return NaN where a statistic is undefined (harmonic
 * mean with a value <= 0, standard deviation of one value).
 */
#pragma once

double lab_amean(const double *v, int n);
/* Harmonic mean: mmtests' Hmean, for higher-is-better rates. */
double lab_hmean(const double *v, int n);
double lab_gmean(const double *v, int n);
/* Sample standard deviation (n - 1). */
double lab_stddev(const double *v, int n);
double lab_min(const double *v, int n);
double lab_max(const double *v, int n);
