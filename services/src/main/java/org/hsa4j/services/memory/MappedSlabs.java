package org.hsa4j.services.memory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Host malloc for kernels of a device that maps host memory by registering it (a CUDA agent): blocks
 * carved from slabs of the real-address pool that are mapped, and so registered with the device,
 * before a kernel asks for them.
 *
 * <h2>Why</h2>
 * The real-address pool maps a 4 MiB chunk the first time a size class needs one, and a CUDA agent
 * then registers it ({@code cuMemHostRegister}), which changes the device's page tables and may wait
 * for the kernels running on it. A malloc served that way while the calling kernel waits for its
 * answer could wait for itself until the kernel's spin limit. So the slabs are taken in large spans
 * ahead of need: the first at start (before any kernel runs), and the next one, on a thread of its
 * own (no caller waits for it), as soon as the current one is more than half carved, so a kernel's
 * malloc is served from memory mapped before. A caller that finds the current slab used up waits
 * at most {@link #NEXT_WAIT_MILLIS} for the next one, then gets OUT_OF_RESOURCES (a kernel: a null
 * pointer), never a hang. A block larger than {@link #MAX_BLOCK} gets a span of its own from the
 * pool, mapped at that call.
 *
 * <h2>How</h2>
 * Power-of-two size classes from 64 bytes to {@link #MAX_BLOCK}, a free list per class and a bump
 * pointer in the current slab; all under this object's monitor. A freed block goes back to its
 * class's list and is handed out again at once (no quarantine: a stale pointer aliases the next
 * block of its class). Live blocks are kept in address order, so an interior pointer is told from a
 * foreign one.
 */
final class MappedSlabs {
    /** Bytes of one slab: one span of the real-address pool. */
    static final long SLAB_BYTES = 16L << 20;
    /** Smallest block. */
    static final long MIN_BLOCK = 64;
    /** Largest block carved from a slab; larger ones get a span of their own. */
    static final long MAX_BLOCK = 1L << 20;
    /** Longest wait for the next slab when the current one is used up. */
    static final long NEXT_WAIT_MILLIS = 2_000;

    private final HsaRuntime runtime;
    private final List<Long> slabs = java.util.Collections.synchronizedList(new ArrayList<>());
    /** Maps the next slab, so no caller waits for the mapping. */
    private final java.util.concurrent.ExecutorService mapper = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "hsa4j-malloc-slabs");
        t.setDaemon(true);
        return t;
    });
    @SuppressWarnings("unchecked")
    private final ArrayDeque<Long>[] free = new ArrayDeque[Long.numberOfTrailingZeros(MAX_BLOCK) + 1];
    /** Live blocks by address: their block size (carved) or -bytes (a span of their own). */
    private final Map<Long, Long> live = new ConcurrentSkipListMap<>();
    private long bump;
    private long slabEnd;
    /** The next slab, being mapped on {@link #mapper}, or null. */
    private java.util.concurrent.Future<Long> next;

    /** Maps the first slab now (before any kernel runs). */
    MappedSlabs(HsaRuntime runtime) {
        this.runtime = runtime;
        for (int i = 0; i < free.length; i++) {
            free[i] = new ArrayDeque<>();
        }
        long first = mapSlab();
        bump = first;
        slabEnd = first + SLAB_BYTES;
    }

    private long mapSlab() {
        long s = runtime.realSystemPool().allocate(SLAB_BYTES);
        slabs.add(s);
        return s;
    }

    /** The block size serving {@code bytes} (a power of two, at least {@link #MIN_BLOCK}). */
    static long blockSize(long bytes) {
        return Math.max(MIN_BLOCK, Long.highestOneBit(bytes - 1) << 1);
    }

    /** A block of at least {@code bytes} (1..2^32); throws HsaException when the pool is exhausted. */
    synchronized long allocate(long bytes) {
        if (bytes > MAX_BLOCK) {
            long a = runtime.realSystemPool().allocate(bytes);
            live.put(a, -bytes);
            return a;
        }
        long size = blockSize(bytes);
        ArrayDeque<Long> list = free[Long.numberOfTrailingZeros(size)];
        Long reused = list.pollFirst();
        long a;
        if (reused != null) {
            a = reused;
        } else {
            if (bump + size > slabEnd) {
                long s = takeNext();
                bump = s;
                slabEnd = s + SLAB_BYTES;
            }
            a = bump;
            bump += size;
            if (next == null && slabEnd - bump < SLAB_BYTES / 2) {
                // map the next slab while kernels still have half of this one to use
                next = mapper.submit(this::mapSlab);
            }
        }
        live.put(a, size);
        return a;
    }

    /** The next slab: the one being mapped (waiting at most {@link #NEXT_WAIT_MILLIS}), or one mapped now if none was started. */
    private long takeNext() {
        java.util.concurrent.Future<Long> f = next == null ? mapper.submit(this::mapSlab) : next;
        next = null;
        try {
            return f.get(NEXT_WAIT_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            next = f; // a later call takes it once it is mapped
            throw new HsaException(HsaStatus.OUT_OF_RESOURCES, "the next malloc slab was not mapped within "
                    + NEXT_WAIT_MILLIS + " ms (registering it with a device may wait for the kernels running there)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            next = f;
            throw new HsaException(HsaStatus.OUT_OF_RESOURCES, "interrupted while the next malloc slab was mapped");
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof HsaException h ? h
                    : new HsaException(HsaStatus.OUT_OF_RESOURCES, "cannot map a malloc slab: " + e.getCause());
        }
    }

    /** Slabs mapped so far. */
    int slabCount() {
        return slabs.size();
    }

    /** Bytes of the live block at {@code address}, or 0 when none starts there. */
    long liveBytes(long address) {
        Long v = live.get(address);
        return v == null ? 0 : Math.abs(v);
    }

    /** True when {@code address} lies inside a live block without being its start. */
    boolean isInterior(long address) {
        Map.Entry<Long, Long> e = ((ConcurrentSkipListMap<Long, Long>) live).floorEntry(address);
        return e != null && e.getKey() != address && address - e.getKey() < Math.abs(e.getValue());
    }

    /** Frees the live block at {@code address}; false when no live block starts there. */
    synchronized boolean release(long address) {
        Long v = live.remove(address);
        if (v == null) {
            return false;
        }
        if (v < 0) {
            runtime.free(address);
        } else {
            free[Long.numberOfTrailingZeros(v)].addLast(address);
        }
        return true;
    }

    /** Stops the mapping thread and gives every slab and span back to the pool (when the runtime is still open). */
    synchronized void close() {
        mapper.shutdown();
        try {
            mapper.awaitTermination(NEXT_WAIT_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!runtime.isClosed()) {
            for (Map.Entry<Long, Long> e : live.entrySet()) {
                if (e.getValue() < 0) {
                    runtime.free(e.getKey());
                }
            }
            synchronized (slabs) {
                for (long s : slabs) {
                    runtime.free(s);
                }
            }
        }
        live.clear();
        slabs.clear();
    }
}
