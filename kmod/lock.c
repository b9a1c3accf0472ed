// SPDX-License-Identifier: GPL-2.0
/*
 * cfilter_lock, the writers' mutex (see cfilter.h), and the turns a LIST
 * gives the requests waiting for it.
 *
 * LIST walks a set a step at a time and lets go of the lock between steps
 * (dev_list.c). Letting go alone is not enough: a request that waits on
 * another CPU spins on the mutex while its owner runs, and the owner it
 * watches is the listing, before and after a step; one that takes the
 * lock again at once can keep it from seeing the lock free for the whole
 * walk (a request that sleeps instead is woken by the unlock, and the
 * mutex hands the lock over to it after one race lost). So every other
 * request counts itself while it waits for the lock, and a listing that
 * finds some waiting when it lets go waits, not holding the lock, until
 * one of them has taken it or none waits any more. The lock is free
 * meanwhile, or held by one that lets go of it: each waiter takes it in
 * time, or gives up (a signal), and the listing goes on.
 */
#include <linux/atomic.h>
#include <linux/errno.h>
#include <linux/mutex.h>
#include <linux/wait_bit.h>

#include "cfilter.h"

DEFINE_MUTEX(cfilter_lock);	/* writers of every set: see cfilter.h */

/* Requests waiting for cfilter_lock, and how many times they took it. */
static atomic_t cfilter_lock_waiting = ATOMIC_INIT(0);
static atomic_t cfilter_lock_turns = ATOMIC_INIT(0);

/* A request stopped waiting: with the lock (@err 0) or without. */
static int cfilter_lock_waited(int err)
{
	if (!err)
		atomic_inc(&cfilter_lock_turns);
	atomic_dec(&cfilter_lock_waiting);
	/* The counts before wake_up_var() looks for a listing waiting. */
	smp_mb__after_atomic();
	wake_up_var(&cfilter_lock_turns);
	return err;
}

/**
 * cfilter_lock_take() - take cfilter_lock, counted as waiting meanwhile
 *
 * Every taker of the lock but a LIST between its steps: a listing lets it
 * in first (cfilter_lock_make_way()).
 */
void cfilter_lock_take(void)
{
	atomic_inc(&cfilter_lock_waiting);
	mutex_lock(&cfilter_lock);
	cfilter_lock_waited(0);
}

/**
 * cfilter_lock_take_killable() - cfilter_lock_take(), ended by a fatal signal
 *
 * Return: 0 with the lock held, or -EINTR.
 */
int cfilter_lock_take_killable(void)
{
	atomic_inc(&cfilter_lock_waiting);
	return cfilter_lock_waited(mutex_lock_killable(&cfilter_lock));
}

/**
 * cfilter_lock_take_interruptible() - cfilter_lock_take(), ended by a signal
 *
 * Return: 0 with the lock held, or -EINTR.
 */
int cfilter_lock_take_interruptible(void)
{
	atomic_inc(&cfilter_lock_waiting);
	return cfilter_lock_waited(mutex_lock_interruptible(&cfilter_lock));
}

/**
 * cfilter_lock_make_way() - let the requests waiting for cfilter_lock in
 *
 * For a LIST between two steps, not holding the lock: if requests wait for
 * it, waits until one of them has taken it, or none waits any more.
 *
 * Return: 0, or -EINTR on a fatal signal.
 */
int cfilter_lock_make_way(void)
{
	int turns = atomic_read(&cfilter_lock_turns);

	if (!atomic_read(&cfilter_lock_waiting))
		return 0;
	if (wait_var_event_killable(&cfilter_lock_turns,
				    atomic_read(&cfilter_lock_turns) != turns ||
				    !atomic_read(&cfilter_lock_waiting)))
		return -EINTR;
	return 0;
}
