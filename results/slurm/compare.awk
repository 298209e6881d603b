# SPDX-License-Identifier: GPL-2.0-only
# compare.awk A.csv B.csv (e.g. merged, local): per cell, the headline metric (locktest
# total_rate, pft faults/sec): mean and sample stddev over the iterations in
# each file, the change, and whether it is within noise by mmtests' rule
# |mean_a - mean_b| <= 1.96 (sd_a + sd_b). Then the cell sets compared.
# Labels here hold no comma, so fields split on commas.
BEGIN { FS = "," }
FNR == 1 { f++; next }
$8 == "total_rate" || $8 == "faults/sec" {
	k = $5 " t=" $6 " " $4 " " $8
	cells[k] = 1; has[f, k] = 1
	n[f, k]++; s[f, k] += $9; ss[f, k] += $9 * $9
}
function sd(f, k,   m) { m = s[f, k] / n[f, k]; return n[f, k] > 1 ? sqrt((ss[f, k] - n[f, k] * m * m) / (n[f, k] - 1)) : 0 }
END {
	printf "%-48s %14s %8s %14s %8s %8s  %s\n", "cell (headline)", "A mean", "sd%", "B mean", "sd%", "change", "verdict"
	nc = 0
	for (k in cells) keys[++nc] = k
	for (i = 2; i <= nc; i++) for (j = i; j > 1 && keys[j - 1] > keys[j]; j--) { t = keys[j]; keys[j] = keys[j - 1]; keys[j - 1] = t }
	for (i = 1; i <= nc; i++) {
		k = keys[i]
		if (!has[1, k] || !has[2, k]) { printf "%-48s only in %s\n", k, has[1, k] ? "A" : "B"; miss++; continue }
		a = s[1, k] / n[1, k]; b = s[2, k] / n[2, k]; da = sd(1, k); db = sd(2, k)
		ok = (a - b < 0 ? b - a : a - b) <= 1.96 * (da + db)
		within += ok
		printf "%-48s %14.1f %7.1f%% %14.1f %7.1f%% %+7.1f%%  %s\n", k, a, 100 * da / a, b, 100 * db / b, 100 * (a - b) / b, ok ? "within noise" : "DIFFERS"
	}
	printf "\ncells: %d in the union, %d missing from one side; %d of %d within noise (1.96 (sd_a + sd_b))\n", nc, miss, within, nc - miss
}
