package org.hsa4j.memory;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The Linux virtual-memory calls the real-address SVM arena needs ({@code mmap}, {@code mprotect},
 * {@code madvise}, {@code munmap}, {@code memfd_create}, {@code ftruncate}, {@code close}), bound
 * once through the foreign linker with errno captured. The address of a reservation is always the
 * kernel's choice ({@code mmap(NULL, ...)}): a fixed address may already hold the JVM's own heap
 * reservation.
 *
 * <p>A reservation is a {@code MAP_SHARED} mapping of a {@code memfd} where the kernel has one
 * ({@link #reserveShared}), so another process (a CUDA device server) can map the very same bytes
 * at the same address through {@code /proc/<pid>/fd/<fd>}; freed ranges then give their pages back
 * with {@code MADV_REMOVE} (a hole punched in the file), since {@code MADV_DONTNEED} would only drop
 * this process's view of a shared page.
 */
final class NativeMappings {
    static final int PROT_NONE = 0;
    static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE = 0x02;
    private static final int MAP_ANONYMOUS = 0x20;
    private static final int MAP_NORESERVE = 0x4000;
    private static final int MAP_SHARED = 0x01;
    private static final int MADV_DONTNEED = 4;
    private static final int MADV_REMOVE = 9;
    private static final int MFD_CLOEXEC = 0x1;
    /** Where shared reservations are hinted first: 16 TiB, then every {@link #HINT_STEP} above, {@link #HINTS} times. */
    private static final long HINT_BASE = 1L << 44;
    private static final long HINT_STEP = 128L << 30;
    private static final int HINTS = 16;

    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(
            java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle MMAP;
    private static final MethodHandle MPROTECT;
    private static final MethodHandle MADVISE;
    private static final MethodHandle MUNMAP;
    private static final MethodHandle MEMFD_CREATE;
    private static final MethodHandle FTRUNCATE;
    private static final MethodHandle CLOSE;
    /** Why the calls are unavailable (not Linux, or a symbol missing), or null. */
    private static final String UNAVAILABLE;

    static {
        MethodHandle mmap = null;
        MethodHandle mprotect = null;
        MethodHandle madvise = null;
        MethodHandle munmap = null;
        MethodHandle memfd = null;
        MethodHandle ftruncate = null;
        MethodHandle close = null;
        String why = null;
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
            why = "real-address SVM needs Linux, this is " + System.getProperty("os.name");
        } else {
            try {
                Linker linker = Linker.nativeLinker();
                SymbolLookup libc = linker.defaultLookup();
                Linker.Option errno = Linker.Option.captureCallState("errno");
                mmap = linker.downcallHandle(libc.findOrThrow("mmap"), FunctionDescriptor.of(ADDRESS, ADDRESS,
                        JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG), errno);
                mprotect = linker.downcallHandle(libc.findOrThrow("mprotect"),
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), errno);
                madvise = linker.downcallHandle(libc.findOrThrow("madvise"),
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), errno);
                munmap = linker.downcallHandle(libc.findOrThrow("munmap"),
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG), errno);
                // optional: without them the reservation is private (no device server can share it)
                memfd = libc.find("memfd_create").map(f -> linker.downcallHandle(f,
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), errno)).orElse(null);
                ftruncate = linker.downcallHandle(libc.findOrThrow("ftruncate"),
                        FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG), errno);
                close = linker.downcallHandle(libc.findOrThrow("close"), FunctionDescriptor.of(JAVA_INT, JAVA_INT), errno);
            } catch (RuntimeException | LinkageError e) {
                why = "cannot bind mmap through the foreign linker: " + e;
            }
        }
        MMAP = mmap;
        MPROTECT = mprotect;
        MADVISE = madvise;
        MUNMAP = munmap;
        MEMFD_CREATE = memfd;
        FTRUNCATE = ftruncate;
        CLOSE = close;
        UNAVAILABLE = why;
    }

    private NativeMappings() {
    }

    /**
     * Reserves {@code bytes} of address space with no access and no commit charge
     * ({@code PROT_NONE}, {@code MAP_NORESERVE}) at an address the kernel chooses.
     *
     * @throws HsaException OUT_OF_RESOURCES when the kernel refuses, or the calls are unavailable
     */
    static long reserve(long bytes) {
        if (UNAVAILABLE != null) {
            throw new HsaException(HsaStatus.OUT_OF_RESOURCES, UNAVAILABLE);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            MemorySegment p = (MemorySegment) MMAP.invokeExact(state, MemorySegment.NULL, bytes, PROT_NONE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0L);
            if (p.address() == -1L) {
                throw new HsaException(HsaStatus.OUT_OF_RESOURCES, "mmap of " + bytes
                        + " bytes of address space failed: errno " + errno(state));
            }
            return p.address();
        } catch (HsaException e) {
            throw e;
        } catch (Throwable t) {
            throw new HsaException(HsaStatus.ERROR, "mmap failed unexpectedly", t);
        }
    }

    /** A reservation: its address, and the memfd it maps ({@code -1} for a private one). */
    record Reservation(long address, int fd) {
    }

    /**
     * Reserves {@code bytes} of address space as {@link #reserve} does, backed by a new memfd of that
     * (sparse) size mapped {@code MAP_SHARED}, so another process can map the same bytes; a private
     * reservation ({@code fd} -1) where the kernel has no {@code memfd_create}.
     *
     * @throws HsaException OUT_OF_RESOURCES when the kernel refuses, or the calls are unavailable
     */
    static Reservation reserveShared(long bytes) {
        if (UNAVAILABLE != null) {
            throw new HsaException(HsaStatus.OUT_OF_RESOURCES, UNAVAILABLE);
        }
        if (MEMFD_CREATE == null) {
            return new Reservation(reserve(bytes), -1);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            int fd = (int) MEMFD_CREATE.invokeExact(state, a.allocateFrom("hsa4j-svm"), MFD_CLOEXEC);
            if (fd < 0) {
                return new Reservation(reserve(bytes), -1);   // ENOSYS (a seccomp filter, an old kernel)
            }
            int rc = (int) FTRUNCATE.invokeExact(state, fd, bytes);
            if (rc != 0) {
                int e = errno(state);
                close(fd);
                throw new HsaException(HsaStatus.OUT_OF_RESOURCES, "ftruncate of the SVM memfd to " + bytes
                        + " bytes failed: errno " + e);
            }
            MemorySegment p = MemorySegment.ofAddress(-1L);
            // a hint, never MAP_FIXED: the kernel still chooses, and takes the hint only where it is
            // free. Hinted places lie far from where a JVM's own mappings go (its heap low, its
            // libraries and threads below the top), so a device server JVM finds them free too
            for (int k = 0; k < HINTS && p.address() == -1L; k++) {
                long hint = HINT_BASE + k * HINT_STEP;
                p = (MemorySegment) MMAP.invokeExact(state, MemorySegment.ofAddress(hint), bytes, PROT_NONE,
                        MAP_SHARED | MAP_NORESERVE, fd, 0L);
                if (p.address() != -1L && p.address() != hint) {
                    int undone = (int) MUNMAP.invokeExact(state, p, bytes);
                    p = MemorySegment.ofAddress(-1L);
                }
            }
            if (p.address() == -1L) {
                p = (MemorySegment) MMAP.invokeExact(state, MemorySegment.NULL, bytes, PROT_NONE,
                        MAP_SHARED | MAP_NORESERVE, fd, 0L);
            }
            if (p.address() == -1L) {
                int e = errno(state);
                close(fd);
                throw new HsaException(HsaStatus.OUT_OF_RESOURCES, "mmap of " + bytes
                        + " shared bytes of address space failed: errno " + e);
            }
            return new Reservation(p.address(), fd);
        } catch (HsaException e) {
            throw e;
        } catch (Throwable t) {
            throw new HsaException(HsaStatus.ERROR, "memfd_create or mmap failed unexpectedly", t);
        }
    }

    /** Closes descriptor {@code fd}; errors ignored (it is gone either way). */
    static void close(int fd) {
        try (Arena a = Arena.ofConfined()) {
            int ignored = (int) CLOSE.invokeExact(a.allocate(CALL_STATE), fd);
        } catch (Throwable t) {
            // nothing the caller could mend
        }
    }

    /**
     * Sets the access of {@code address .. address+bytes} ({@code mprotect}).
     *
     * @throws HsaException OUT_OF_RESOURCES when the kernel refuses (for read-write: no commit charge left)
     */
    static void protect(long address, long bytes, int prot) {
        call(MPROTECT, "mprotect", address, bytes, prot);
    }

    /** Gives the pages of {@code address .. address+bytes} back to the kernel; they read as zero when touched again. */
    static void discard(long address, long bytes) {
        call(MADVISE, "madvise", address, bytes, MADV_DONTNEED);
    }

    /**
     * Gives the pages of a shared mapping's {@code address .. address+bytes} back to the kernel by
     * punching a hole in the file ({@code MADV_REMOVE}): every process mapping it reads zero there after.
     */
    static void discardShared(long address, long bytes) {
        call(MADVISE, "madvise", address, bytes, MADV_REMOVE);
    }

    /** Unmaps {@code address .. address+bytes} ({@code munmap}). */
    static void unmap(long address, long bytes) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            int rc = (int) MUNMAP.invokeExact(state, MemorySegment.ofAddress(address), bytes);
            if (rc != 0) {
                throw new HsaException(HsaStatus.ERROR, String.format("munmap of 0x%x+%d failed: errno %d", address,
                        bytes, errno(state)));
            }
        } catch (HsaException e) {
            throw e;
        } catch (Throwable t) {
            throw new HsaException(HsaStatus.ERROR, "munmap failed unexpectedly", t);
        }
    }

    private static void call(MethodHandle h, String name, long address, long bytes, int arg) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CALL_STATE);
            int rc = (int) h.invokeExact(state, MemorySegment.ofAddress(address), bytes, arg);
            if (rc != 0) {
                throw new HsaException(HsaStatus.OUT_OF_RESOURCES, String.format("%s(0x%x, %d, %d) failed: errno %d",
                        name, address, bytes, arg, errno(state)));
            }
        } catch (HsaException e) {
            throw e;
        } catch (Throwable t) {
            throw new HsaException(HsaStatus.ERROR, name + " failed unexpectedly", t);
        }
    }

    private static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }
}
