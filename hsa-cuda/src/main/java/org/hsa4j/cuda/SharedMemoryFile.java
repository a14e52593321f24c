package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The Linux calls a device server needs to share memory with its parent: {@code memfd_create},
 * {@code open} of {@code /proc/<pid>/fd/<n>}, {@code ftruncate}, {@code mmap(MAP_SHARED)} at a
 * fixed address that must be free ({@code MAP_FIXED_NOREPLACE}), {@code mprotect}, {@code munmap},
 * {@code close}; bound once through the foreign linker with errno captured. Every failure is an
 * {@link HsaException} naming the call, its arguments and errno.
 */
final class SharedMemoryFile {
    static final int PROT_NONE = 0;
    static final int PROT_READ_WRITE = 0x1 | 0x2;
    static final int MAP_SHARED = 0x01;
    static final int MAP_NORESERVE = 0x4000;
    static final int MAP_FIXED_NOREPLACE = 0x100000;
    private static final int MFD_CLOEXEC = 0x1;
    private static final int O_RDWR = 0x2;
    private static final int O_CLOEXEC = 0x80000;
    /** errno of {@code MAP_FIXED_NOREPLACE} over an existing mapping. */
    static final int EEXIST = 17;

    private static final StructLayout STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle MEMFD_CREATE;
    private static final MethodHandle OPEN;
    private static final MethodHandle FTRUNCATE;
    private static final MethodHandle MMAP;
    private static final MethodHandle MPROTECT;
    private static final MethodHandle MUNMAP;
    private static final MethodHandle CLOSE;

    static {
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        Linker.Option errno = Linker.Option.captureCallState("errno");
        MEMFD_CREATE = linker.downcallHandle(libc.findOrThrow("memfd_create"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), errno);
        OPEN = linker.downcallHandle(libc.findOrThrow("open"), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), errno);
        FTRUNCATE = linker.downcallHandle(libc.findOrThrow("ftruncate"),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG), errno);
        MMAP = linker.downcallHandle(libc.findOrThrow("mmap"), FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG,
                JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG), errno);
        MPROTECT = linker.downcallHandle(libc.findOrThrow("mprotect"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), errno);
        MUNMAP = linker.downcallHandle(libc.findOrThrow("munmap"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG), errno);
        CLOSE = linker.downcallHandle(libc.findOrThrow("close"), FunctionDescriptor.of(JAVA_INT, JAVA_INT), errno);
    }

    private SharedMemoryFile() {
    }

    /** A new anonymous shared-memory file of {@code bytes} (sparse: pages are made when touched); its descriptor. */
    static int create(String name, long bytes) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(STATE);
            int fd = (int) MEMFD_CREATE.invokeExact(st, a.allocateFrom(name), MFD_CLOEXEC);
            check(fd, st, "memfd_create(" + name + ")");
            int rc = (int) FTRUNCATE.invokeExact(st, fd, bytes);
            if (rc != 0) {
                int e = errno(st);
                close(fd);
                throw failed("ftruncate(" + fd + ", " + bytes + ")", e);
            }
            return fd;
        } catch (HsaException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected("memfd_create", t);
        }
    }

    /** Opens another process's descriptor {@code fd} through {@code /proc/<pid>/fd/<fd>}, read-write; the new descriptor. */
    static int openOf(long pid, int fd) {
        String path = "/proc/" + pid + "/fd/" + fd;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(STATE);
            int mine = (int) OPEN.invokeExact(st, a.allocateFrom(path), O_RDWR | O_CLOEXEC);
            return check(mine, st, "open(" + path + ")");
        } catch (HsaException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected("open", t);
        }
    }

    /** Maps {@code bytes} of {@code fd} from offset 0, shared, where the kernel chooses; the address. */
    static long map(int fd, long bytes, int prot) {
        return mmap(0, fd, bytes, prot, MAP_SHARED | MAP_NORESERVE);
    }

    /**
     * Maps {@code bytes} of {@code fd} from offset 0, shared, at exactly {@code address}.
     *
     * @throws HsaException OUT_OF_RESOURCES naming the address when something is mapped there already
     */
    static long mapAt(long address, int fd, long bytes, int prot) {
        return mmap(address, fd, bytes, prot, MAP_SHARED | MAP_NORESERVE | MAP_FIXED_NOREPLACE);
    }

    private static long mmap(long address, int fd, long bytes, int prot, int flags) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(STATE);
            MemorySegment p = (MemorySegment) MMAP.invokeExact(st, MemorySegment.ofAddress(address), bytes, prot, flags,
                    fd, 0L);
            if (p.address() == -1L) {
                int e = errno(st);
                throw new HsaException(HsaStatus.OUT_OF_RESOURCES, String.format("mmap of %d shared bytes at 0x%x "
                        + "failed: errno %d%s", bytes, address, e, e == EEXIST ? " (EEXIST: something of this process "
                        + "is mapped there already)" : ""));
            }
            if (address != 0 && p.address() != address) {
                // a kernel older than 4.17 ignores MAP_FIXED_NOREPLACE and treats the address as a hint
                munmap(p.address(), bytes);
                throw new HsaException(HsaStatus.OUT_OF_RESOURCES, String.format("mmap placed %d shared bytes at 0x%x, "
                        + "not at 0x%x (MAP_FIXED_NOREPLACE unsupported?)", bytes, p.address(), address));
            }
            return p.address();
        } catch (HsaException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected("mmap", t);
        }
    }

    /** {@code mprotect(address, bytes, prot)}. */
    static void protect(long address, long bytes, int prot) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(STATE);
            int rc = (int) MPROTECT.invokeExact(st, MemorySegment.ofAddress(address), bytes, prot);
            check(rc, st, String.format("mprotect(0x%x, %d, %d)", address, bytes, prot));
        } catch (HsaException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected("mprotect", t);
        }
    }

    /** {@code munmap(address, bytes)}. */
    static void munmap(long address, long bytes) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(STATE);
            int rc = (int) MUNMAP.invokeExact(st, MemorySegment.ofAddress(address), bytes);
            check(rc, st, String.format("munmap(0x%x, %d)", address, bytes));
        } catch (HsaException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected("munmap", t);
        }
    }

    /** {@code close(fd)}; errors ignored (the descriptor is gone either way). */
    static void close(int fd) {
        try (Arena a = Arena.ofConfined()) {
            int ignored = (int) CLOSE.invokeExact(a.allocate(STATE), fd);
        } catch (Throwable t) {
            // nothing to do: close never fails in a way the caller could mend
        }
    }

    private static int check(int rc, MemorySegment st, String what) {
        if (rc < 0) {
            throw failed(what, errno(st));
        }
        return rc;
    }

    private static HsaException failed(String what, int errno) {
        return new HsaException(HsaStatus.OUT_OF_RESOURCES, what + " failed: errno " + errno);
    }

    private static HsaException unexpected(String what, Throwable t) {
        if (t instanceof Error e) {
            throw e;
        }
        return new HsaException(HsaStatus.ERROR, what + " failed unexpectedly", t);
    }

    private static int errno(MemorySegment st) {
        return (int) ERRNO.get(st, 0L);
    }
}
