package org.hsa4j.agent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;

/**
 * The agent's launched work, in launch order: the processor role appends, compute units claim.
 *
 * <h2>How it works</h2>
 * A power-of-two array of {@link Work} with two sequence numbers, each alone on its cache line:
 * {@code tail}, the next sequence to fill, written only by the unit holding the processor role
 * (one producer at a time; the role's compare-and-set orders consecutive holders), and
 * {@code head}, the oldest sequence that may still have unclaimed parts. The producer writes the
 * slot with a release store and then publishes it with a release store of the tail; a unit
 * acquire-loads the tail, then the head's slot.
 *
 * <p>A unit claims a part of the work at the head through the work's own counter
 * ({@link Work#claim()}). Whoever claims the last part, or finds the head's work with nothing left,
 * moves the head on with one compare-and-set and clears the slot with another (only if it still
 * holds that work), so a finished dispatch is not kept reachable by the ring. A one-workgroup
 * dispatch therefore costs its claimer one fetch-and-add and two compare-and-sets, all on lines it
 * usually holds already, instead of a linked queue's node allocation, tail swing and unlink.
 *
 * <h2>Why stale reads are harmless</h2>
 * The head only grows, so a compare-and-set from a head value read earlier fails once anyone has
 * moved it (no ABA). A unit that read the head, was descheduled, and then reads a slot the producer
 * has since refilled gets a newer launched work: claiming a part of it is correct, because every
 * work in the ring is launched and may run (the barrier bit was already honoured at launch), and its
 * move of the old head fails. A cleared slot (null) means the head has moved: the unit looks again.
 *
 * <h2>Back-pressure</h2>
 * The producer appends only when {@link #hasSpace()}; the processor checks that before it consumes a
 * packet, so a full ring leaves packets in their AQL queue (the queue is the buffer) until units have
 * claimed work, and nothing is dropped.
 */
final class LaunchRing {
    /** Works an agent's ring holds: 16 full launch batches of {@link PacketProcessor#BATCH}. */
    static final int CAPACITY = 1024;

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Work[].class);
    private static final VarHandle SEQUENCE = MethodHandles.arrayElementVarHandle(long[].class);
    /** Longs from one sequence to the next (128 bytes), so head and tail never share a line or a prefetch pair. */
    private static final int PAD = 16;
    /** Index of the head in {@link #sequences}. */
    private static final int HEAD = PAD;
    /** Index of the tail in {@link #sequences}. */
    private static final int TAIL = 2 * PAD;

    private final Work[] slots;
    /** Slots minus one: the slot of sequence {@code s} is {@code s & mask}. */
    private final int mask;
    /** Head and tail, {@link #PAD} longs apart, with padding before, between and after. */
    private final long[] sequences = new long[3 * PAD + 1];
    /** Producer-side copy of the head, refreshed only when the ring looks full. */
    private long headCache;

    /** A ring of {@code capacity} slots, a power of two. */
    LaunchRing(int capacity) {
        if (capacity < 1 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two, was " + capacity);
        }
        this.slots = new Work[capacity];
        this.mask = capacity - 1;
    }

    /** True when the producer may {@link #append} one more work. */
    boolean hasSpace() {
        long tail = (long) SEQUENCE.getOpaque(sequences, TAIL);
        if (tail - headCache < slots.length) {
            return true;
        }
        headCache = head();
        return tail - headCache < slots.length;
    }

    /** Appends launched work; only the processor role holder calls this, after {@link #hasSpace()}. */
    void append(Work work) {
        long tail = (long) SEQUENCE.getOpaque(sequences, TAIL);
        SLOT.setRelease(slots, (int) tail & mask, work);
        SEQUENCE.setRelease(sequences, TAIL, tail + 1);
    }

    private long head() {
        return (long) SEQUENCE.getAcquire(sequences, HEAD);
    }

    private long tail() {
        return (long) SEQUENCE.getAcquire(sequences, TAIL);
    }

    /** The head's sequence (an acquire load): it moves on as units claim the last parts of works. */
    long headSequence() {
        return head();
    }

    /** Works appended so far (an acquire load of the tail): it changes with every launch. */
    long appended() {
        return tail();
    }

    /** Works appended and not yet moved past (some of them may be fully claimed and still running). */
    long size() {
        long head = head();
        return Math.max(0, tail() - head);
    }

    /** The oldest work with an unclaimed part, or null; fully claimed works at the head are moved past. */
    Work peekClaimable() {
        while (true) {
            long head = head();
            if (head >= tail()) {
                return null;
            }
            Work w = (Work) SLOT.getAcquire(slots, (int) head & mask);
            if (w == null) {
                continue;
            }
            if (w.claimable()) {
                return w;
            }
            movePast(head, w);
        }
    }

    /**
     * Claims and runs one part of the oldest claimable work on {@code unit}; false when there is
     * none. {@link ComputeUnit#current()} names the work while it is claimed and run, for shutdown.
     */
    boolean runOne(ComputeUnit unit) {
        try {
            for (boolean retry = false; ; retry = true) {
                if (retry) {
                    unit.countCasRetry();
                }
                long head = head();
                long tail = tail();
                if (head >= tail) {
                    return false;
                }
                Work w = (Work) SLOT.getAcquire(slots, (int) head & mask);
                if (w == null) {
                    continue;
                }
                unit.claiming(w);
                long part = w.claim();
                boolean last = part < 0 || w.isLastPart(part);
                if (last) {
                    movePast(head, w);
                }
                if (part >= 0) {
                    unit.runPart(w, part, last, tail - head - 1);
                    return true;
                }
            }
        } finally {
            unit.claiming(null);
        }
    }

    /** Moves the head past {@code w} at {@code head} if nobody has yet, and clears its slot. */
    private void movePast(long head, Work w) {
        if (SEQUENCE.compareAndSet(sequences, HEAD, head, head + 1)) {
            SLOT.compareAndSet(slots, (int) head & mask, w, null);
        }
    }

    /** Calls {@code action} on every work not yet moved past, oldest first; for shutdown. */
    void forEach(Consumer<Work> action) {
        long tail = tail();
        for (long s = head(); s < tail; s++) {
            Work w = (Work) SLOT.getAcquire(slots, (int) s & mask);
            if (w != null) {
                action.accept(w);
            }
        }
    }
}
