package org.hsa4j.memory.coherence;

import java.nio.ByteOrder;
import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

import org.hsa4j.memory.Allocation;

/**
 * Fidelity mode's model of a host thread: a per-thread, bounded store buffer that also keeps the
 * lines the thread has read, so a host thread's relaxed (plain) stores stay invisible to kernels
 * and its plain loads may be served stale until it releases or acquires, as HSA allows.
 *
 * <h2>Why it exists</h2>
 * HSA lets a host thread's relaxed stores become visible to an agent in any order and at any time
 * before the thread's next release, and lets its relaxed loads return old values until its next
 * acquire. On x86 the JVM makes them visible almost at once, so a host that writes data and then
 * rings a doorbell with a relaxed store, or reads a kernel's flag with a relaxed load and then the
 * data, passes every run here and fails on a GPU. With this buffer the first mistake leaves the
 * data in the host thread's buffer (the kernel reads the old value at home) and the second serves
 * the data from the thread's own copy of the line (the old value it wrote or read before), every
 * time, with no timing involved.
 *
 * <h2>How</h2>
 * A host thread is any thread that is not a compute unit of an agent. Each host thread that
 * touches cached SVM in fidelity mode gets one buffer ({@link #current()}, a {@link ThreadLocal}),
 * used by that thread alone, so no access contends with another thread. It holds up to
 * {@link #LINES} 64-byte lines, each with per-byte valid and dirty masks (as the GPU caches,
 * {@link CacheLines}):
 * <ul>
 * <li>a plain store writes its bytes into the line (allocating it without fetching) and marks them
 * dirty; a plain load serves the bytes the line holds and fetches the missing ones from home, which
 * then stay, clean, until an acquire drops them;</li>
 * <li>a release at AGENT or SYSTEM scope (a releasing atomic or fence, an screlease signal
 * operation, a doorbell rung with screlease) writes every dirty byte home and keeps the bytes as
 * clean copies; an acquire at AGENT or SYSTEM scope drops every clean byte; narrower scopes do
 * nothing. The host's agent is the CPU, whose coherence point is home, so for a host thread
 * AGENT and SYSTEM scope coincide;</li>
 * <li>an atomic runs at home, after the thread's own dirty bytes of the location went home and its
 * copy of them was dropped;</li>
 * <li>the buffer is bounded: allocating a line when all are taken first writes the oldest line's
 * dirty bytes home (first in, first out), so no store is ever lost, only delayed.</li>
 * </ul>
 * A store reaches home in the order its line leaves the buffer, not in program order: exactly the
 * freedom HSA gives relaxed stores, and the reason a release is needed.
 *
 * <h2>Nothing is lost</h2>
 * Every buffer is also listed in {@link #ALL}. A thread that ends with dirty bytes has them written
 * home by the next host thread that releases or acquires ({@link #sweepEnded}: a thread seen dead
 * by {@link Thread#isAlive()} happened-before the sweeper, so its buffer may be read), and by a
 * runtime's close. A line of a freed allocation is dropped, never written (as in the GPU caches).
 */
final class HostStoreBuffer {
    /** Lines a host thread's buffer holds: 64 lines, 4 KiB. */
    static final int LINES = 64;
    private static final int LINE = CacheLines.LINE;
    private static final int WORDS = CacheLines.WORDS;
    private static final boolean LITTLE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private static final ThreadLocal<HostStoreBuffer> CURRENT = new ThreadLocal<>();
    /** Every buffer of a live thread, and the ended threads' buffers not yet swept. */
    private static final ConcurrentLinkedQueue<HostStoreBuffer> ALL = new ConcurrentLinkedQueue<>();

    private final Thread owner;
    /** Claimed by the one thread that sweeps this buffer after its owner ended. */
    private final AtomicBoolean swept = new AtomicBoolean();
    private final Allocation[] allocations = new Allocation[LINES];
    /** The model of each entry's runtime, told before the entry's bytes go home (its agents' L2s save what they may still serve). */
    private final CoherenceModel[] models = new CoherenceModel[LINES];
    private final long[] lines = new long[LINES];
    private final long[] valid = new long[LINES];
    private final long[] dirty = new long[LINES];
    private final long[] data = new long[LINES * WORDS];
    /** Oldest entry (first out when full) and the number of entries taken, in allocation order. */
    private int head;
    private int taken;
    /** The entry found last: streams hit it without a search. */
    private int last;

