/* SPDX-License-Identifier: MIT */
/*
 * A bounded lock-free map from 64-bit keys to dense slot numbers
 * (0, 1, 2, ... in order of first sight), for what is kept per key value:
 * the first @max distinct keys get a slot each, later ones are refused
 * (the caller folds them into an "other"). Lookups and inserts never lock
 * or allocate; the table is made once, at its largest.
 *
 * Open addressing with linear probing over a power of two of at least
 * 4 * @max entries, each an atomic key and its slot; a key is inserted by
 * a CAS on an empty entry. Refused keys are kept too (up to @max of them)
 * so that the distinct values refused are counted exactly up to @max;
 * the table is then at most half full and probes stay short.
 */
#ifndef OSPROF_FS_OFS_KEYS_H
#define OSPROF_FS_OFS_KEYS_H

#include <stdbool.h>
#include <stdint.h>

/* The one key value that cannot be stored: it marks an empty entry. */
#define OFS_KEYS_EMPTY UINT64_MAX
/* The most slots a map may have. */
#define OFS_KEYS_MAX (1u << 20)

struct ofs_keys;

/*
 * ofs_keys_new - a map giving at most @max slots (1..OFS_KEYS_MAX).
 * NULL with errno EINVAL or ENOMEM. Free with ofs_keys_free (NULL-safe).
 */
struct ofs_keys *ofs_keys_new(unsigned max);
void ofs_keys_free(struct ofs_keys *k);

/*
 * ofs_keys_get - the slot of @key (not OFS_KEYS_EMPTY), given it now if
 * it has none and slots remain; *@fresh says whether this call gave it
 * (exactly one caller per slot sees true: the one to label it). Returns
 * the slot (0 .. max-1), or -1 when @key is refused (every slot taken).
 * Thread-safe, lock-free: a caller that meets @key being inserted by
 * another thread waits the few instructions until its slot is published.
 */
int ofs_keys_get(struct ofs_keys *k, uint64_t key, bool *fresh);

/* The slot of @key, or -1 when it has none (absent or refused). Thread-safe. */
int ofs_keys_find(const struct ofs_keys *k, uint64_t key);

/*
 * ofs_keys_key - the key of slot @slot into *@key: false when the slot is
 * not given (yet: a slot is counted a moment before its key is stored).
 * Thread-safe.
 */
bool ofs_keys_key(const struct ofs_keys *k, unsigned slot, uint64_t *key);

/*
 * ofs_keys_reset - forget every key and count. It may run beside
 * ofs_keys_get (ctl's reset while requests are recorded): a get racing it
 * returns -1, or a slot the reset is forgetting, which may then be given
 * to a second key as well -- only requests racing the reset can be
 * misattributed; none waits for an entry the reset emptied.
 */
void ofs_keys_reset(struct ofs_keys *k);

/* Slots given so far (at most max). Thread-safe. */
unsigned ofs_keys_count(const struct ofs_keys *k);

/*
 * Distinct keys refused so far; exact while *@more is false, a lower
 * bound once it is true (more keys were refused than the map remembers).
 */
uint64_t ofs_keys_refused(const struct ofs_keys *k, bool *more);

#endif /* OSPROF_FS_OFS_KEYS_H */
