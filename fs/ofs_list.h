/* SPDX-License-Identifier: MIT */
/* The intrusive list the inode table, the control directory and the lock
 * waiters keep their entries on. */
#ifndef OSPROF_FS_OFS_LIST_H
#define OSPROF_FS_OFS_LIST_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A circular doubly linked list: a list is its sentinel node, empty when
 * it points at itself. The caller provides the locking.
 */
struct ofs_list {
	struct ofs_list *prev, *next;
};

#define ofs_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

static inline void ofs_list_init(struct ofs_list *head)
{
	head->prev = head->next = head;
}

static inline bool ofs_list_empty(const struct ofs_list *head)
{
	return head->next == head;
}

/* Insert @n at the front of @head. */
static inline void ofs_list_add(struct ofs_list *head, struct ofs_list *n)
{
	n->next = head->next;
	n->prev = head;
	head->next->prev = n;
	head->next = n;
}

static inline void ofs_list_del(struct ofs_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
}

#endif /* OSPROF_FS_OFS_LIST_H */