    private HostStoreBuffer(Thread owner) {
        this.owner = owner;
    }

    /** The calling host thread's buffer, made on first use. */
    static HostStoreBuffer current() {
        HostStoreBuffer b = CURRENT.get();
        if (b == null) {
            b = new HostStoreBuffer(Thread.currentThread());
            CURRENT.set(b);
            ALL.add(b);
        }
        return b;
    }

    /** The calling thread's buffer, or null when it never had one (no lookup is made on its behalf). */
    static HostStoreBuffer existing() {
        return CURRENT.get();
    }

    // ---- plain access ---------------------------------------------------------------------------

    /** A plain load of {@code size} (1, 2, 4 or 8) bytes at {@code address} inside {@code a}, as bits (sign-extended). */
    long load(Allocation a, long address, int size) {
        int offset = (int) (address & (LINE - 1));
        if (offset + size > LINE) {
            long bits = 0;
            for (int k = 0; k < size; k++) {
                bits |= (load(a, address + k, 1) & 0xFFL) << (8 * (LITTLE ? k : size - 1 - k));
            }
            return signExtend(bits, size);
        }
        long line = address - offset;
        long mask = CacheLines.bytes(offset, size);
        int e = find(a, line);
        if (e < 0) {
            e = allocate(a, line);
        }
        long missing = mask & ~valid[e];
        if (missing != 0) {
            fetch(e, a, line);
        }
        return get(e, offset, size);
    }

    /** A plain store of the low {@code size} (1, 2, 4 or 8) bytes of {@code bits} at {@code address} inside {@code a}. */
    void store(CoherenceModel model, Allocation a, long address, int size, long bits) {
        int offset = (int) (address & (LINE - 1));
        if (offset + size > LINE) {
            for (int k = 0; k < size; k++) {
                int shift = 8 * (LITTLE ? k : size - 1 - k);
                store(model, a, address + k, 1, bits >>> shift);
            }
            return;
        }
        long line = address - offset;
        int e = find(a, line);
        if (e < 0) {
            e = allocate(a, line);
        }
        models[e] = model;
        put(e, offset, size, bits);
        long mask = CacheLines.bytes(offset, size);
        valid[e] |= mask;
        dirty[e] |= mask;
    }

    /** Before an atomic on {@code size} bytes at {@code address}: the thread's own dirty bytes there go home, its copy of them is dropped. */
    void prepareAtomic(Allocation a, long address, int size) {
        int offset = (int) (address & (LINE - 1));
        long line = address - offset;
        int e = find(a, line);
        if (e >= 0) {
            long mask = CacheLines.bytes(offset, Math.min(size, LINE - offset));
            writeHome(e, dirty[e] & mask);
            valid[e] &= ~mask;
            dirty[e] &= ~mask;
        }
    }

    /** Writes home the dirty bytes of every line overlapping {@code bytes} bytes at {@code address} of {@code a}, and drops those lines. */
    void evict(Allocation a, long address, long bytes) {
        for (int n = 0, e = head; n < taken; n++, e = (e + 1) % LINES) {
            if (allocations[e] == a && lines[e] + LINE > address && lines[e] < address + bytes) {
                writeHome(e, dirty[e]);
                valid[e] = 0;
                dirty[e] = 0;
            }
        }
    }

    // ---- release and acquire --------------------------------------------------------------------

    /** A release at AGENT or SYSTEM scope: every dirty byte goes home; the bytes stay as clean copies. */
    void release() {
        for (int n = 0, e = head; n < taken; n++, e = (e + 1) % LINES) {
            if (dirty[e] != 0) {
                writeHome(e, dirty[e]);
                dirty[e] = 0;
            }
        }
        sweepEnded();
    }

    /** An acquire at AGENT or SYSTEM scope: every clean byte is dropped (the thread's own unreleased writes stay). */
    void acquire() {
        for (int n = 0, e = head; n < taken; n++, e = (e + 1) % LINES) {
            valid[e] = dirty[e];
        }
        sweepEnded();
    }

