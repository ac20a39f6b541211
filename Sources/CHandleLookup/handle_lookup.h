#ifndef NORMCACHE_CHANDLELOOKUP_H
#define NORMCACHE_CHANDLELOOKUP_H

/* A thread's lookup of the handle it looked up last in a handle table, without the
   table's lock (Sources/CNormCache/HandleTable.swift): hazard pointers, in C so that the
   order of the retain and the atomics around it is C11's promise, not an optimiser's
   choice.

   Each thread has a record in each table it looks handles up in: the handle it looked
   up last, the table's count of removed handles then, and that handle's object, not
   retained. A lookup of the same handle, with no handle removed since, announces the
   object as the record's hazard, checks the count again, and only then retains the
   object and withdraws the hazard. A thread that removes a handle from the table counts
   the removal, then waits until no record announces the object before it lets go of
   it: so an object is never retained after its last release, and a removed handle's
   object lives no longer than it did with the lock. Records are never freed: a thread
   that exits leaves its record to the next thread that needs one. */

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

/* The Swift runtime's retain (the library links the runtime statically). */
extern void *swift_retain(void *object);

/* A thread's record in one table. */
struct normcache_lookup_record {
    /* The object the thread is retaining through the record, or 0. */
    _Atomic(uintptr_t) hazard;
    /* The fork generation of the record's lookups: a forked child's closes pass over
       the records of the parent's threads, which are gone. */
    _Atomic(uint64_t) fork_generation;
    /* Whether a live thread owns the record. */
    _Atomic(int) owned;
    /* The next record of the table (set before the record is published, then fixed). */
    struct normcache_lookup_record *next;
    /* The handle looked up last (0: none), the table's removals then, and its object. */
    uintptr_t handle;
    uint64_t removals;
    void *object;
};

/* The state of one table that its threads share. */
struct normcache_lookup_table {
    /* How many handles have left the table. */
    _Atomic(uint64_t) removals;
    /* The records, newest first. */
    _Atomic(struct normcache_lookup_record *) records;
};

/* A table's state, zeroed; NULL when memory cannot be had. Never freed. */
static inline struct normcache_lookup_table *normcache_lookup_table_make(void)
{
    return (struct normcache_lookup_table *)calloc(1, sizeof(struct normcache_lookup_table));
}

/* A record for the calling thread: one a thread that exited left, else a new one;
   NULL when memory cannot be had. */
static inline struct normcache_lookup_record *normcache_lookup_claim(struct normcache_lookup_table *table)
{
    struct normcache_lookup_record *record = atomic_load_explicit(&table->records, memory_order_acquire);
    for (; record != NULL; record = record->next) {
        int unowned = 0;
        if (atomic_compare_exchange_strong_explicit(&record->owned, &unowned, 1, memory_order_acquire,
                                                    memory_order_relaxed)) {
            record->handle = 0;
            record->object = NULL;
            return record;
        }
    }
    record = (struct normcache_lookup_record *)calloc(1, sizeof(struct normcache_lookup_record));
    if (record == NULL) {
        return NULL;
    }
    atomic_init(&record->owned, 1);
    record->next = atomic_load_explicit(&table->records, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&table->records, &record->next, record, memory_order_release,
                                                  memory_order_relaxed)) {
    }
    return record;
}

/* Leaves the record of a thread that exits to the next thread (a pthread key's destructor). */
static inline void normcache_lookup_leave(void *record)
{
    struct normcache_lookup_record *left = (struct normcache_lookup_record *)record;
    left->handle = 0;
    left->object = NULL;
    atomic_store_explicit(&left->owned, 0, memory_order_release);
}

/* The removals so far; a lookup through the table's lock reads it before it finds the
   handle's slot, and remembers it with the object. */
static inline uint64_t normcache_lookup_removals(struct normcache_lookup_table *table)
{
    return atomic_load_explicit(&table->removals, memory_order_seq_cst);
}

/* Remembers a lookup through the lock: `handle`'s object `object` (not retained),
   found after the table had counted `removals`. */
static inline void normcache_lookup_remember(struct normcache_lookup_record *record, uintptr_t handle,
                                             uint64_t removals, uint64_t fork_generation, void *object)
{
    record->handle = handle;
    record->removals = removals;
    record->object = object;
    atomic_store_explicit(&record->fork_generation, fork_generation, memory_order_relaxed);
}

/* The object of `handle`, retained, when it is the record's last lookup and no handle
   left the table since; NULL otherwise (the caller looks it up through the lock). */
static inline void *normcache_lookup_again(struct normcache_lookup_table *table, struct normcache_lookup_record *record,
                                           uintptr_t handle, uint64_t fork_generation)
{
    void *object = record->object;
    uint64_t generation = atomic_load_explicit(&record->fork_generation, memory_order_relaxed);
    if (object == NULL || record->handle != handle || generation != fork_generation) {
        return NULL;
    }
    atomic_store_explicit(&record->hazard, (uintptr_t)object, memory_order_seq_cst);
    if (atomic_load_explicit(&table->removals, memory_order_seq_cst) != record->removals) {
        atomic_store_explicit(&record->hazard, 0, memory_order_release);
        return NULL;
    }
    swift_retain(object);
    atomic_store_explicit(&record->hazard, 0, memory_order_release);
    return object;
}

/* Counts the removal of a handle whose slot no longer holds `object`, then waits until
   no thread of this fork generation is retaining it through its record. The caller still
   holds a reference to `object`, and lets it go after. */
static inline void normcache_lookup_removed(struct normcache_lookup_table *table, void *object, uint64_t fork_generation)
{
    atomic_fetch_add_explicit(&table->removals, 1, memory_order_seq_cst);
    struct normcache_lookup_record *record = atomic_load_explicit(&table->records, memory_order_acquire);
    for (; record != NULL; record = record->next) {
        while (atomic_load_explicit(&record->hazard, memory_order_seq_cst) == (uintptr_t)object) {
            if (atomic_load_explicit(&record->fork_generation, memory_order_relaxed) != fork_generation) {
                break;
            }
            sched_yield();
        }
    }
}

#endif
