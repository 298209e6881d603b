/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Prints the variants the preload tests run on, one per line: every variant
 * in `all` that claims exclusion and has both trylocks (the preload needs
 * them); in ThreadSanitizer builds, not those whose atomics TSan cannot see
 * (LAB_CAP_FOREIGN_ATOMICS: ck's inline assembly), as `rwlab torture` does.
 */
#include <stdio.h>

#include "rwsem.h"

int main(void)
{
	unsigned need = LAB_CAP_EXCLUSION | LAB_CAP_READ_TRYLOCK | LAB_CAP_WRITE_TRYLOCK;

	for (int i = 0; lab_rwsem_variants[i]; i++) {
		const struct lab_rwsem_ops *o = lab_rwsem_variants[i];

		if ((o->caps & need) != need || (o->caps & LAB_CAP_NOT_IN_ALL))
			continue;
#if defined(__SANITIZE_THREAD__)
		if (o->caps & LAB_CAP_FOREIGN_ATOMICS)
			continue;
#endif
		printf("%s\n", o->name);
	}
	return 0;
}