    /** Writes every dirty byte home and forgets every line: for a thread that ended, or a runtime's close. */
    void drainAll() {
        for (int n = 0, e = head; n < taken; n++, e = (e + 1) % LINES) {
            writeHome(e, dirty[e]);
            allocations[e] = null;
            models[e] = null;
            valid[e] = 0;
            dirty[e] = 0;
        }
        head = 0;
        taken = 0;
        last = 0;
    }

    /** Writes home what every ended host thread left in its buffer, once each. */
    static void sweepEnded() {
        for (Iterator<HostStoreBuffer> it = ALL.iterator(); it.hasNext(); ) {
            HostStoreBuffer b = it.next();
            if (!b.owner.isAlive() && b.swept.compareAndSet(false, true)) {
                b.drainAll();
                it.remove();
            }
        }
    }

    /** Dirty bytes in this buffer (for tests). */
    int dirtyBytes() {
        int n = 0;
        for (int e = 0; e < LINES; e++) {
            n += Long.bitCount(dirty[e]);
        }
        return n;
    }

    // ---- entries --------------------------------------------------------------------------------

    private int find(Allocation a, long line) {
        int e = last;
        if (lines[e] == line && allocations[e] == a) {
            return e;
        }
        for (int n = 0, i = head; n < taken; n++, i = (i + 1) % LINES) {
            if (lines[i] == line && allocations[i] == a) {
                last = i;
                return i;
            }
        }
        return -1;
    }

    /** Takes an entry for {@code line} of {@code a}, holding no byte; when all are taken the oldest leaves first. */
    private int allocate(Allocation a, long line) {
        if (taken == LINES) {
            int oldest = head;
            writeHome(oldest, dirty[oldest]);
            head = (head + 1) % LINES;
            taken--;
        }
        int e = (head + taken) % LINES;
        taken++;
        allocations[e] = a;
        models[e] = null;
        lines[e] = line;
        valid[e] = 0;
        dirty[e] = 0;
        last = e;
        return e;
    }

    /** Reads from home every byte of entry {@code e} it does not hold yet (inside the allocation). */
    private void fetch(int e, Allocation a, long line) {
        long want = CacheLines.inside(a, line) & ~valid[e];
        for (int k = 0; k < LINE; k++) {
            if ((want & (1L << k)) != 0) {
                putByte(e, k, CacheLines.get(a.segment(), line + k - a.base(), 1));
            }
        }
        valid[e] |= want;
    }

    /** Writes the bytes of {@code mask} of entry {@code e} home, unless its allocation was freed. */
    private void writeHome(int e, long mask) {
        Allocation a = allocations[e];
        if (mask == 0 || a == null || MemoryInternals.isFreed(a)) {
            return;
        }
        try {
            CoherenceModel model = models[e];
            if (model != null) {
                model.beforeHomeWrite(a, lines[e], LINE, CoherenceModel.HOST);
            }
            long at = lines[e] - a.base();
            for (int k = 0; k < LINE; k++) {
                if ((mask & (1L << k)) != 0) {
                    CacheLines.put(a.segment(), at + k, 1, getByte(e, k));
                }
            }
        } catch (IllegalStateException freedMeanwhile) {
            // the allocation's arena closed after the check: its bytes are gone, nothing to keep
        }
    }

    private long get(int e, int offset, int size) {
        long bits = 0;
        for (int k = 0; k < size; k++) {
            bits |= (getByte(e, offset + k) & 0xFFL) << (8 * (LITTLE ? k : size - 1 - k));
        }
        return signExtend(bits, size);
    }

    private void put(int e, int offset, int size, long bits) {
        for (int k = 0; k < size; k++) {
            putByte(e, offset + k, bits >>> (8 * (LITTLE ? k : size - 1 - k)));
        }
    }

    /** Byte {@code k} of entry {@code e}'s line: byte {@code k % 8} (little-endian) of word {@code k / 8}. */
    private long getByte(int e, int k) {
        return (data[e * WORDS + (k >>> 3)] >>> ((k & 7) << 3)) & 0xFFL;
    }

    private void putByte(int e, int k, long value) {
        int w = e * WORDS + (k >>> 3);
        int shift = (k & 7) << 3;
        data[w] = (data[w] & ~(0xFFL << shift)) | ((value & 0xFFL) << shift);
    }

    private static long signExtend(long bits, int size) {
        return size == 8 ? bits : (bits << (64 - 8 * size)) >> (64 - 8 * size);
    }
}
