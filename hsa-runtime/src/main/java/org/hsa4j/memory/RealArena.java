package org.hsa4j.memory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The real-address kind of SVM: memory whose SVM address IS its native address, so the same
 * 64-bit value names the same bytes on the host, in a CPU agent's kernel and in another agent
 * that maps the memory at the same address (a CUDA agent after {@code cuMemHostRegister}), even
 * when it is stored inside a data structure (a tree's child pointers).
 *
 * <p><b>Layout.</b> One reservation of {@link #DEFAULT_RESERVATION} bytes of address space,
 * placed by the kernel ({@code mmap(NULL, .., PROT_NONE, MAP_NORESERVE)}: no fixed address, the
 * JVM's heap may sit anywhere) and aligned here to {@link #CHUNK_SIZE}. It is cut into chunks of
 * 4 MiB. A chunk is committed ({@code mprotect} read-write) and reported to every
 * {@link SvmRegistrar} before any byte of it is handed out: registration is expensive (it pins
 * pages), so it is paid once per chunk, never per allocation. A chunk serves one size class
 * (power-of-two blocks of 64 B to 1 MiB, each aligned to its size); a larger allocation takes a
 * span of whole chunks of its own. Native addresses are below 2^57, so bit 62 is clear in every
 * address here and set in every tagged one ({@link SvmAddress}): {@link AddressSpace#lookup} tells
 * the kinds apart with one test.
 *
 * <p><b>Lookup.</b> {@code directory[(address - base) >>> 22]} is the chunk (null outside any
 * committed chunk, or past the reservation: one unsigned compare), and
 * {@code chunk.slots[(address - chunk.base) >>> chunk.shift]} the allocation holding that block
 * (a span has one slot): two plain array loads, like the tagged table, and safe for the same
 * reason: an address reaches another thread only through a synchronizing operation that orders
 * the publishing store before it. The caller then checks the bytes lie inside the allocation's
 * size (a block is larger than its allocation). A fabricated address faults: it lies outside the
 * reservation, in an uncommitted chunk, or in a block with no live allocation.
 *
 * <p><b>Use after free.</b> A freed block's slot is emptied at once, so its addresses fault
 * through the checked API. The block goes to the back of its class's FIFO quarantine and is
 * handed out again only once the quarantine holds more than {@code max(16, 16 MiB / block size)}
 * blocks (or no fresh chunk is left): a stale pointer keeps faulting until at least that many
 * later frees of its class. After that it aliases the block's next allocation: the real kind has
 * no generation bits to spend (the address is the native one), so it cannot promise what the
 * tagged kind does (a stale tagged address never resolves again). A freed span is unregistered,
 * made inaccessible ({@code PROT_NONE}, pages discarded) and its chunks are reused only after the
 * whole reservation has been handed out once, so a stale span address faults for the host and
 * for a GPU alike. Chunks of size classes are never given back (blocks are recycled, as in
 * {@link BlockHeap}). docs/SECURITY.md states the guarantee.
 *
 * <p><b>Shared with a device server.</b> Where asked ({@link MemoryManager#shareRealSvm}, as a
 * CUDA agent does), the reservation maps a {@code memfd} {@code MAP_SHARED}
 * ({@link NativeMappings#reserveShared}; file offset = address - {@link #mapAddress()}), so a child
 * process (a CUDA device server that serves a GPU after the in-process context died) can map the
 * very same bytes at the same addresses through {@code /proc/<pid>/fd/<fd>} ({@link #share()}).
 * Nothing else changes for this process: commits are the same {@code mprotect}, and a freed span's
 * pages go back by punching a hole in the file ({@code MADV_REMOVE}, which reads as zero after, as
 * the private {@code MADV_DONTNEED} did); a fresh shared page costs about 0.8 us more on first touch,
 * which is why the default stays private. Where the kernel has no memfd the reservation stays
 * private and {@link #share()} is empty.
 *
 * <p>All mutation is under this object's lock; {@link #lookup} takes none.
 */
final class RealArena {
    static final int CHUNK_SHIFT = 22;
    static final long CHUNK_SIZE = 1L << CHUNK_SHIFT;
    static final int MIN_SHIFT = 6;
    static final int MAX_SMALL_SHIFT = 20;
    /** Address space reserved for real-address SVM: 64 GiB, committed chunk by chunk. */
    static final long DEFAULT_RESERVATION = 64L << 30;
    /** Bytes of freed blocks each size class keeps back before reusing one. */
    static final long QUARANTINE_BYTES = 16L << 20;
    /** Freed blocks each size class keeps back at least. */
    static final int MIN_QUARANTINE = 16;
    /** A span's slot shift: every offset inside it maps to slot 0. */
    private static final int SPAN_SHIFT = 62;

    /** A committed chunk of one size class, or a span of {@code count} chunks holding one allocation. */
    private static final class Chunk {
        final long base;
        final int first;
        final int count;
        final int shift;
        final Allocation[] slots;

        Chunk(long base, int first, int count, int shift) {
            this.base = base;
            this.first = first;
            this.count = count;
            this.shift = shift;
            this.slots = new Allocation[shift == SPAN_SHIFT ? 1 : (int) (CHUNK_SIZE >>> shift)];
        }

        long bytes() {
            return (long) count << CHUNK_SHIFT;
        }
    }

    /** A size class: its chunk being carved, and its FIFO quarantine of freed blocks. */
    private static final class SizeClass {
        final int shift;
        final int reuseDistance;
        final ArrayDeque<Long> quarantine = new ArrayDeque<>();
        Chunk current;
        int used;

        SizeClass(int shift, long quarantineBytes) {
            this.shift = shift;
            this.reuseDistance = (int) Math.max(MIN_QUARANTINE, quarantineBytes >>> shift);
        }
    }

    private final long mapAddress;
    private final long mapBytes;
    /** The memfd the reservation maps, or -1 for a private reservation. */
    private final int fd;
    private final long base;
    private final long limit;
    private final Chunk[] directory;
    private final SizeClass[] classes = new SizeClass[MAX_SMALL_SHIFT - MIN_SHIFT + 1];
    /** Freed spans' chunk runs {first, count}, reused first-fit once no fresh chunk is left. */
    private final ArrayDeque<int[]> freeRuns = new ArrayDeque<>();
    private final List<SvmRegistrar> registrars = new ArrayList<>();
    private int nextChunk;
    private long committedBytes;
    private boolean closed;

    /** A private arena: see {@link #RealArena(long, long, List, boolean)}. */
    RealArena(long reservation, long quarantineBytes, List<SvmRegistrar> registrars) {
        this(reservation, quarantineBytes, registrars, false);
    }

    /**
     * An arena of {@code reservation} bytes (a multiple of the chunk size) with {@code registrars}
     * told of every chunk; a shared memfd mapping when {@code shared} (and the kernel has memfd).
     */
    RealArena(long reservation, long quarantineBytes, List<SvmRegistrar> registrars, boolean shared) {
        if (reservation < CHUNK_SIZE || (reservation & (CHUNK_SIZE - 1)) != 0 || reservation >>> CHUNK_SHIFT > 1 << 24) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "reservation must be a multiple of " + CHUNK_SIZE
                    + " bytes, at most 2^24 chunks, was " + reservation);
        }
        for (int s = MIN_SHIFT; s <= MAX_SMALL_SHIFT; s++) {
            classes[s - MIN_SHIFT] = new SizeClass(s, quarantineBytes);
        }
        this.mapBytes = reservation + CHUNK_SIZE;
        NativeMappings.Reservation r = shared ? NativeMappings.reserveShared(mapBytes)
                : new NativeMappings.Reservation(NativeMappings.reserve(mapBytes), -1);
        this.mapAddress = r.address();
        this.fd = r.fd();
        this.base = (mapAddress + CHUNK_SIZE - 1) & -CHUNK_SIZE;
        this.limit = reservation;
        if (SvmAddress.tagged(base) || (base + limit) >>> 57 != 0) {
            NativeMappings.unmap(mapAddress, mapBytes);
            if (fd >= 0) {
                NativeMappings.close(fd);
            }
            throw new HsaException(HsaStatus.OUT_OF_RESOURCES, String.format("mmap placed the SVM arena at 0x%x, "
                    + "above 2^57, where it would collide with tagged SVM addresses", base));
        }
        this.directory = new Chunk[(int) (reservation >>> CHUNK_SHIFT)];
        this.registrars.addAll(registrars);
    }

    /** The size class's shift serving {@code bytes} at {@code alignment}, or -1 for a span. */
    static int classShift(long bytes, long alignment) {
        long need = Math.max(Math.max(bytes, alignment), 1L << MIN_SHIFT);
        return need > 1L << MAX_SMALL_SHIFT ? -1 : 64 - Long.numberOfLeadingZeros(need - 1);
    }

    /** Bytes of the arena an allocation of {@code bytes} at {@code alignment} occupies. */
    static long footprint(long bytes, long alignment) {
        int shift = classShift(bytes, alignment);
        return shift >= 0 ? 1L << shift : (bytes + CHUNK_SIZE - 1) & -CHUNK_SIZE;
    }

    /** First address of the reservation (chunk-aligned). */
    long base() {
        return base;
    }

    /** Bytes of the reservation. */
    long limit() {
        return limit;
    }

    /** First address of the whole mapping (file offset 0); {@link #base()} is the first chunk-aligned one. */
    long mapAddress() {
        return mapAddress;
    }

    /** The memory as a file another process can map at the same address, or null for a private reservation. */
    SvmShare share() {
        return fd < 0 ? null : new SvmShare(ProcessHandle.current().pid(), fd, mapAddress, mapBytes);
    }

    /** Bytes committed and registered now. */
    synchronized long committedBytes() {
        return committedBytes;
    }

    /** The allocation whose block or span holds {@code address}, or null; no bounds check against its size. */
    Allocation lookup(long address) {
        long offset = address - base;
        if (Long.compareUnsigned(offset, limit) >= 0) {
            return null;
        }
        Chunk c = directory[(int) (offset >>> CHUNK_SHIFT)];
        return c == null ? null : c.slots[(int) ((address - c.base) >>> c.shift)];
    }

    /**
     * Takes a block or span for {@code bytes} at {@code alignment}; its chunk is committed and
     * registered before this returns.
     *
     * @throws HsaException OUT_OF_RESOURCES when the reservation is exhausted or the kernel refuses
     *                      the commit; a registrar's status when it refuses the chunk
     */
    synchronized long reserve(long bytes, long alignment) {
        if (closed) {
            throw new HsaException(HsaStatus.NOT_INITIALIZED, "the runtime has been shut down");
        }
        int shift = classShift(bytes, alignment);
        if (shift < 0) {
            int count = (int) (footprint(bytes, alignment) >>> CHUNK_SHIFT);
            int first = takeChunks(count);
            if (first < 0) {
                throw exhausted(bytes);
            }
            Chunk span = new Chunk(chunkAddress(first), first, count, SPAN_SHIFT);
            commit(span);
            return span.base;
        }
        SizeClass k = classes[shift - MIN_SHIFT];
        if (k.quarantine.size() > k.reuseDistance) {
            return k.quarantine.pollFirst();
        }
        if (k.current == null || k.used == k.current.slots.length) {
            int first = takeChunks(1);
            if (first < 0) {
                Long reused = k.quarantine.pollFirst();
                if (reused == null) {
                    throw exhausted(bytes);
                }
                return reused;
            }
            Chunk c = new Chunk(chunkAddress(first), first, 1, shift);
            commit(c);
            k.current = c;
            k.used = 0;
        }
        return k.current.base + ((long) k.used++ << shift);
    }

    private HsaException exhausted(long bytes) {
        return new HsaException(HsaStatus.OUT_OF_RESOURCES, String.format("the real-address SVM arena (%d bytes at "
                + "0x%x) has no room for %d bytes", limit, base, bytes));
    }

    private long chunkAddress(int index) {
        return base + ((long) index << CHUNK_SHIFT);
    }

    /** The first of {@code count} free chunks: fresh ones first, then freed spans' runs; -1 when none fit. */
    private int takeChunks(int count) {
        if (count <= directory.length - nextChunk) {
            int first = nextChunk;
            nextChunk += count;
            return first;
        }
        for (Iterator<int[]> it = freeRuns.iterator(); it.hasNext(); ) {
            int[] run = it.next();
            if (run[1] >= count) {
                int first = run[0];
                if (run[1] == count) {
                    it.remove();
                } else {
                    run[0] += count;
                    run[1] -= count;
                }
                return first;
            }
        }
        return -1;
    }

    /** Commits and registers {@code c}, then makes it visible to lookups; on failure undoes both and frees its chunks. */
    private void commit(Chunk c) {
        try {
            NativeMappings.protect(c.base, c.bytes(), NativeMappings.PROT_READ_WRITE);
        } catch (HsaException e) {
            freeRuns.addLast(new int[] {c.first, c.count});
            throw e;
        }
        int told = 0;
        try {
            for (SvmRegistrar r : registrars) {
                r.mapped(c.base, c.bytes());
                told++;
            }
        } catch (RuntimeException e) {
            for (int i = 0; i < told; i++) {
                unmapping(registrars.get(i), c);
            }
            decommit(c);
            freeRuns.addLast(new int[] {c.first, c.count});
            throw e;
        }
        committedBytes += c.bytes();
        for (int i = 0; i < c.count; i++) {
            directory[c.first + i] = c;
        }
    }

    private void decommit(Chunk c) {
        if (fd >= 0) {
            // MADV_REMOVE needs the range writable: punch the hole first, then take the access away
            NativeMappings.discardShared(c.base, c.bytes());
            NativeMappings.protect(c.base, c.bytes(), NativeMappings.PROT_NONE);
        } else {
            NativeMappings.protect(c.base, c.bytes(), NativeMappings.PROT_NONE);
            NativeMappings.discard(c.base, c.bytes());
        }
    }

    private static void unmapping(SvmRegistrar r, Chunk c) {
        try {
            r.unmapping(c.base, c.bytes());
        } catch (RuntimeException ignored) {
            // the contract says it must not throw; the range goes away either way
        }
    }

    private Chunk chunkOf(long address) {
        return directory[(int) ((address - base) >>> CHUNK_SHIFT)];
    }

    /** Makes {@code a}'s addresses resolve. */
    synchronized void publish(Allocation a) {
        Chunk c = chunkOf(a.base);
        c.slots[(int) ((a.base - c.base) >>> c.shift)] = a;
    }

    /** Makes {@code a}'s addresses fault (its block stays taken until {@link #recycle}); false when it was not published. */
    synchronized boolean unpublish(Allocation a) {
        Chunk c = chunkOf(a.base);
        if (c == null) {
            return false;
        }
        int i = (int) ((a.base - c.base) >>> c.shift);
        if (c.slots[i] != a) {
            return false;
        }
        c.slots[i] = null;
        return true;
    }

    /**
     * Gives back the block or span at {@code base} once nothing can access it any more: a block to
     * its class's quarantine, a span unregistered and decommitted, its chunks to the free runs.
     */
    synchronized void recycle(long base) {
        if (closed) {
            return;
        }
        Chunk c = chunkOf(base);
        if (c.shift != SPAN_SHIFT) {
            classes[c.shift - MIN_SHIFT].quarantine.addLast(base);
            return;
        }
        for (int i = 0; i < c.count; i++) {
            directory[c.first + i] = null;
        }
        for (SvmRegistrar r : registrars) {
            unmapping(r, c);
        }
        decommit(c);
        committedBytes -= c.bytes();
        freeRuns.addLast(new int[] {c.first, c.count});
    }

    /** Forgets every allocation: every address faults from now on. */
    synchronized void clear() {
        for (int i = 0; i < nextChunk; i++) {
            Chunk c = directory[i];
            if (c != null && c.first == i) {
                Arrays.fill(c.slots, null);
            }
        }
    }

    /**
     * Tells {@code r} of every committed chunk and of every later one.
     *
     * @throws HsaException whatever {@code r} refuses a chunk with; it is then told of none
     */
    synchronized void addRegistrar(SvmRegistrar r) {
        List<Chunk> told = new ArrayList<>();
        try {
            for (Chunk c : committed()) {
                r.mapped(c.base, c.bytes());
                told.add(c);
            }
        } catch (RuntimeException e) {
            for (Chunk c : told) {
                unmapping(r, c);
            }
            throw e;
        }
        registrars.add(r);
    }

    /** Stops telling {@code r}, after telling it every committed chunk is going away for it. */
    synchronized void removeRegistrar(SvmRegistrar r) {
        if (registrars.remove(r) && !closed) {
            for (Chunk c : committed()) {
                unmapping(r, c);
            }
        }
    }

    private List<Chunk> committed() {
        List<Chunk> out = new ArrayList<>();
        for (int i = 0; i < nextChunk; i++) {
            Chunk c = directory[i];
            if (c != null && c.first == i) {
                out.add(c);
            }
        }
        return out;
    }

    /** Unregisters every chunk and unmaps the reservation; call once no access can be in flight. */
    synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Chunk c : committed()) {
            for (SvmRegistrar r : registrars) {
                unmapping(r, c);
            }
        }
        Arrays.fill(directory, null);
        NativeMappings.unmap(mapAddress, mapBytes);
        if (fd >= 0) {
            NativeMappings.close(fd);
        }
    }
}
