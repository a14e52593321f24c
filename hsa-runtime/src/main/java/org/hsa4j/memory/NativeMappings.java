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
 * {@code madvise}, {@code munmap}), bound once through the foreign linker with errno captured.
 * The address of a reservation is always the kernel's choice ({@code mmap(NULL, ...)}): a fixed
 * address may already hold the JVM's own heap reservation.
 */
final class NativeMappings {
    static final int PROT_NONE = 0;
    static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE = 0x02;
    private static final int MAP_ANONYMOUS = 0x20;
    private static final int MAP_NORESERVE = 0x4000;
    private static final int MADV_DONTNEED = 4;

    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(
            java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle MMAP;
    private static final MethodHandle MPROTECT;
    private static final MethodHandle MADVISE;
    private static final MethodHandle MUNMAP;
    /** Why the calls are unavailable (not Linux, or a symbol missing), or null. */
    private static final String UNAVAILABLE;

    static {
        MethodHandle mmap = null;
        MethodHandle mprotect = null;
        MethodHandle madvise = null;
        MethodHandle munmap = null;
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
            } catch (RuntimeException | LinkageError e) {
                why = "cannot bind mmap through the foreign linker: " + e;
            }
        }
        MMAP = mmap;
        MPROTECT = mprotect;
        MADVISE = madvise;
        MUNMAP = munmap;
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
